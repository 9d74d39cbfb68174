// The generic store on a real Postgres: versions, conflicts, finalizers, the change log,
// watch, compaction, and two store instances seeing each other.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openTestStore, rawQuery, type TestStore } from '../../test/db';
import type { PersistentVolume } from '../resources/persistent-volume/schema';
import type { KubeObject } from '../resources/types';
import type { ChangeEvent } from './change-feed';
import { ObjectStore } from './object-store';

let t: TestStore;

beforeAll(async () => {
  t = await openTestStore();
  await t.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } });
});
afterAll(async () => {
  await t?.close();
});

function pv(name: string, extra: Partial<KubeObject['metadata']> = {}, size = '1Gi'): PersistentVolume {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name, ...extra },
    spec: {
      capacity: { storage: size },
      accessModes: ['ReadWriteOnce'],
      hostPath: { path: `/tmp/${name}` },
    },
  };
}

/** Collects events from a watch until `count` arrive or the deadline passes. */
async function collect(it: AsyncGenerator<ChangeEvent>, count: number, ac: AbortController, ms = 10_000): Promise<ChangeEvent[]> {
  const out: ChangeEvent[] = [];
  const timer = setTimeout(() => ac.abort(), ms);
  try {
    for await (const e of it) {
      out.push(e);
      if (out.length >= count) break;
    }
  } finally {
    clearTimeout(timer);
    ac.abort();
  }
  return out;
}

describe('create, get, update', () => {
  test('create assigns uid, creationTimestamp, generation and a resourceVersion; defaults apply', async () => {
    // create and update answer the object stored, of the kind written: volumes in these tests.
    const o = (await t.store.create(pv('pv-create'))) as PersistentVolume;
    expect(o.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(o.metadata.creationTimestamp).toMatch(/Z$/);
    expect(o.metadata.generation).toBe(1);
    expect(Number(o.metadata.resourceVersion)).toBeGreaterThan(0);
    expect(o.spec!.persistentVolumeReclaimPolicy).toBe('Retain');
    expect(o.status!.phase).toBe('Pending');
    const got = await t.store.get('PersistentVolume', undefined, 'pv-create');
    expect(got).toEqual(o);
  });

  test('objects come back with their keys in the order written', async () => {
    await t.store.create(pv('pv-order'));
    const got = await t.store.get('PersistentVolume', undefined, 'pv-order');
    expect(Object.keys(got)).toEqual(['apiVersion', 'kind', 'metadata', 'spec', 'status']);
    const listed = await t.store.list('PersistentVolume', { fieldSelector: 'metadata.name=pv-order' });
    expect(Object.keys(listed.items[0])).toEqual(['apiVersion', 'kind', 'metadata', 'spec', 'status']);
  });

  test('a second create of the same name is AlreadyExists and writes nothing', async () => {
    await t.store.create(pv('pv-dup'));
    const before = await t.store.currentResourceVersion();
    await expect(t.store.create(pv('pv-dup'))).rejects.toMatchObject({ code: 'AlreadyExists' });
    expect(await t.store.currentResourceVersion()).toBe(before);
  });

  test('generateName makes a unique name', async () => {
    const a = await t.store.create(pv('', { generateName: 'gen-' }));
    const b = await t.store.create(pv('', { generateName: 'gen-' }));
    expect(a.metadata.name).toMatch(/^gen-[a-z0-9]{5}$/);
    expect(a.metadata.name).not.toBe(b.metadata.name);
  });

  test('an invalid object is rejected with field paths and writes nothing', async () => {
    const before = await t.store.currentResourceVersion();
    const bad = pv('pv-bad');
    delete bad.spec!.capacity;
    bad.spec!.accessModes = ['Sometimes'];
    const err = await t.store.create(bad).catch((e) => e);
    expect(err.code).toBe('Invalid');
    const fields = err.details.causes.map((c: { field: string }) => c.field);
    expect(fields).toEqual(expect.arrayContaining([expect.stringMatching(/^spec\.capacity/), expect.stringMatching(/^spec\.accessModes/)]));
    expect(await t.store.currentResourceVersion()).toBe(before);
    expect(await t.store.tryGet('PersistentVolume', undefined, 'pv-bad')).toBeUndefined();
  });

  test('a claim in a namespace that does not exist is NotFound', async () => {
    const claim = {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'c1', namespace: 'nowhere' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    };
    await expect(t.store.create(claim)).rejects.toMatchObject({ code: 'NotFound' });
  });

  test('update with a stale resourceVersion is a Conflict and changes nothing', async () => {
    const o = await t.store.create(pv('pv-stale'));
    const fresh = await t.store.update({ ...o, metadata: { ...o.metadata, labels: { a: '1' } } });
    expect(BigInt(fresh.metadata.resourceVersion!)).toBeGreaterThan(BigInt(o.metadata.resourceVersion!));
    const err = await t.store.update({ ...o, metadata: { ...o.metadata, labels: { a: '2' } } }).catch((e) => e);
    expect(err.code).toBe('Conflict');
    expect((await t.store.get('PersistentVolume', undefined, 'pv-stale')).metadata.labels).toEqual({ a: '1' });
  });

  test('an update that changes nothing keeps the resourceVersion', async () => {
    const o = await t.store.create(pv('pv-noop'));
    const same = await t.store.update(structuredClone(o));
    expect(same.metadata.resourceVersion).toBe(o.metadata.resourceVersion);
  });

  test('spec changes bump generation; label changes do not', async () => {
    const o = await t.store.create(pv('pv-gen'));
    const labelled = (await t.store.update({ ...o, metadata: { ...o.metadata, labels: { x: 'y' } } })) as PersistentVolume;
    expect(labelled.metadata.generation).toBe(1);
    const changed = await t.store.update({ ...labelled, spec: { ...labelled.spec, persistentVolumeReclaimPolicy: 'Delete' } });
    expect(changed.metadata.generation).toBe(2);
  });

  test('the main resource update keeps status; the status update keeps spec', async () => {
    const o = await t.store.create(pv('pv-status'));
    const triedStatus = (await t.store.update({ ...o, status: { phase: 'Bound' } })) as PersistentVolume;
    expect(triedStatus.status!.phase).toBe('Pending');
    const s = (await t.store.update(
      { ...triedStatus, spec: { ...triedStatus.spec, persistentVolumeReclaimPolicy: 'Delete' }, status: { phase: 'Available' } },
      { subresource: 'status' },
    )) as PersistentVolume;
    expect(s.status!.phase).toBe('Available');
    expect(s.spec!.persistentVolumeReclaimPolicy).toBe('Retain');
  });

  test('dry run validates and returns the object but writes nothing', async () => {
    const before = await t.store.currentResourceVersion();
    const o = await t.store.create(pv('pv-dry'), { dryRun: true });
    expect(o.metadata.uid).toBeTruthy();
    expect(await t.store.tryGet('PersistentVolume', undefined, 'pv-dry')).toBeUndefined();
    expect(await t.store.currentResourceVersion()).toBe(before);
  });

  test('indexed columns follow the JSON in the same write', async () => {
    const o = await t.store.create(pv('pv-cols', { labels: { tier: 'gold' } }, '1536Mi'));
    const rows = await rawQuery<{ phase: string; capacity_bytes: string; access_modes: number }>(
      t.url,
      "SELECT phase, capacity_bytes::text, access_modes FROM objects WHERE kind = 'PersistentVolume' AND name = 'pv-cols'",
    );
    expect(rows[0]).toEqual({ phase: 'Pending', capacity_bytes: String(1536 * 1024 * 1024), access_modes: 1 });
    await t.store.update({ ...o, status: { phase: 'Available' } }, { subresource: 'status' });
    const after = await rawQuery<{ phase: string }>(t.url, "SELECT phase FROM objects WHERE kind = 'PersistentVolume' AND name = 'pv-cols'");
    expect(after[0].phase).toBe('Available');
  });
});

describe('concurrency', () => {
  test('20 concurrent writers to one object: exactly the successful ones are visible, versions strictly increase', async () => {
    const base = await t.store.create(pv('pv-race'));
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        t.store.update({ ...base, metadata: { ...base.metadata, labels: { ...base.metadata.labels, [`w${i}`]: 'x' } } }),
      ),
    );
    const ok = results.filter((r) => r.status === 'fulfilled');
    const failed = results.filter((r) => r.status === 'rejected');
    expect(ok.length).toBe(1);
    for (const f of failed) expect(f.reason.code).toBe('Conflict');
    const final = await t.store.get('PersistentVolume', undefined, 'pv-race');
    expect(final).toEqual(ok[0].value);

    // Now serialised retries: every writer eventually lands, each with a higher version.
    const versions: bigint[] = [];
    await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        for (;;) {
          const cur = await t.store.get('PersistentVolume', undefined, 'pv-race');
          try {
            const u = await t.store.update({ ...cur, metadata: { ...cur.metadata, labels: { ...cur.metadata.labels, [`r${i}`]: 'y' } } });
            versions.push(BigInt(u.metadata.resourceVersion!));
            return;
          } catch (e) {
            if ((e as { code?: string }).code !== 'Conflict') throw e;
          }
        }
      }),
    );
    const labels = (await t.store.get('PersistentVolume', undefined, 'pv-race')).metadata.labels!;
    for (let i = 0; i < 20; i++) expect(labels[`r${i}`]).toBe('y');
    expect(new Set(versions).size).toBe(20);
  });
});

describe('delete and finalizers', () => {
  test('an object with finalizers gets a deletionTimestamp and stays until they are removed', async () => {
    const o = await t.store.create(pv('pv-fin', { finalizers: ['example.com/hold'] }));
    const r = await t.store.delete('PersistentVolume', undefined, 'pv-fin');
    expect(r.deleted).toBe(false);
    const held = await t.store.get('PersistentVolume', undefined, 'pv-fin');
    expect(held.metadata.deletionTimestamp).toBeTruthy();
    expect(held.metadata.uid).toBe(o.metadata.uid);
    const gone = await t.store.update({ ...held, metadata: { ...held.metadata, finalizers: [] } });
    expect(gone.metadata.finalizers).toEqual([]);
    expect(await t.store.tryGet('PersistentVolume', undefined, 'pv-fin')).toBeUndefined();
  });

  test('delete with a stale resourceVersion precondition is a Conflict and deletes nothing', async () => {
    const o = await t.store.create(pv('pv-del-pre'));
    await t.store.update({ ...o, metadata: { ...o.metadata, labels: { b: '1' } } });
    await expect(
      t.store.delete('PersistentVolume', undefined, 'pv-del-pre', { preconditions: { resourceVersion: o.metadata.resourceVersion } }),
    ).rejects.toMatchObject({ code: 'Conflict' });
    expect(await t.store.tryGet('PersistentVolume', undefined, 'pv-del-pre')).toBeDefined();
  });

  test('deleting what does not exist is NotFound', async () => {
    await expect(t.store.delete('PersistentVolume', undefined, 'nope')).rejects.toMatchObject({ code: 'NotFound' });
  });
});

describe('list', () => {
  test('label and field selectors, and pages with continue', async () => {
    for (let i = 0; i < 7; i++) await t.store.create(pv(`pv-list-${i}`, { labels: { set: 'list', parity: i % 2 ? 'odd' : 'even' } }));
    const odd = await t.store.list('PersistentVolume', { labelSelector: 'set=list,parity in (odd)' });
    expect(odd.items.map((o) => o.metadata.name)).toEqual(['pv-list-1', 'pv-list-3', 'pv-list-5']);
    const notEven = await t.store.list('PersistentVolume', { labelSelector: 'set=list,parity!=even' });
    expect(notEven.items).toHaveLength(3);
    const byName = await t.store.list('PersistentVolume', { fieldSelector: 'metadata.name=pv-list-4' });
    expect(byName.items.map((o) => o.metadata.name)).toEqual(['pv-list-4']);
    const names: string[] = [];
    let cont: string | undefined;
    let pages = 0;
    do {
      const page = await t.store.list('PersistentVolume', { labelSelector: 'set=list', limit: 3, continue: cont });
      names.push(...page.items.map((o) => o.metadata.name!));
      cont = page.continue;
      pages++;
    } while (cont);
    expect(pages).toBe(3);
    expect(names).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => `pv-list-${i}`));
  });

  test('a selector on a key alone (answered by the labels index) pages like any other', async () => {
    for (let i = 0; i < 5; i++) {
      const labels: Record<string, string> = { set: 'exists' };
      if (i % 2 === 0) labels['disks.example.com/node'] = `n${i}`;
      await t.store.create(pv(`pv-ex-${i}`, { labels }));
    }
    const names: string[] = [];
    let cont: string | undefined;
    do {
      const page = await t.store.list('PersistentVolume', { labelSelector: 'disks.example.com/node', limit: 2, continue: cont });
      names.push(...page.items.map((o) => o.metadata.name!));
      cont = page.continue;
    } while (cont);
    expect(names).toEqual(['pv-ex-0', 'pv-ex-2', 'pv-ex-4']);
    const without = await t.store.list('PersistentVolume', { labelSelector: 'set=exists,!disks.example.com/node' });
    expect(without.items.map((o) => o.metadata.name)).toEqual(['pv-ex-1', 'pv-ex-3']);
    // A key no object has, and one that only looks like SQL.
    expect((await t.store.list('PersistentVolume', { labelSelector: 'nothing.example.com/x' })).items).toEqual([]);
    expect((await t.store.list('PersistentVolume', { labelSelector: "a'b" }).catch((e) => e)).code).toBe('BadRequest');
  });

  test('a bad selector is a BadRequest', async () => {
    await expect(t.store.list('PersistentVolume', { labelSelector: 'a in (' })).rejects.toMatchObject({ code: 'BadRequest' });
    await expect(t.store.list('PersistentVolume', { fieldSelector: 'spec.nothing=1' })).rejects.toMatchObject({ code: 'BadRequest' });
  });
});

describe('watch', () => {
  test('delivers every change in order and resumes from a version', async () => {
    const start = (await t.store.currentResourceVersion()).toString();
    const ac = new AbortController();
    const it = t.store.watch({ kinds: ['PersistentVolume'], resourceVersion: start, signal: ac.signal, filter: (e) => e.name.startsWith('pv-w-') });
    const got = collect(it, 6, ac);
    const a = await t.store.create(pv('pv-w-a'));
    const a2 = await t.store.update({ ...a, metadata: { ...a.metadata, labels: { v: '2' } } });
    await t.store.create(pv('pv-w-b'));
    await t.store.delete('PersistentVolume', undefined, 'pv-w-a');
    await t.store.create(pv('pv-w-c'));
    await t.store.delete('PersistentVolume', undefined, 'pv-w-b');
    const events = await got;
    expect(events.map((e) => `${e.type} ${e.name}`)).toEqual([
      'ADDED pv-w-a',
      'MODIFIED pv-w-a',
      'ADDED pv-w-b',
      'DELETED pv-w-a',
      'ADDED pv-w-c',
      'DELETED pv-w-b',
    ]);
    const rvs = events.map((e) => e.rv);
    for (let i = 1; i < rvs.length; i++) expect(rvs[i]).toBeGreaterThan(rvs[i - 1]);
    expect(events[1].object.metadata.labels).toEqual({ v: '2' });
    expect(events[1].object.metadata.resourceVersion).toBe(a2.metadata.resourceVersion);

    // Resume after the second event: the rest, in order, from the log.
    const ac2 = new AbortController();
    const resumed = await collect(
      t.store.watch({ kinds: ['PersistentVolume'], resourceVersion: events[1].rv.toString(), signal: ac2.signal, filter: (e) => e.name.startsWith('pv-w-') }),
      4,
      ac2,
    );
    expect(resumed.map((e) => `${e.type} ${e.name}`)).toEqual(['ADDED pv-w-b', 'DELETED pv-w-a', 'ADDED pv-w-c', 'DELETED pv-w-b']);
  });

  test('a watch from a compacted version fails as Expired', async () => {
    const old = (await t.store.currentResourceVersion()).toString();
    await t.store.create(pv('pv-compact-1'));
    await t.store.create(pv('pv-compact-2'));
    await t.store.compact(0, 1);
    const ac = new AbortController();
    const it = t.store.watch({ resourceVersion: old, signal: ac.signal });
    await expect(it.next()).rejects.toMatchObject({ code: 'Expired' });
    ac.abort();
  });

  test('two store instances (two pools) see each other’s changes through watch', async () => {
    const other = new ObjectStore(t.url, 3);
    await other.start();
    try {
      const ac = new AbortController();
      const from = (await other.currentResourceVersion()).toString();
      const it = other.watch({ kinds: ['PersistentVolume'], resourceVersion: from, signal: ac.signal, filter: (e) => e.name === 'pv-cross' });
      const first = it.next();
      await t.store.create(pv('pv-cross'));
      const timer = setTimeout(() => ac.abort(), 10_000);
      const r = await first;
      clearTimeout(timer);
      ac.abort();
      expect(r.value?.type).toBe('ADDED');
      expect(r.value?.name).toBe('pv-cross');
    } finally {
      await other.stop();
    }
  });
});

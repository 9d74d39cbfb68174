// Paged lists while other transactions commit: every page of one list shows the state as
// of the list's resourceVersion (the state the change log replays to), so each object
// appears at most once and none from after that version; a continue token whose version
// was compacted away answers 410 Expired with a fresh token.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { KubeObject } from '../../server/resources/types';
import { openTestStore, rawQuery, type TestStore } from '../db';

let t: TestStore;
beforeAll(async () => {
  t = await openTestStore();
});
afterAll(async () => {
  await t?.close();
});

const pv = (name: string, grp: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name, labels: { grp } },
  spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/tmp/${name}` } },
});

/** name → resourceVersion of every PersistentVolume as of `rv`, replayed from the change log. */
async function stateAt(rv: string, grp?: string[]): Promise<Map<string, string>> {
  const rows = await rawQuery<{ rv: string; type: string; name: string; grp: string | null }>(
    t.url,
    `SELECT rv::text AS rv, type, name, object->'metadata'->'labels'->>'grp' AS grp FROM change_log
      WHERE kind = 'PersistentVolume' AND rv <= $1 ORDER BY change_log.rv`,
    [rv],
  );
  const state = new Map<string, string>();
  for (const r of rows) {
    if (r.type === 'DELETED' || (grp && !grp.includes(r.grp ?? ''))) state.delete(r.name);
    else state.set(r.name, r.rv);
  }
  return state;
}

async function listAll(opts: { labelSelector?: string }) {
  const items: KubeObject[] = [];
  let token: string | undefined;
  let rv: string | undefined;
  do {
    const page = await t.store.list('PersistentVolume', { ...opts, limit: 7, continue: token });
    rv ??= page.resourceVersion;
    expect(page.resourceVersion).toBe(rv);
    items.push(...page.items);
    token = page.continue;
  } while (token);
  return { items, rv: rv };
}

describe('paged lists under concurrent writes', () => {
  test('every page shows the state as of the list version: each object at most once, none from after it', async () => {
    for (let i = 0; i < 60; i++) await t.store.create(pv(`pl-${String(i).padStart(3, '0')}`, i % 2 ? 'x' : 'y'));
    let stop = false;
    let writes = 0;
    const writer = async (w: number) => {
      let i = 0;
      while (!stop) {
        const name = `pl-${String((i++ * 7 + w * 13) % 90).padStart(3, '0')}`;
        try {
          const cur = await t.store.tryGet('PersistentVolume', undefined, name);
          if (!cur) await t.store.create(pv(name, w % 2 ? 'x' : 'z'));
          else if (i % 3 === 0) await t.store.delete('PersistentVolume', undefined, name);
          else await t.store.update({ ...cur, metadata: { ...cur.metadata, labels: { grp: ['x', 'y', 'z'][i % 3] } } });
          writes++;
        } catch {
          // Conflicts and races between the writers are expected; the lists are under test.
        }
      }
    };
    const writers = [0, 1, 2, 3].map(writer);
    try {
      for (let round = 0; round < 6; round++) {
        const selector = round % 2 ? 'grp in (x,y)' : undefined;
        const { items, rv } = await listAll({ labelSelector: selector });
        const names = items.map((o) => o.metadata.name!);
        expect(new Set(names).size).toBe(names.length);
        for (const o of items) expect(BigInt(o.metadata.resourceVersion!)).toBeLessThanOrEqual(BigInt(rv));
        const expected = await stateAt(rv, selector ? ['x', 'y'] : undefined);
        expect(Object.fromEntries(items.map((o) => [o.metadata.name!, o.metadata.resourceVersion!]))).toEqual(Object.fromEntries(expected));
      }
    } finally {
      stop = true;
      await Promise.all(writers);
    }
    expect(writes).toBeGreaterThan(0);
  });

  test('a continue token whose version was compacted answers Expired with a fresh token', async () => {
    const first = await t.store.list('PersistentVolume', { limit: 5 });
    expect(first.continue).toBeDefined();
    const cur = await t.store.get('PersistentVolume', undefined, first.items[0].metadata.name!);
    await t.store.update({ ...cur, metadata: { ...cur.metadata, labels: { grp: 'compacted' } } });
    await t.store.compact(0, 0);
    const err = await t.store.list('PersistentVolume', { limit: 5, continue: first.continue }).catch((e) => e);
    expect(err).toMatchObject({ code: 'Expired' });
    const fresh = err.details.continue as string;
    const next = await t.store.list('PersistentVolume', { limit: 5, continue: fresh });
    expect(next.items.length).toBeGreaterThan(0);
    expect(next.items.map((o) => o.metadata.name! > first.items.at(-1)!.metadata.name!)).not.toContain(false);
  });
});

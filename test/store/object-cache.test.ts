// The controllers' in-memory objects (ObjectStore.keepInMemory / recent): answered from
// memory once listed, as fresh as a read of the database for the caller (its own writes at
// once; another process's once this process's feed has read them), copies handed out, and
// a read of the database for kinds not kept or once stopped.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ObjectStore } from '../../server/store/object-store';
import { MISS, ObjectCache } from '../../server/store/object-cache';
import type { KubeObject } from '../../server/resources/types';
import type { PersistentVolume } from '../../server/resources/persistent-volume/schema';
import { claimRefKeys } from '../../server/domain/claim-ref';
import { openTestStore, rawQuery, type TestStore } from '../db';

let t: TestStore;
let other: ObjectStore;
let forget: () => Promise<void>;

const claim = (name: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { namespace: 'ns-c', name, labels },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
});

beforeAll(async () => {
  t = await openTestStore();
  await t.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns-c' } });
  await t.store.create(claim('before'));
  await t.store.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'ns-c', name: 'cm' }, data: { a: '1' } });
  forget = await t.store.keepInMemory(
    { PersistentVolumeClaim: true, StorageClass: true, PersistentVolume: (o) => Boolean((o as { spec?: { claimRef?: unknown } }).spec?.claimRef) },
    // Volumes by the claim they name, and (for the unsure case) by a "group" label any volume may have.
    { indexes: { PersistentVolume: (o) => [...claimRefKeys(o as PersistentVolume), ...(o.metadata.labels?.group ? [`group:${o.metadata.labels.group}`] : [])] } },
  );
  // A second store on the same database: another process.
  other = new ObjectStore(t.url, 2);
  await other.start();
});

afterAll(async () => {
  await forget?.();
  await other?.stop();
  await t?.close();
});

/** Removes a row behind the store's back (no change log): only memory still has it. */
const dropRow = (kind: string, name: string) => rawQuery(t.url, 'DELETE FROM objects WHERE kind = $1 AND namespace = $2 AND name = $3', [kind, 'ns-c', name]);

describe('kept kinds', () => {
  it('answers from memory what was there when it listed', async () => {
    await t.store.create(claim('listed-then-dropped'));
    await vi.waitFor(async () => expect(await t.store.recent('PersistentVolumeClaim', 'ns-c', 'listed-then-dropped')).toBeDefined(), { timeout: 5_000 });
    await dropRow('PersistentVolumeClaim', 'listed-then-dropped');
    expect(await t.store.tryGet('PersistentVolumeClaim', 'ns-c', 'listed-then-dropped')).toBeUndefined();
    expect((await t.store.recent('PersistentVolumeClaim', 'ns-c', 'listed-then-dropped'))?.metadata.name).toBe('listed-then-dropped');
    expect((await t.store.recent('PersistentVolumeClaim', 'ns-c', 'before'))?.metadata.name).toBe('before');
  });

  it("sees this process's own writes at once, deletions included", async () => {
    const created = await t.store.create(claim('own'));
    expect((await t.store.recent('PersistentVolumeClaim', 'ns-c', 'own'))?.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    const updated = await t.store.update({ ...created, metadata: { ...created.metadata, labels: { step: 'two' } } });
    const read = await t.store.recent('PersistentVolumeClaim', 'ns-c', 'own');
    expect(read?.metadata.labels).toEqual({ step: 'two' });
    expect(read?.metadata.resourceVersion).toBe(updated.metadata.resourceVersion);
    await t.store.delete('PersistentVolumeClaim', 'ns-c', 'own');
    expect(await t.store.recent('PersistentVolumeClaim', 'ns-c', 'own')).toBeUndefined();
  });

  it("sees another process's write once this process's feed has read it", async () => {
    const theirs = await other.create(claim('theirs', { by: 'other' }));
    await vi.waitFor(() => expect(t.store.feed.currentHead).toBeGreaterThanOrEqual(BigInt(theirs.metadata.resourceVersion!)), { timeout: 5_000 });
    expect((await t.store.recent('PersistentVolumeClaim', 'ns-c', 'theirs'))?.metadata.labels).toEqual({ by: 'other' });
  });

  it('hands out copies: changing what it gave changes nothing kept', async () => {
    const a = await t.store.recent('PersistentVolumeClaim', 'ns-c', 'before');
    a!.metadata.labels = { changed: 'yes' };
    expect((await t.store.recent('PersistentVolumeClaim', 'ns-c', 'before'))?.metadata.labels).toEqual({});
  });

  it('a cluster-scoped kind by name; a name with NUL is nothing', async () => {
    await t.store.create({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'kept-class' }, provisioner: 'example.com/x' });
    expect((await t.store.recent('StorageClass', undefined, 'kept-class'))?.metadata.name).toBe('kept-class');
    expect(await t.store.recent('StorageClass', undefined, 'kept\u0000class')).toBeUndefined();
  });
});

describe('a kind kept in part', () => {
  const volume = (name: string, claimRef?: { namespace: string; name: string }) => ({
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name },
    spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/tmp/${name}` }, ...(claimRef ? { claimRef } : {}) },
  });
  const dropVolume = (name: string) => rawQuery(t.url, `DELETE FROM objects WHERE kind = 'PersistentVolume' AND name = $1`, [name]);

  it('keeps whole the objects it keeps; of the others it reads the database, and knows what does not exist', async () => {
    const claimed = await t.store.create(volume('pv-claimed', { namespace: 'ns-c', name: 'before' }));
    const free = await t.store.create(volume('pv-free'));
    await dropVolume('pv-claimed');
    await dropVolume('pv-free');
    expect((await t.store.recent('PersistentVolume', undefined, 'pv-claimed'))?.metadata.uid).toBe(claimed.metadata.uid);
    expect(free.metadata.uid).toBeDefined();
    expect(await t.store.recent('PersistentVolume', undefined, 'pv-free')).toBeUndefined(); // read from the database, where it is gone
    expect(await t.store.recent('PersistentVolume', undefined, 'pv-never')).toBeUndefined();
  });

  it('an object that stops being kept is read from the database, and one that starts is kept', async () => {
    const v = (await t.store.create(volume('pv-changing', { namespace: 'ns-c', name: 'x' }))) as PersistentVolume;
    const freed = await t.store.update({ ...v, spec: { ...v.spec, claimRef: undefined } });
    expect((await t.store.recent('PersistentVolume', undefined, 'pv-changing'))?.metadata.resourceVersion).toBe(freed.metadata.resourceVersion);
    await dropVolume('pv-changing');
    expect(await t.store.recent('PersistentVolume', undefined, 'pv-changing')).toBeUndefined();
    const w = (await t.store.create(volume('pv-taken'))) as PersistentVolume;
    const taken = await t.store.update({ ...w, spec: { ...w.spec, claimRef: { namespace: 'ns-c', name: 'y' } } });
    await dropVolume('pv-taken');
    expect((await t.store.recent('PersistentVolume', undefined, 'pv-taken'))?.metadata.resourceVersion).toBe(taken.metadata.resourceVersion);
  });
});

describe('found by an index', () => {
  const volume = (name: string, claimRef?: { namespace: string; name: string }, labels?: Record<string, string>) => ({
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name, ...(labels ? { labels } : {}) },
    spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/tmp/${name}` }, ...(claimRef ? { claimRef } : {}) },
  });

  it('finds the volumes reserved for a claim, in name order, and follows them as they change', async () => {
    expect(await t.store.recentByIndex('PersistentVolume', 'ns-c/idx-claim')).toEqual([]);
    await t.store.create(volume('idx-b', { namespace: 'ns-c', name: 'idx-claim' }));
    const a = (await t.store.create(volume('idx-a', { namespace: 'ns-c', name: 'idx-claim' }))) as PersistentVolume;
    await t.store.create(volume('idx-other', { namespace: 'ns-c', name: 'idx-else' }));
    expect((await t.store.recentByIndex('PersistentVolume', 'ns-c/idx-claim'))?.map((v) => v.metadata.name)).toEqual(['idx-a', 'idx-b']);
    // Moved to another claim, then deleted: found under the new key only, then nowhere.
    await t.store.update({ ...a, spec: { ...a.spec, claimRef: { namespace: 'ns-c', name: 'idx-else' } } });
    expect((await t.store.recentByIndex('PersistentVolume', 'ns-c/idx-claim'))?.map((v) => v.metadata.name)).toEqual(['idx-b']);
    expect((await t.store.recentByIndex('PersistentVolume', 'ns-c/idx-else'))?.map((v) => v.metadata.name)).toEqual(['idx-a', 'idx-other']);
    await t.store.delete('PersistentVolume', undefined, 'idx-b');
    expect(await t.store.recentByIndex('PersistentVolume', 'ns-c/idx-claim')).toEqual([]);
  });

  it("finds another process's volume once this process's feed has read it; hands out copies", async () => {
    const theirs = await other.create(volume('idx-theirs', { namespace: 'ns-c', name: 'idx-theirs-claim' }));
    await vi.waitFor(() => expect(t.store.feed.currentHead).toBeGreaterThanOrEqual(BigInt(theirs.metadata.resourceVersion!)), { timeout: 5_000 });
    const [found] = (await t.store.recentByIndex('PersistentVolume', 'ns-c/idx-theirs-claim'))!;
    expect(found.metadata.uid).toBe(theirs.metadata.uid);
    found.metadata.labels = { changed: 'yes' };
    expect((await t.store.recentByIndex('PersistentVolume', 'ns-c/idx-theirs-claim'))![0].metadata.labels).toBeUndefined();
  });

  it('a key an object not kept whole has is unsure: finding by it says it cannot (undefined)', async () => {
    await t.store.create(volume('idx-kept', { namespace: 'ns-c', name: 'g' }, { group: 'g1' }));
    expect((await t.store.recentByIndex('PersistentVolume', 'group:g1'))?.map((v) => v.metadata.name)).toEqual(['idx-kept']);
    await t.store.create(volume('idx-free', undefined, { group: 'g1' })); // not kept: no claimRef
    expect(await t.store.recentByIndex('PersistentVolume', 'group:g1')).toBeUndefined();
    expect(await t.store.recentByIndex('PersistentVolume', 'ns-c/g')).toEqual([expect.objectContaining({ metadata: expect.objectContaining({ name: 'idx-kept' }) })]);
  });

  it('a kind without an index cannot be found so', async () => {
    expect(await t.store.recentByIndex('PersistentVolumeClaim', 'ns-c/before')).toBeUndefined();
  });
});

describe('every object of a kind (recentAll)', () => {
  const sc = (name: string) => ({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name }, provisioner: 'example.com/x' });
  const volume = (name: string) => ({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/tmp/${name}` } } });

  it('a kind kept whole: from memory, in name order, own writes and deletions at once, copies handed out', async () => {
    await t.store.create(sc('all-b'));
    await t.store.create(sc('all-a'));
    const names = async () => (await t.store.recentAll('StorageClass')).map((c) => c.metadata.name).filter((n) => n?.startsWith('all-'));
    expect(await names()).toEqual(['all-a', 'all-b']);
    // Gone from the table behind the store's back: memory still has it, so memory answered.
    await rawQuery(t.url, "DELETE FROM objects WHERE kind = 'StorageClass' AND name = 'all-b'");
    expect(await names()).toEqual(['all-a', 'all-b']);
    await t.store.delete('StorageClass', undefined, 'all-a');
    expect(await names()).toEqual(['all-b']);
    const [first] = (await t.store.recentAll('StorageClass')).filter((c) => c.metadata.name === 'all-b');
    first.provisioner = 'changed';
    expect((await t.store.recentAll('StorageClass')).find((c) => c.metadata.name === 'all-b')?.provisioner).toBe('example.com/x');
  });

  it("another process's class once this process's feed has read it", async () => {
    await other.create(sc('all-other'));
    await vi.waitFor(async () => expect((await t.store.recentAll('StorageClass')).map((c) => c.metadata.name)).toContain('all-other'), { timeout: 5_000 });
  });

  it('a kind kept in part, or not kept, is read from the database', async () => {
    await t.store.create(volume('all-free')); // not kept whole: no claimRef
    expect((await t.store.recentAll('PersistentVolume')).map((v) => v.metadata.name)).toContain('all-free');
    expect((await t.store.recentAll('ConfigMap')).map((c) => c.metadata.name)).toContain('cm');
  });
});

describe('not kept', () => {
  it('a kind not kept is read from the database', async () => {
    await rawQuery(t.url, `UPDATE objects SET object = jsonb_set(object::jsonb, '{data,a}', '"2"')::json WHERE kind = 'ConfigMap' AND name = 'cm'`);
    expect((await t.store.recent('ConfigMap', 'ns-c', 'cm'))?.data).toEqual({ a: '2' });
  });

  it('once stopped, every read is a read of the database', async () => {
    await t.store.create(claim('dropped-after-stop'));
    await forget();
    await dropRow('PersistentVolumeClaim', 'dropped-after-stop');
    expect(await t.store.recent('PersistentVolumeClaim', 'ns-c', 'dropped-after-stop')).toBeUndefined();
  });
});

describe('at most so many kept whole (limits), listed in pages', () => {
  // A database and a cache of their own: claims at most 2 whole, volumes at most 1, lists of 2 a page.
  let u: TestStore;
  let stop: () => Promise<void>;
  const NS = 'ns-l';
  const pvc = (name: string) => ({ ...claim(name), metadata: { namespace: NS, name } });
  const pv = (name: string, claimName: string) => ({
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name },
    spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/tmp/${name}` }, claimRef: { namespace: NS, name: claimName } },
  });
  const drop = (kind: string, namespace: string, name: string) => rawQuery(u.url, 'DELETE FROM objects WHERE kind = $1 AND namespace = $2 AND name = $3', [kind, namespace, name]);
  const fromMemory = async (name: string) => (await u.store.recent('PersistentVolumeClaim', NS, name))?.metadata.name;
  /** A cache of its own on this database: at most one claim and one volume whole, volumes found by claim; `onList` sees each page asked for. */
  const oneWhole = (o: { namesKept: number; listPage?: number }, onList?: (kind: string) => void) =>
    new ObjectCache(
      {
        feed: u.store.feed,
        get lastCommitted() {
          return u.store.lastCommitted;
        },
        list: (kind, page) => {
          onList?.(kind);
          return u.store.list(kind, page);
        },
      },
      new Map([['PersistentVolumeClaim', true as const], ['PersistentVolume', true as const]]),
      { indexes: new Map([['PersistentVolume', (v: KubeObject) => claimRefKeys(v as PersistentVolume)]]), limits: new Map([['PersistentVolumeClaim', 1], ['PersistentVolume', 1]]), ...o },
    );
  /** Starts a cache, checks it, stops it. */
  const running = async (c: ObjectCache, check: (c: ObjectCache) => Promise<void>) => {
    await c.start();
    try {
      await check(c);
    } finally {
      await c.stop();
    }
  };

  beforeAll(async () => {
    u = await openTestStore();
    await u.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    for (const n of ['l-1', 'l-2', 'l-3', 'l-4', 'l-5']) await u.store.create(pvc(n));
    await u.store.create(pv('lv-x', 'x'));
    await u.store.create(pv('lv-y', 'y'));
    stop = await u.store.keepInMemory(
      { PersistentVolumeClaim: true, PersistentVolume: true },
      { indexes: { PersistentVolume: (o) => claimRefKeys(o as PersistentVolume) }, limits: { PersistentVolumeClaim: 2, PersistentVolume: 1 }, listPage: 2 },
    );
  });
  afterAll(async () => {
    await stop?.();
    await u?.close();
  });

  it('keeps the most recently read or changed whole, the others by name, and every page of the first list', async () => {
    // Listed in name order over three pages: the last two whole. Reading l-4 makes it the most recent.
    expect(await fromMemory('l-4')).toBe('l-4');
    // A change brings l-1 back whole and puts l-5, now the least recently used, out.
    const l1 = await u.store.get('PersistentVolumeClaim', NS, 'l-1');
    await u.store.update({ ...l1, metadata: { ...l1.metadata, labels: { back: 'yes' } } });
    await vi.waitFor(async () => expect((await u.store.recent('PersistentVolumeClaim', NS, 'l-1'))?.metadata.labels).toEqual({ back: 'yes' }), { timeout: 5_000 });
    for (const n of ['l-1', 'l-2', 'l-3', 'l-4', 'l-5']) await drop('PersistentVolumeClaim', NS, n);
    // Whole: answered from memory though the rows are gone. By name only: read from the database.
    expect(await fromMemory('l-1')).toBe('l-1');
    expect(await fromMemory('l-4')).toBe('l-4');
    for (const n of ['l-2', 'l-3', 'l-5']) expect(await fromMemory(n)).toBeUndefined();
    // Not every claim is in memory, so all of them is the database's answer.
    expect(await u.store.recentAll('PersistentVolumeClaim')).toEqual([]);
  });

  it("finds by an index only what it keeps whole: a key of an object kept by name is the database's to answer", async () => {
    expect((await u.store.recentByIndex('PersistentVolume', `${NS}/y`))?.map((v) => v.metadata.name)).toEqual(['lv-y']);
    expect(await u.store.recentByIndex('PersistentVolume', `${NS}/x`)).toBeUndefined();
    expect(await u.store.recentByIndex('PersistentVolume', `${NS}/nobody`)).toEqual([]);
  });

  it('remembers at most namesKept names and unsure keys per kind: past it, any object or key it does not keep whole is a miss', async () => {
    const cache = (namesKept: number) => oneWhole({ namesKept });
    for (const n of ['n-1', 'n-2', 'n-3']) await u.store.create(pvc(n));
    const claims = (await u.store.list('PersistentVolumeClaim')).items.length;
    expect(claims).toBe(3);
    // Room for every name: a name it does not know is no object (undefined), one it knows is the database's to read.
    await running(cache(claims), async (roomy) => {
      expect(await roomy.get('PersistentVolumeClaim', NS, 'nobody')).toBeUndefined();
      expect(await roomy.get('PersistentVolumeClaim', NS, 'n-1')).toBe(MISS);
      expect(await roomy.get('PersistentVolumeClaim', NS, 'n-3')).toMatchObject({ metadata: { name: 'n-3' } });
      expect(await roomy.find('PersistentVolume', `${NS}/nobody`)).toEqual([]);
    });
    // One name at most: the claims' two names and the volumes' unsure keys are forgotten, so it cannot say.
    await running(cache(1), async (tight) => {
      expect(await tight.get('PersistentVolumeClaim', NS, 'nobody')).toBe(MISS);
      expect(await tight.get('PersistentVolumeClaim', NS, 'n-1')).toBe(MISS);
      expect(await tight.get('PersistentVolumeClaim', NS, 'n-3')).toMatchObject({ metadata: { name: 'n-3' } });
      expect(await tight.all('PersistentVolumeClaim')).toBe(MISS);
      // One volume is past the limit of one: one unsure key, not past one, so a key nobody has is still sure.
      expect(await tight.find('PersistentVolume', `${NS}/nobody`)).toEqual([]);
    });
    await running(cache(0), async (tighter) => expect(await tighter.find('PersistentVolume', `${NS}/nobody`)).toBe(MISS));
  });

  it('a first list stops once its kind forgets names: the objects after it are the database\'s to answer, their index keys too', async () => {
    let claimPages = 0;
    const counting = (kind: string) => void (kind === 'PersistentVolumeClaim' && claimPages++);
    await running(oneWhole({ namesKept: 0, listPage: 1 }, counting), async (cache) => {
      const all = (await u.store.list('PersistentVolumeClaim')).items.length;
      expect(all).toBeGreaterThan(2);
      // The second page puts the first claim out by name, past zero names: no third page.
      expect(claimPages).toBe(2);
      const last = (await u.store.list('PersistentVolumeClaim')).items[all - 1].metadata.name!;
      expect(await cache.get('PersistentVolumeClaim', NS, last)).toBe(MISS);
      expect(await cache.get('PersistentVolumeClaim', NS, 'nobody')).toBe(MISS);
      // Volumes: lv-x listed whole, then put out by lv-y: unsure, and nothing after it was read.
      expect(await cache.find('PersistentVolume', `${NS}/nobody`)).toBe(MISS);
    });
  });

  it('a first list whose version is compacted away between its pages starts over, and keeps nothing it listed before', async () => {
    for (const n of ['m-1', 'm-2', 'm-3', 'm-4', 'm-5']) await u.store.create(pvc(n));
    let pages = 0;
    let compacted = false;
    const source = {
      get feed() {
        return u.store.feed;
      },
      get lastCommitted() {
        return u.store.lastCommitted;
      },
      list: async (kind: string, page: { limit: number; continue?: string }) => {
        if (kind === 'PersistentVolumeClaim') pages++;
        if (kind === 'PersistentVolumeClaim' && page.continue && !compacted) {
          // Between the first page and the second: a claim of the first page goes, one is
          // added, and compaction passes the list's version.
          compacted = true;
          await u.store.delete('PersistentVolumeClaim', NS, 'm-1');
          await u.store.create(pvc('m-0'));
          await u.store.compact(0, 0);
        }
        return u.store.list(kind, page);
      },
    };
    const cache = new ObjectCache(source, new Map([['PersistentVolumeClaim', true as const]]), { listPage: 2 });
    await cache.start();
    try {
      expect(compacted).toBe(true);
      expect(pages).toBeGreaterThan(2);
      expect(await cache.get('PersistentVolumeClaim', NS, 'm-1')).toBeUndefined();
      expect((await cache.get('PersistentVolumeClaim', NS, 'm-0')) as KubeObject | undefined).toMatchObject({ metadata: { name: 'm-0' } });
      expect((await cache.all('PersistentVolumeClaim')) as KubeObject[]).toHaveLength((await u.store.list('PersistentVolumeClaim')).items.length);
    } finally {
      await cache.stop();
    }
  });
});

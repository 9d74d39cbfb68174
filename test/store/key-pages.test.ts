// keyPages: a kind's keys a page at a time (a controller's first pass and resync), in
// namespace and name order, each page after the last key of the one before, filtered by
// phase or by what a starting binder must look at.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { keyPages, type KeyFilter } from '../../server/store/volume-queries';
import { openTestStore, rawQuery, type TestStore } from '../db';

let t: TestStore;
beforeAll(async () => {
  t = await openTestStore();
  for (const ns of ['kp-a', 'kp-b']) await t.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  // Names that sort differently as text and as numbers, over two namespaces.
  for (const [ns, name] of [['kp-b', 'c-1'], ['kp-a', 'c-10'], ['kp-a', 'c-2'], ['kp-b', 'c-0'], ['kp-a', 'c-1']]) {
    await t.store.create({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { namespace: ns, name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } });
  }
  for (const name of ['v-avail', 'v-claimed', 'v-released']) {
    await t.store.create({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/tmp/${name}` }, ...(name === 'v-claimed' ? { claimRef: { namespace: 'kp-a', name: 'c-1' } } : {}) } });
  }
  // Phases as the volume controller would set them (the columns are what keyPages filters on).
  await rawQuery(t.url, "UPDATE objects SET phase = CASE name WHEN 'v-released' THEN 'Released' ELSE 'Available' END WHERE kind = 'PersistentVolume'");
  await rawQuery(t.url, "UPDATE objects SET phase = CASE WHEN name IN ('c-1', 'c-2') THEN 'Bound' ELSE 'Pending' END WHERE kind = 'PersistentVolumeClaim'");
});
afterAll(async () => {
  await t?.close();
});

async function pages(kind: string, filter: KeyFilter, size: number): Promise<string[][]> {
  const out: string[][] = [];
  for await (const page of keyPages(t.store, kind, filter, size)) out.push(page.map((r) => `${r.namespace}/${r.name}`));
  return out;
}

describe('keyPages', () => {
  test('every key once, in namespace and name order, pages of the size asked for', async () => {
    expect(await pages('PersistentVolumeClaim', {}, 2)).toEqual([
      ['kp-a/c-1', 'kp-a/c-10'],
      ['kp-a/c-2', 'kp-b/c-0'],
      ['kp-b/c-1'],
    ]);
    // A last page that is full: one more (empty) read ends the list, no empty page is given.
    expect(await pages('PersistentVolumeClaim', {}, 5)).toEqual([['kp-a/c-1', 'kp-a/c-10', 'kp-a/c-2', 'kp-b/c-0', 'kp-b/c-1']]);
  });

  test('filtered by phase, and the volumes a starting binder looks at', async () => {
    expect((await pages('PersistentVolumeClaim', { phases: ['Bound'] }, 1)).flat()).toEqual(['kp-a/c-1', 'kp-a/c-2', 'kp-b/c-1']);
    expect((await pages('PersistentVolumeClaim', { phases: ['Pending', 'Lost'] }, 10)).flat()).toEqual(['kp-a/c-10', 'kp-b/c-0']);
    // Available and unclaimed: nothing to do for it; claimed or not Available: looked at.
    expect((await pages('PersistentVolume', { toSync: true }, 1)).flat()).toEqual(['/v-claimed', '/v-released']);
  });

  test('a kind with no objects: no page', async () => {
    expect(await pages('Pod', {}, 3)).toEqual([]);
  });

  test('reads a page only when asked for it: keys created after a page was read show up in a later one', async () => {
    const it = keyPages(t.store, 'PersistentVolumeClaim', {}, 2)[Symbol.asyncIterator]();
    expect((await it.next()).value?.map((r: { name: string }) => r.name)).toEqual(['c-1', 'c-10']);
    await t.store.create({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { namespace: 'kp-b', name: 'c-9' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } });
    const rest: string[] = [];
    for (let r = await it.next(); !r.done; r = await it.next()) rest.push(...r.value.map((k: { name: string }) => k.name));
    expect(rest).toEqual(['c-2', 'c-0', 'c-1', 'c-9']);
  });
});

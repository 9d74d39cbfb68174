// The garbage collector's start-up scan: every object naming owners, with their uids, read a
// bounded number of rows per statement (a million objects must not make one statement that
// outlasts the statement timeout), whatever the page size.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ownedObjects } from '../../server/store/owner-queries';
import { openTestStore, rawQuery, type TestStore } from '../db';

let t: TestStore;
beforeAll(async () => {
  t = await openTestStore();
  await t.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'own' } });
  const cm = (name: string, ownerReferences?: unknown[]) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'own', name, ...(ownerReferences ? { ownerReferences } : {}) }, data: {} });
  const ref = (uid: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: `owner-${uid}`, uid });
  await t.store.create(cm('a-free'));
  await t.store.create(cm('b-one', [ref('u1')]));
  await t.store.create(cm('c-free'));
  await t.store.create(cm('d-two', [ref('u2'), ref('u3')]));
  await t.store.create(cm('e-empty', []));
  await t.store.create(cm('f-one', [ref('u4')]));
});
afterAll(async () => {
  await t?.close();
});

describe('ownedObjects', () => {
  test('the same objects and owners whatever number of rows each statement reads', async () => {
    const mine = (xs: { namespace: string; name: string; owners: string[] }[]) => xs.filter((x) => x.namespace === 'own').map((x) => `${x.name}:${x.owners.join(',')}`);
    const want = ['b-one:u1', 'd-two:u2,u3', 'f-one:u4'];
    const total = Number((await rawQuery<{ n: string }>(t.url, 'SELECT count(*) AS n FROM objects'))[0].n);
    for (const page of [1, 2, 3, 5, total, total + 1, 10_000]) expect(mine(await ownedObjects(t.store, page)), `page ${page}`).toEqual(want);
  });
});

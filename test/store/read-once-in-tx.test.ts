// A store transaction reads a row once: an update after the caller's own get of the same
// object (a pod's status report, for one) takes the row it already holds locked instead of
// reading it again. What the caller got is its own copy: changing it changes neither the
// update's view of the stored object nor what a later get answers.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { countStatements, openTestStore, type TestStore } from '../db';

let t: TestStore;
beforeAll(async () => {
  t = await openTestStore();
  await t.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps' } });
  await t.store.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'apps' }, data: { a: '1' } });
});
afterAll(async () => t?.close());

test('get, change, update: one read of the row, and the update applies', async () => {
  const { statements, again } = await t.store.transact(async (tx) => {
    const count = countStatements(tx);
    const cm = await tx.get('ConfigMap', 'apps', 'cm');
    cm!.data = { a: '2' };
    await tx.update(cm!);
    // A later get in the same transaction answers the row as committed (the update applies at commit), unchanged by the caller's copy.
    const again = await tx.get('ConfigMap', 'apps', 'cm');
    return { statements: count.n, again };
  });
  expect(statements).toBe(1);
  expect(again?.data).toEqual({ a: '1' });
  expect((await t.store.get('ConfigMap', 'apps', 'cm')).data).toEqual({ a: '2' });
});

test('an object that is not there is asked for again (a create in between may have made it)', async () => {
  const statements = await t.store.transact(async (tx) => {
    const count = countStatements(tx);
    expect(await tx.get('ConfigMap', 'apps', 'absent')).toBeUndefined();
    expect(await tx.get('ConfigMap', 'apps', 'absent')).toBeUndefined();
    return count.n;
  });
  expect(statements).toBe(2);
});

test('a stale update is still refused: the remembered row is the committed one', async () => {
  const before = await t.store.get('ConfigMap', 'apps', 'cm');
  await t.store.update({ ...before, data: { a: '3' } });
  await expect(
    t.store.transact(async (tx) => {
      await tx.get('ConfigMap', 'apps', 'cm');
      await tx.update({ ...before, data: { a: 'stale' } });
    }),
  ).rejects.toMatchObject({ code: 'Conflict' });
  expect((await t.store.get('ConfigMap', 'apps', 'cm')).data).toEqual({ a: '3' });
});

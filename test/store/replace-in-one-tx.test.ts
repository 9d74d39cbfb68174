// A name deleted and created again in one store transaction (a StorageClass replaced in
// place): the new object takes the name at commit, dry run included; the change log and
// history have both changes in order; a create of a name that was not deleted, or is
// deleted only after the create, is still AlreadyExists.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { KubeObject } from '../../server/resources/types';
import { openTestStore, type TestStore } from '../db';
import { sqlOf } from '../../server/store/sql-handle';

let t: TestStore;
beforeAll(async () => {
  t = await openTestStore();
});
afterAll(async () => t?.close());

const sc = (name: string, provisioner: string): KubeObject => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'StorageClass',
  metadata: { name },
  provisioner,
  volumeBindingMode: 'Immediate',
});

describe('delete and create of the same name in one transaction', () => {
  test('commits: the new object (new uid) holds the name; history has the delete then the create', async () => {
    const old = await t.store.create(sc('fast', 'example.com/old'));
    const made = await t.store.transact(async (tx) => {
      await tx.delete('StorageClass', undefined, 'fast');
      return tx.create(sc('fast', 'example.com/new'));
    });
    const now = await t.store.get('StorageClass', undefined, 'fast');
    expect(now.provisioner).toBe('example.com/new');
    expect(now.metadata.uid).toBe(made.metadata.uid);
    expect(now.metadata.uid).not.toBe(old.metadata.uid);
    expect(BigInt(now.metadata.resourceVersion!)).toBeGreaterThan(BigInt(old.metadata.resourceVersion!));
    const rows = await sqlOf(t.store).$queryRawUnsafe<{ action: string; uid: string }[]>(
      `SELECT action, uid FROM history WHERE kind = 'StorageClass' AND name = 'fast' ORDER BY rv`,
    );
    expect(rows).toEqual([
      { action: 'create', uid: old.metadata.uid },
      { action: 'delete', uid: old.metadata.uid },
      { action: 'create', uid: made.metadata.uid },
    ]);
  });

  test('a dry run of it passes, and writes nothing', async () => {
    const old = await t.store.create(sc('dry', 'example.com/old'));
    await t.store.transact(
      async (tx) => {
        await tx.delete('StorageClass', undefined, 'dry');
        await tx.create(sc('dry', 'example.com/new'));
      },
      { dryRun: true },
    );
    expect(await t.store.get('StorageClass', undefined, 'dry')).toEqual(old);
  });

  test('a create of a name that exists and was not deleted is still AlreadyExists, in a dry run too, and writes nothing', async () => {
    const old = await t.store.create(sc('kept', 'example.com/old'));
    for (const dryRun of [false, true]) {
      await expect(
        t.store.transact(async (tx) => {
          await tx.delete('StorageClass', undefined, 'other-name').catch(() => undefined);
          await tx.create(sc('kept', 'example.com/new'));
        }, { dryRun }),
      ).rejects.toMatchObject({ code: 'AlreadyExists' });
    }
    expect(await t.store.get('StorageClass', undefined, 'kept')).toEqual(old);
  });

  test('a create of a name the transaction deletes only afterwards is AlreadyExists (the name was held), in a dry run too', async () => {
    const old = await t.store.create(sc('later', 'example.com/old'));
    const before = await t.store.currentResourceVersion();
    for (const dryRun of [false, true]) {
      await expect(
        t.store.transact(async (tx) => {
          await tx.create(sc('later', 'example.com/new'));
          await tx.delete('StorageClass', undefined, 'later');
        }, { dryRun }),
      ).rejects.toMatchObject({ code: 'AlreadyExists' });
    }
    expect(await t.store.get('StorageClass', undefined, 'later')).toEqual(old);
    expect(await t.store.currentResourceVersion()).toBe(before);
  });
});

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openTestStore, type TestStore } from '../../test/db';
import { AssetGoneError, AssetStore } from './provisioned-assets';
import { sqlOf } from './sql-handle';

let ts: TestStore;
let assets: AssetStore;

beforeAll(async () => {
  ts = await openTestStore();
  assets = new AssetStore(ts.store);
});
afterAll(async () => ts.close());
beforeEach(async () => {
  await sqlOf(ts.store).$executeRawUnsafe("DELETE FROM provisioned_assets");
});

const input = { plugin: 'stowage.io/host-path', pvName: 'pvc-1', claimUid: 'u1', claim: 'ns/c', node: 'n1', details: { path: '/d/pvc-1' } };

describe('intent records', () => {
  it('begin records the intent once; a second begin returns the first record', async () => {
    const a = await assets.begin(input);
    expect(a).toMatchObject({ existed: false, record: { id: 'stowage.io/host-path:pvc-1', state: 'creating', details: { path: '/d/pvc-1', claim: 'ns/c' } } });
    const b = await assets.begin({ ...input, details: { path: '/other' } });
    expect(b).toMatchObject({ existed: true, record: { details: { path: '/d/pvc-1' } } });
    expect(await assets.count()).toBe(1);
  });

  it('moves creating -> created -> deleting and merges details', async () => {
    const { record } = await assets.begin(input);
    const created = await assets.markCreated(record, { device: '/dev/loop3' });
    expect(created).toMatchObject({ state: 'created', details: { path: '/d/pvc-1', device: '/dev/loop3' } });
    const deleting = await assets.markDeleting(created);
    expect(deleting.state).toBe('deleting');
    await expect(assets.markCreated(deleting)).rejects.toBeInstanceOf(AssetGoneError);
    await expect(assets.setDetails(deleting, { x: 1 })).rejects.toBeInstanceOf(AssetGoneError);
  });

  it('adopt marks the PV uid inside a transaction, and refuses a record being deleted', async () => {
    const { record } = await assets.begin(input);
    await ts.store.transact(async (tx) => {
      expect(await assets.adopt(record.plugin, record.pvName, 'pv-uid', tx)).toBe(true);
    });
    expect((await assets.get(record.plugin, record.pvName))?.details.pvUid).toBe('pv-uid');
    await assets.markDeleting(record);
    expect(await assets.adopt(record.plugin, record.pvName, 'pv-uid')).toBe(false);
    expect(await assets.adopt(record.plugin, 'pvc-none', 'pv-uid')).toBe(false);
  });

  it('a rolled back transaction does not adopt', async () => {
    const { record } = await assets.begin(input);
    await expect(
      ts.store.transact(async (tx) => {
        await assets.adopt(record.plugin, record.pvName, 'pv-uid', tx);
        throw new Error('PV not saved');
      }),
    ).rejects.toThrow('PV not saved');
    expect((await assets.get(record.plugin, record.pvName))?.details.pvUid).toBeUndefined();
  });

  it('release forgets only existing assets; remove forgets anything, twice is fine', async () => {
    const { record } = await assets.begin(input);
    expect(await assets.release(record)).toBe(false);
    await assets.markCreated(record);
    expect(await assets.release(record)).toBe(true);
    await assets.remove(record);
    expect(await assets.count()).toBe(0);
  });

  it('notes errors and lists by plugin, node and state', async () => {
    const { record } = await assets.begin(input);
    await assets.begin({ ...input, pvName: 'pvc-2', node: 'n2' });
    await assets.noteError(record, new Error('disk on fire'));
    expect((await assets.get(record.plugin, 'pvc-1'))?.error).toBe('disk on fire');
    expect((await assets.list({ node: 'n2' })).map((r) => r.pvName)).toEqual(['pvc-2']);
    expect(await assets.list({ states: ['created'] })).toEqual([]);
    expect((await assets.byPv('pvc-1')).map((r) => r.id)).toEqual(['stowage.io/host-path:pvc-1']);
    expect((await assets.markCreated(record)).error).toBeNull();
  });
});

// The one read the volume controller makes when a volume becomes Available: the claims that
// name it (any phase) and the oldest unbound Pending claims it could serve.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { KubeObject } from '../../server/resources/types';
import { claimsToWake, type VolumeShape } from '../../server/store/volume-queries';
import { openTestStore, type TestStore } from '../db';

let t: TestStore;
beforeAll(async () => {
  t = await openTestStore();
  await t.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'wake' } });
  await t.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'wake-b' } });
});
afterAll(async () => {
  await t?.close();
});

const claim = (name: string, o: { namespace?: string; storage?: string; cls?: string; volumeName?: string; modes?: string[] } = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name, namespace: o.namespace ?? 'wake' },
  spec: {
    accessModes: o.modes ?? ['ReadWriteOnce'],
    resources: { requests: { storage: o.storage ?? '1Gi' } },
    storageClassName: o.cls ?? 'slow',
    ...(o.volumeName ? { volumeName: o.volumeName } : {}),
  },
});

const shape: VolumeShape = { storageClass: 'slow', volumeMode: 'Filesystem', accessModes: 1, bytes: String(5 * 2 ** 30) };
const names = (xs: { namespace: string; name: string }[]) => xs.map((c) => `${c.namespace}/${c.name}`);

describe('claimsToWake', () => {
  test('answers the claims naming the volume, then the oldest claims it could serve, up to the limit', async () => {
    // Created in this order, so oldest first is this order.
    await t.store.create(claim('old'));
    await t.store.create(claim('too-big', { storage: '10Gi' }));
    await t.store.create(claim('other-class', { cls: 'fast' }));
    await t.store.create(claim('needs-rwx', { modes: ['ReadWriteMany'] }));
    await t.store.create(claim('newer', { namespace: 'wake-b' }));
    await t.store.create(claim('newest'));
    // Names the volume: woken whatever its class or size, and not counted as waiting.
    await t.store.create(claim('names-it', { volumeName: 'pv-a', storage: '100Gi', cls: 'fast' }));
    await t.store.create(claim('names-another', { volumeName: 'pv-b' }));

    const all = await claimsToWake(t.store, 'pv-a', shape, 16);
    expect(names(all.naming)).toEqual(['wake/names-it']);
    expect(names(all.waiting)).toEqual(['wake/old', 'wake-b/newer', 'wake/newest']);

    const two = await claimsToWake(t.store, 'pv-a', shape, 2);
    expect(names(two.naming)).toEqual(['wake/names-it']);
    expect(names(two.waiting)).toEqual(['wake/old', 'wake-b/newer']);
  });

  test('without a shape (no capacity, or the volume is being deleted) only the naming claims', async () => {
    const r = await claimsToWake(t.store, 'pv-b', undefined, 16);
    expect(names(r.naming)).toEqual(['wake/names-another']);
    expect(r.waiting).toEqual([]);
  });

  test('a claim already bound is no longer waiting, but still named', async () => {
    const c = await t.store.get('PersistentVolumeClaim', 'wake', 'old');
    c.spec!.volumeName = 'pv-c';
    await t.store.update(c);
    const r = await claimsToWake(t.store, 'pv-c', shape, 16);
    expect(names(r.naming)).toEqual(['wake/old']);
    expect(names(r.waiting)).not.toContain('wake/old');
  });
});

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openTestStore, type TestStore } from '../../test/db';
import type { KubeObject } from '../resources/types';
import { countEventOccurrences, countObjects, historyMentioning, historyWritesByWriter, provisioningRecordTimes } from './bench-queries';
import { AssetStore } from './provisioned-assets';

let t: TestStore;
let from: bigint;

const pv = (name: string, labels: Record<string, string> = {}): KubeObject =>
  ({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name, labels }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/tmp/${name}` } } });
const event = (name: string, reason: string, count: number): KubeObject =>
  ({ apiVersion: 'v1', kind: 'Event', metadata: { name, namespace: 'bench' }, involvedObject: { kind: 'PersistentVolumeClaim', namespace: 'bench', name: 'a' }, reason, message: 'm', count, type: 'Normal' });

beforeAll(async () => {
  t = await openTestStore();
  from = BigInt(await t.store.currentResourceVersion());
  await t.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } });
  const a = await t.store.create(pv('a', { 'local.stowage.io/node': 'n1' }));
  await t.store.create(pv('b', { 'local.stowage.io/node': 'n2' }));
  await t.store.create(pv('c'));
  await t.store.update({ ...a, status: { phase: 'Available' } }, { subresource: 'status' });
  await t.store.create(event('e1', 'Provisioned', 3));
  await t.store.create(event('e2', 'Provisioned', 2));
  await t.store.create(event('e3', 'Failed', 1));
  const assets = new AssetStore(t.store);
  await assets.begin({ plugin: 'stowage.io/host-path', pvName: 'pvc-1', claimUid: 'u1', claim: 'bench/c1', node: 'n1', details: { path: '/d/1', className: 'pooled' } });
  await assets.begin({ plugin: 'stowage.io/host-path', pvName: 'pvc-2', claimUid: 'u2', claim: 'bench/c2', node: 'n1', details: { path: '/d/2', className: 'other' } });
});
afterAll(async () => t.close());

describe('the benches read counts and traces through named queries', () => {
  test.each([
    { name: 'every PersistentVolume', where: {}, want: 3 },
    { name: 'PersistentVolumes with the node label', where: { withLabel: 'local.stowage.io/node' }, want: 2 },
    { name: 'Available ones with the node label', where: { phase: 'Available', withLabel: 'local.stowage.io/node' }, want: 1 },
    { name: 'none in a phase nobody is in', where: { phase: 'Bound' }, want: 0 },
  ])('countObjects: $name', async ({ where, want }) => {
    expect(await countObjects(t.store, 'PersistentVolume', where)).toBe(want);
  });

  test('countEventOccurrences sums the counts of one reason', async () => {
    expect(await countEventOccurrences(t.store, 'Provisioned')).toBe(5);
    expect(await countEventOccurrences(t.store, 'Failed')).toBe(1);
    expect(await countEventOccurrences(t.store, 'Nothing')).toBe(0);
  });

  test('provisioningRecordTimes: the records of one class only', async () => {
    const rows = await provisioningRecordTimes(t.store, 'pooled');
    expect(rows.map((r) => r.claim)).toEqual(['bench/c1']);
    expect(rows[0].begun).toBeInstanceOf(Date);
    expect(rows[0].last.getTime()).toBeGreaterThanOrEqual(rows[0].begun.getTime());
  });

  test('historyWritesByWriter counts the writes in the given namespaces', async () => {
    const rows = await historyWritesByWriter(t.store, from, ['bench']);
    const events = rows.filter((r) => r.kind === 'Event');
    expect(events.reduce((s, r) => s + r.n, 0)).toBe(3);
    expect(rows.some((r) => r.kind === 'PersistentVolume')).toBe(false);
    const cluster = await historyWritesByWriter(t.store, from, ['']);
    expect(cluster.filter((r) => r.kind === 'PersistentVolume').reduce((s, r) => s + r.n, 0)).toBe(4);
  });

  test('historyMentioning finds an object by name or by mention, and takes LIKE characters literally', async () => {
    const rows = await historyMentioning(t.store, from, 'a');
    expect(rows.filter((r) => r.kind === 'PersistentVolume' && r.name === 'a').length).toBe(2);
    expect(rows.some((r) => r.kind === 'Event')).toBe(true); // involvedObject.name "a"
    expect(await historyMentioning(t.store, from, '%')).toEqual([]);
  });
});

import { describe, expect, test } from 'vitest';
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';
import type { VolumeSnapshot } from '../resources/volume-snapshot/schema';
import { formatQuantity } from './quantity';
import { admitObjectCreate, countedKind, objectCountNames, objectUsage, snapshotBytes, SNAPSHOT_STORAGE, type QuotaKind } from './quota-objects';

const VS: QuotaKind = { plural: 'volumesnapshots', group: 'snapshot.storage.k8s.io' };
const CM: QuotaKind = { plural: 'configmaps', group: '' };
const SCHEDULE: QuotaKind = { plural: 'snapshotschedules', group: 'snapshot.stowage.io' };
const POD: QuotaKind = { plural: 'pods', group: '' };
const VS_COUNT = 'count/volumesnapshots.snapshot.storage.k8s.io';

describe('objectCountNames (upstream ObjectCountQuotaResourceNameFor and the legacy counts)', () => {
  test.each<[string, QuotaKind, string[]]>([
    ['a grouped kind counts as count/<resource>.<group>', VS, [VS_COUNT]],
    ["Stowage's own group the same way", SCHEDULE, ['count/snapshotschedules.snapshot.stowage.io']],
    ['a core kind with a legacy name counts against both', CM, ['count/configmaps', 'configmaps']],
    ['pods only as count/pods (the bare name is the pod evaluator\'s)', POD, ['count/pods']],
  ])('%s', (_n, k, want) => {
    expect(objectCountNames(k)).toEqual(want);
  });
});

describe('countedKind', () => {
  const kinds = [VS, CM, SCHEDULE, POD];
  test.each<[string, QuotaKind | undefined]>([
    [VS_COUNT, VS],
    ['configmaps', CM],
    ['count/configmaps', CM],
    ['count/volumesnapshots', undefined],
    ['count/volumesnapshots.example.com', undefined],
    ['pods', undefined],
    ['requests.storage', undefined],
  ])('%s', (name, want) => {
    expect(countedKind(name, kinds)).toBe(want);
  });
});

const snap = (over: { claim?: string; content?: string; restoreSize?: string } = {}): VolumeSnapshot => ({
  apiVersion: 'snapshot.storage.k8s.io/v1',
  kind: 'VolumeSnapshot',
  metadata: { name: 's', namespace: 'ns' },
  spec: { source: over.content ? { volumeSnapshotContentName: over.content } : { persistentVolumeClaimName: over.claim ?? 'data' } },
  ...(over.restoreSize ? { status: { restoreSize: over.restoreSize } } : {}),
});
const pvc = (name: string, request: string, capacity?: string): PersistentVolumeClaim => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name, namespace: 'ns' },
  spec: { resources: { requests: { storage: request } } },
  ...(capacity ? { status: { capacity: { storage: capacity } } } : {}),
});

describe('snapshotBytes', () => {
  const claims = new Map([['data', pvc('data', '1Gi')], ['big', pvc('big', '1Gi', '5Gi')]]);
  test.each<[string, VolumeSnapshot, bigint]>([
    ['its restoreSize once known', snap({ restoreSize: '512Mi' }), 512n << 20n],
    ['before that, the request of the claim it copies', snap(), 1n << 30n],
    ['the claim\'s capacity where it has one (a copy takes what the volume holds)', snap({ claim: 'big' }), 5n << 30n],
    ['nothing for a claim that is gone', snap({ claim: 'gone' }), 0n],
    ['nothing for a pre-provisioned content until it tells its size', snap({ content: 'c' }), 0n],
  ])('%s', (_n, s, want) => {
    expect(snapshotBytes(s, claims)).toBe(want);
  });
});

interface Row {
  name: string;
  hard: Record<string, string>;
  used: Record<string, string>;
  adds: ReturnType<typeof objectUsage>;
  scoped?: boolean;
  message?: string;
  newUsed?: Record<string, string>;
}

const rows: Row[] = [
  { name: 'a snapshot within its count is admitted and charged', hard: { [VS_COUNT]: '3' }, used: { [VS_COUNT]: '2' }, adds: objectUsage(VS, 0n), newUsed: { [VS_COUNT]: '3' } },
  {
    name: 'a snapshot over its count is refused with upstream message',
    hard: { [VS_COUNT]: '17' },
    used: { [VS_COUNT]: '17' },
    adds: objectUsage(VS, 0n),
    message: `exceeded quota: q, requested: ${VS_COUNT}=1, used: ${VS_COUNT}=17, limited: ${VS_COUNT}=17`,
  },
  {
    name: 'snapshot bytes over the limit are refused in bytes',
    hard: { [SNAPSHOT_STORAGE]: '3Gi' },
    used: { [SNAPSHOT_STORAGE]: '2Gi' },
    adds: objectUsage(VS, 2n << 30n),
    message: `exceeded quota: q, requested: ${SNAPSHOT_STORAGE}=2Gi, used: ${SNAPSHOT_STORAGE}=2Gi, limited: ${SNAPSHOT_STORAGE}=3Gi`,
  },
  {
    name: 'a count and the bytes exceeded together are both named, sorted',
    hard: { [SNAPSHOT_STORAGE]: '1Gi', [VS_COUNT]: '0' },
    used: {},
    adds: objectUsage(VS, 2n << 30n),
    message: `exceeded quota: q, requested: ${VS_COUNT}=1,${SNAPSHOT_STORAGE}=2Gi, used: ${VS_COUNT}=0,${SNAPSHOT_STORAGE}=0, limited: ${VS_COUNT}=0,${SNAPSHOT_STORAGE}=1Gi`,
  },
  { name: 'a snapshot of no known size takes no bytes', hard: { [SNAPSHOT_STORAGE]: '0' }, used: { [SNAPSHOT_STORAGE]: '0' }, adds: objectUsage(VS, 0n), newUsed: {} },
  { name: 'a configmap is held to the legacy name', hard: { configmaps: '1' }, used: { configmaps: '1' }, adds: objectUsage(CM), message: 'exceeded quota: q, requested: configmaps=1, used: configmaps=1, limited: configmaps=1' },
  { name: 'limits of other kinds do not concern it', hard: { 'count/configmaps': '0', 'requests.storage': '0' }, used: {}, adds: objectUsage(VS, 1n), newUsed: {} },
  { name: 'a scoped quota counts nothing', hard: { [VS_COUNT]: '0' }, used: {}, adds: objectUsage(VS, 0n), scoped: true, newUsed: {} },
];

describe('admitObjectCreate (upstream CheckRequest for one object create)', () => {
  test.each(rows)('$name', (r) => {
    const d = admitObjectCreate({ name: 'q', hard: r.hard, scoped: r.scoped }, r.used, r.adds);
    if (r.message) expect(d).toEqual({ allowed: false, message: r.message });
    else expect(d).toMatchObject({ allowed: true, used: r.newUsed });
  });

  test('the bytes a snapshot adds read as a quantity', () => {
    expect(formatQuantity(objectUsage(VS, 3n << 30n).get(SNAPSHOT_STORAGE)!)).toBe('3Gi');
  });
});

// Quotas on objects other than claims, through the Kubernetes REST API on a real Postgres:
// upstream's object counts (count/volumesnapshots.snapshot.storage.k8s.io, the legacy
// `configmaps`) counted in status.used and enforced at create with upstream's 403, and
// snapshots.stowage.io/storage, the bytes a namespace's snapshot copies may take.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { resourceQuotaSpec } from '../../server/controllers/resource-quota/resource-quota';
import { Manager } from '../../server/controllers/runtime/manager';
import { logger } from '../../server/services/logger';
import type { KubeObject } from '../../server/resources/types';
import { apiClient } from '../kube/api-client';
import { startKubeHarness, waitFor, type KubeHarness } from '../kube/harness';

let h: KubeHarness;
let api: ReturnType<typeof apiClient>;
let controllers: Manager;

const SNAP_COUNT = 'count/volumesnapshots.snapshot.storage.k8s.io';
const SNAP_BYTES = 'snapshots.stowage.io/storage';
const snapshots = (ns: string) => `/apis/snapshot.storage.k8s.io/v1/namespaces/${ns}/volumesnapshots`;
const quotas = (ns: string) => `/api/v1/namespaces/${ns}/resourcequotas`;
const snapshot = (name: string, claim = 'data'): KubeObject => ({
  apiVersion: 'snapshot.storage.k8s.io/v1',
  kind: 'VolumeSnapshot',
  metadata: { name },
  spec: { source: { persistentVolumeClaimName: claim } },
});
const claim = (name: string, size: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: size } }, storageClassName: 'fast' },
});
const quota = (name: string, hard: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name }, spec: { hard } });

async function used(ns: string, name: string): Promise<Record<string, string | number> | undefined> {
  return (await h.ts.store.tryGet('ResourceQuota', ns, name))?.status?.used;
}

beforeAll(async () => {
  h = await startKubeHarness();
  api = apiClient(h);
  for (const ns of ['snap-count', 'snap-bytes', 'maps', 'snap-race']) await h.ts.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  controllers = new Manager({ store: h.ts.store, log: logger, specs: () => [resourceQuotaSpec({ store: h.ts.store })], leaderElection: false });
  await controllers.start();
});
afterAll(async () => {
  await controllers?.stop();
  await h?.close();
});

describe('count/volumesnapshots.snapshot.storage.k8s.io', () => {
  test('a quota created over existing snapshots counts them at once', async () => {
    for (const n of ['s1', 's2']) expect((await api({ method: 'POST', path: snapshots('snap-count'), body: snapshot(n) })).status).toBe(201);
    const r = await api({ method: 'POST', path: quotas('snap-count'), body: quota('snaps', { [SNAP_COUNT]: '3', 'requests.storage': '10Gi' }) });
    expect(r.status, r.text).toBe(201);
    expect(r.json.status.used).toEqual({ [SNAP_COUNT]: '2', 'requests.storage': '0' });
  });

  test('a create within the count is admitted and charged; one over it is 403 with upstream message and writes nothing', async () => {
    expect((await api({ method: 'POST', path: snapshots('snap-count'), body: snapshot('s3') })).status).toBe(201);
    expect(await used('snap-count', 'snaps')).toEqual({ [SNAP_COUNT]: '3', 'requests.storage': '0' });
    const before = (await h.ts.store.currentResourceVersion()).toString();
    const r = await api({ method: 'POST', path: snapshots('snap-count'), body: snapshot('s4') });
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({
      kind: 'Status',
      reason: 'Forbidden',
      code: 403,
      message: `volumesnapshots.snapshot.storage.k8s.io "s4" is forbidden: exceeded quota: snaps, requested: ${SNAP_COUNT}=1, used: ${SNAP_COUNT}=3, limited: ${SNAP_COUNT}=3`,
    });
    expect(await h.ts.store.tryGet('VolumeSnapshot', 'snap-count', 's4')).toBeUndefined();
    expect((await h.ts.store.currentResourceVersion()).toString()).toBe(before);
  });

  test('a dry run is refused alike', async () => {
    const r = await api({ method: 'POST', path: `${snapshots('snap-count')}?dryRun=All`, body: snapshot('s4') });
    expect(r.status).toBe(403);
  });

  test('a deleted snapshot gives its count back; a claim still counts only against the claim resources', async () => {
    expect((await api({ method: 'DELETE', path: `${snapshots('snap-count')}/s1` })).status).toBe(200);
    await waitFor(async () => (await used('snap-count', 'snaps'))?.[SNAP_COUNT] === '2', 'the quota to count 2 snapshots');
    expect((await api({ method: 'POST', path: '/api/v1/namespaces/snap-count/persistentvolumeclaims', body: claim('data', '1Gi') })).status).toBe(201);
    expect(await used('snap-count', 'snaps')).toEqual({ [SNAP_COUNT]: '2', 'requests.storage': '1Gi' });
    expect((await api({ method: 'POST', path: snapshots('snap-count'), body: snapshot('s5') })).status).toBe(201);
  });
});

describe('concurrent creates', () => {
  test('of 10 parallel snapshot creates with room for 3, exactly 3 succeed', async () => {
    expect((await api({ method: 'POST', path: quotas('snap-race'), body: quota('snaps', { [SNAP_COUNT]: '3' }) })).status).toBe(201);
    const codes = await Promise.all(Array.from({ length: 10 }, (_, i) => api({ method: 'POST', path: snapshots('snap-race'), body: snapshot(`r${i}`) }).then((r) => r.status)));
    expect(codes.filter((c) => c === 201)).toHaveLength(3);
    expect(codes.filter((c) => c === 403)).toHaveLength(7);
    expect((await h.ts.store.list('VolumeSnapshot', { namespace: 'snap-race' })).items).toHaveLength(3);
    expect(await used('snap-race', 'snaps')).toEqual({ [SNAP_COUNT]: '3' });
  });
});

describe('snapshots.stowage.io/storage: the bytes snapshot copies take', () => {
  test('each snapshot counts the size of the claim it copies until its restoreSize is known; over the limit is 403', async () => {
    expect((await api({ method: 'POST', path: '/api/v1/namespaces/snap-bytes/persistentvolumeclaims', body: claim('data', '2Gi') })).status).toBe(201);
    expect((await api({ method: 'POST', path: quotas('snap-bytes'), body: quota('copies', { [SNAP_BYTES]: '3Gi' }) })).status).toBe(201);
    expect((await api({ method: 'POST', path: snapshots('snap-bytes'), body: snapshot('first') })).status).toBe(201);
    expect(await used('snap-bytes', 'copies')).toEqual({ [SNAP_BYTES]: '2Gi' });
    const r = await api({ method: 'POST', path: snapshots('snap-bytes'), body: snapshot('second') });
    expect(r.status).toBe(403);
    expect(r.json.message).toBe(
      `volumesnapshots.snapshot.storage.k8s.io "second" is forbidden: exceeded quota: copies, requested: ${SNAP_BYTES}=2Gi, used: ${SNAP_BYTES}=2Gi, limited: ${SNAP_BYTES}=3Gi`,
    );
  });

  test('a restoreSize, once the snapshotter writes it, counts instead', async () => {
    const snap = await h.ts.store.get('VolumeSnapshot', 'snap-bytes', 'first');
    await h.ts.store.update({ ...snap, status: { readyToUse: true, restoreSize: '512Mi' } }, { subresource: 'status' });
    await waitFor(async () => (await used('snap-bytes', 'copies'))?.[SNAP_BYTES] === '512Mi', 'the quota to count the restoreSize');
    expect((await api({ method: 'POST', path: snapshots('snap-bytes'), body: snapshot('second') })).status).toBe(201);
  });
});

describe('the legacy object count `configmaps`', () => {
  test('counts configmaps with count/configmaps, and refuses one over it', async () => {
    expect((await api({ method: 'POST', path: quotas('maps'), body: quota('maps', { configmaps: '1', 'count/configmaps': '5' }) })).status).toBe(201);
    const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: 'b' } });
    expect((await api({ method: 'POST', path: '/api/v1/namespaces/maps/configmaps', body: cm('one') })).status).toBe(201);
    expect(await used('maps', 'maps')).toEqual({ configmaps: '1', 'count/configmaps': '1' });
    const r = await api({ method: 'POST', path: '/api/v1/namespaces/maps/configmaps', body: cm('two') });
    expect(r.status).toBe(403);
    expect(r.json.message).toBe('configmaps "two" is forbidden: exceeded quota: maps, requested: configmaps=1, used: configmaps=1, limited: configmaps=1');
  });
});

// CapacityService on a real Postgres: sums per class, node and namespace from the indexed
// columns, the trend per class counted back through the history table, quotas near full,
// wipes in progress, and what a developer may see of them.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Principal } from '../../server/domain/authorization';
import type { KubeObject } from '../../server/resources/types';
import { CapacityService } from '../../server/services/capacity';
import { historyDeltas } from '../../server/store/capacity-queries';
import { CleanupJobStore } from '../../server/store/cleanup-jobs';
import { poolOf } from '../../server/store/sql-handle';
import { openTestApp } from '../app';

let app: Awaited<ReturnType<typeof openTestApp>>;
let capacity: CapacityService;
const admin: Principal = { type: 'user', id: 'a', name: 'admin', role: 'admin', namespaces: [] };
const dev: Principal = { type: 'user', id: 'd', name: 'dev', role: 'developer', namespaces: ['team-a'] };
const Gi = 1024n ** 3n;
const gi = (n: number) => (BigInt(n) * Gi).toString();

function pv(name: string, size: string, cls: string, extra: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name },
    spec: {
      capacity: { storage: size },
      accessModes: ['ReadWriteOnce'],
      storageClassName: cls,
      persistentVolumeReclaimPolicy: 'Retain',
      hostPath: { path: `/tmp/${name}` },
      ...extra,
    },
  };
}

function claim(ns: string, name: string, size: string, cls = 'fast'): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: ns },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: size } }, storageClassName: cls },
  };
}

async function setPhase(kind: 'PersistentVolume' | 'PersistentVolumeClaim', ns: string | undefined, name: string, phase: string) {
  const o = await app.objects.get(admin, kind, ns, name);
  await app.objects.update(admin, { ...o, status: { ...o.status, phase } }, { subresource: 'status' });
}

beforeAll(async () => {
  app = await openTestApp();
  capacity = new CapacityService(app.store);
  for (const ns of ['team-a', 'team-b']) await app.objects.create(admin, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await app.objects.create(admin, { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'storage', namespace: 'team-a' }, spec: { hard: { 'requests.storage': '6Gi' } } });
  await app.objects.create(admin, { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'roomy', namespace: 'team-b' }, spec: { hard: { 'requests.storage': '100Gi' } } });
  await app.objects.create(admin, { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'count', namespace: 'team-b' }, spec: { hard: { persistentvolumeclaims: '1' } } });

  await app.objects.create(admin, pv('fast-free', '10Gi', 'fast'));
  await app.objects.create(admin, pv('fast-bound', '5Gi', 'fast', { claimRef: { namespace: 'team-a', name: 'data' } }));
  await app.objects.create(admin, pv('fast-gone', '1Gi', 'fast'));
  await app.objects.create(
    admin,
    pv('local-1', '20Gi', 'local', {
      hostPath: undefined,
      local: { path: '/mnt/disks/a' },
      nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['node-1'] }] }] } },
    }),
  );
  await setPhase('PersistentVolume', undefined, 'fast-free', 'Available');
  await setPhase('PersistentVolume', undefined, 'fast-bound', 'Bound');
  await setPhase('PersistentVolume', undefined, 'local-1', 'Available');
  await app.objects.delete(admin, 'PersistentVolume', undefined, 'fast-gone');
  // No controllers here: take the protection finalizer off so the volume is gone.
  const gone = await app.objects.get(admin, 'PersistentVolume', undefined, 'fast-gone');
  await app.objects.update(admin, { ...gone, metadata: { ...gone.metadata, finalizers: [] } });
  expect(await app.store.tryGet('PersistentVolume', undefined, 'fast-gone')).toBeUndefined();

  await app.objects.create(dev, claim('team-a', 'data', '5Gi'));
  await setPhase('PersistentVolumeClaim', 'team-a', 'data', 'Bound');
  await app.objects.create(admin, claim('team-b', 'logs', '3Gi'));
  await setPhase('PersistentVolumeClaim', 'team-b', 'logs', 'Pending');

  await new CleanupJobStore(app.store).record({
    nodeName: 'node-1',
    pvName: 'local-old',
    pvUid: '00000000-0000-0000-0000-000000000001',
    hostPath: '/mnt/disks/b',
    className: 'local',
    volumeMode: 'Filesystem',
    method: 'dd-zero',
    command: [],
    fsType: '',
    state: 'queued',
  });
});
afterAll(async () => app?.close());

describe('overview', () => {
  test('sums per class: provisioned, bound, free, requested; used unknown', async () => {
    const o = await capacity.overview(admin);
    expect(o.seeVolumes).toBe(true);
    const fast = o.classes.find((c) => c.storageClass === 'fast');
    expect(fast).toEqual({
      storageClass: 'fast',
      volumes: 2,
      provisionedBytes: gi(15),
      boundBytes: gi(5),
      freeBytes: gi(10),
      usedBytes: null,
      claims: 2,
      requestedBytes: gi(8),
    });
    expect(o.classes.find((c) => c.storageClass === 'local')).toMatchObject({ volumes: 1, provisionedBytes: gi(20), freeBytes: gi(20), claims: 0 });
  });

  test('sums per node count the volumes pinned to it', async () => {
    const o = await capacity.overview(admin);
    expect(o.nodes).toEqual([{ nodeName: 'node-1', volumes: 1, provisionedBytes: gi(20), boundBytes: '0', freeBytes: gi(20), usedBytes: null }]);
  });

  test('sums per namespace: claims, Pending, requested, and the capacity of their bound volumes', async () => {
    const o = await capacity.overview(admin);
    expect(o.namespaces).toEqual([
      { namespace: 'team-a', claims: 1, pendingClaims: 0, requestedBytes: gi(5), boundVolumes: 1, boundBytes: gi(5), usedBytes: null },
      { namespace: 'team-b', claims: 1, pendingClaims: 1, requestedBytes: gi(3), boundVolumes: 0, boundBytes: '0', usedBytes: null },
    ]);
  });

  test('a developer sees only their namespaces, and no volume or node figures', async () => {
    const o = await capacity.overview(dev);
    expect(o.seeVolumes).toBe(false);
    expect(o.nodes).toEqual([]);
    expect(o.namespaces.map((n) => n.namespace)).toEqual(['team-a']);
    expect(o.classes).toEqual([{ storageClass: 'fast', volumes: 0, provisionedBytes: '0', boundBytes: '0', freeBytes: '0', usedBytes: null, claims: 1, requestedBytes: gi(5) }]);
  });

  test('used bytes the volumes report are summed per class, node and namespace; unmeasured stays unknown', async () => {
    const used = async (name: string, bytes: string) => {
      const o = await app.store.get('PersistentVolume', undefined, name);
      await app.store.update({ ...o, metadata: { ...o.metadata, annotations: { ...o.metadata.annotations, 'stowage.io/used-bytes': bytes, 'stowage.io/used-bytes-time': '2026-11-25T00:00:00Z' } } });
    };
    await used('fast-bound', gi(2));
    await used('local-1', '1000');
    try {
      const o = await capacity.overview(admin);
      expect(o.classes.find((c) => c.storageClass === 'fast')?.usedBytes).toBe(gi(2));
      expect(o.classes.find((c) => c.storageClass === 'local')?.usedBytes).toBe('1000');
      expect(o.nodes.find((n) => n.nodeName === 'node-1')?.usedBytes).toBe('1000');
      expect(o.namespaces.find((n) => n.namespace === 'team-a')?.usedBytes).toBe(gi(2));
      expect(o.namespaces.find((n) => n.namespace === 'team-b')?.usedBytes).toBeNull();
      const d = await capacity.overview(dev);
      expect(d.namespaces).toEqual([expect.objectContaining({ namespace: 'team-a', usedBytes: gi(2) })]);
      expect(d.classes[0].usedBytes).toBeNull();
    } finally {
      for (const name of ['fast-bound', 'local-1']) {
        const o = await app.store.get('PersistentVolume', undefined, name);
        const annotations = { ...o.metadata.annotations };
        delete annotations['stowage.io/used-bytes'];
        delete annotations['stowage.io/used-bytes-time'];
        await app.store.update({ ...o, metadata: { ...o.metadata, annotations } });
      }
    }
  });
});

describe('trend', () => {
  test('ends at the current sums and starts before the first change at zero', async () => {
    const t = await capacity.trend(admin);
    // A history of minutes: 5-minute buckets, so what was made minutes ago is drawn where it was made.
    expect(t.stepMs).toBe(300_000);
    const fast = t.classes.find((c) => c.storageClass === 'fast')!;
    expect(fast.points.length).toBeGreaterThanOrEqual(2);
    expect(fast.points.at(-1)).toMatchObject({ provisionedBytes: gi(15), boundBytes: gi(5), requestedBytes: gi(8) });
    // Counted back through every history row (the deleted volume included): nothing before.
    expect(fast.points[0]).toMatchObject({ t: t.from, provisionedBytes: '0', boundBytes: '0', requestedBytes: '0' });
    expect(fast.forecast).toEqual({ state: 'unknown', reason: 'too little history' });
  });

  test('buckets after the changes keep the current sums', async () => {
    const t = await capacity.trend(admin, 30, Date.now() + 3 * 3_600_000);
    const local = t.classes.find((c) => c.storageClass === 'local')!;
    expect(local.points.length).toBeGreaterThanOrEqual(5);
    expect(local.points.slice(-3).map((p) => p.provisionedBytes)).toEqual([gi(20), gi(20), gi(20)]);
  });

  test("a developer's trend has only their namespaces' requests", async () => {
    const t = await capacity.trend(dev);
    expect(t.classes.map((c) => c.storageClass)).toEqual(['fast']);
    const fast = t.classes[0];
    expect(fast.points.at(-1)).toMatchObject({ provisionedBytes: '0', boundBytes: '0', requestedBytes: gi(5) });
    expect(fast.forecast.state).toBe('unknown');
  });

  test("a window that starts between two versions takes the earlier one from before it: the bytes stay, the bound bytes move", async () => {
    await app.objects.create(admin, pv('win-1', '4Gi', 'win', { claimRef: { namespace: 'team-b', name: 'win' } }));
    const { rows } = await poolOf(app.store).query<{ t: Date }>('SELECT clock_timestamp() AS t');
    await setPhase('PersistentVolume', undefined, 'win-1', 'Bound');
    const deltas = await historyDeltas(app.store, { kinds: ['PersistentVolume'], from: rows[0].t, stepMs: 3_600_000 });
    expect(deltas.filter((d) => d.storageClass === 'win')).toEqual([{ kind: 'PersistentVolume', storageClass: 'win', bucket: 0, total: '0', bound: gi(4) }]);
  });

  test('history rows written before the rows kept their class, bytes and phase are read from their objects, to the same trend', async () => {
    const later = Date.now() + 3 * 3_600_000;
    const before = await capacity.trend(admin, 30, later);
    const forDev = await capacity.trend(dev, 30, later);
    const { rowCount } = await poolOf(app.store).query(
      `UPDATE history SET storage_class = NULL, capacity_bytes = NULL, phase = NULL WHERE kind IN ('PersistentVolume', 'PersistentVolumeClaim') AND storage_class IS NOT NULL`,
    );
    expect(rowCount).toBeGreaterThan(10);
    expect(await capacity.trend(admin, 30, later)).toEqual(before);
    expect(await capacity.trend(dev, 30, later)).toEqual(forDev);
  });

  test('a class whose provisioner makes its volumes is provisioned on demand, never "full now"', async () => {
    await app.objects.create(admin, { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'made' }, provisioner: 'example.com/nfs' });
    await app.objects.create(admin, pv('made-1', '2Gi', 'made', { claimRef: { namespace: 'team-b', name: 'made' } }));
    await setPhase('PersistentVolume', undefined, 'made-1', 'Bound');
    const t = await capacity.trend(admin, 30, Date.now() + 3 * 3_600_000);
    const made = t.classes.find((c) => c.storageClass === 'made')!;
    expect(made.points.at(-1)).toMatchObject({ provisionedBytes: gi(2), boundBytes: gi(2) });
    expect(made.forecast).toEqual({ state: 'on-demand' });
    // A class of static volumes, all bound, is full.
    await setPhase('PersistentVolume', undefined, 'local-1', 'Bound');
    const local = (await capacity.trend(admin, 30, Date.now() + 3 * 3_600_000)).classes.find((c) => c.storageClass === 'local')!;
    await setPhase('PersistentVolume', undefined, 'local-1', 'Available');
    expect(local.forecast).toEqual({ state: 'full' });
  });
});

describe('attention', () => {
  test('quotas near full: an admin sees every namespace, fullest first', async () => {
    const q = await capacity.quotasNearFull(admin);
    expect(q.map((x) => [`${x.namespace}/${x.name}`, x.limits.map((l) => `${l.resource} ${l.used}/${l.hard}`)])).toEqual([
      ['team-b/count', ['persistentvolumeclaims 1/1']],
      ['team-a/storage', ['requests.storage 5Gi/6Gi']],
    ]);
  });

  test('quotas near full: a developer sees their namespaces only', async () => {
    expect((await capacity.quotasNearFull(dev)).map((x) => `${x.namespace}/${x.name}`)).toEqual(['team-a/storage']);
  });

  test('wipes in progress per node, for those who may read nodes', async () => {
    expect(await capacity.wipesInProgress(admin)).toEqual([{ nodeName: 'node-1', running: 0, queued: 1 }]);
    expect(await capacity.wipesInProgress(dev)).toBeNull();
  });
});

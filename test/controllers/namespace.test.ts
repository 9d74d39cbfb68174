// Namespace deletion as upstream, on a real Postgres and real host-path directories: a
// DELETE marks the namespace Terminating and refuses new content in it; the namespace
// controller deletes its pods first (a Running pod goes through the pod path: the node's
// agent unpublishes, then deletes it), then its claims (through pvc-protection; their
// volumes released by their reclaim policy), snapshots, schedules, quotas, config, events;
// it reports what remains in the namespace's conditions, and the namespace goes when its
// `kubernetes` finalizer is removed. A controller stopped in the middle is replaced by a
// new one that finishes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../server/domain/authorization';
import { hostPathProvisioner } from '../../server/domain/well-known/provisioners';
import { namespaceContent } from '../../server/store/namespace-queries';
import { contentKinds, namespaceControllerSpec } from '../../server/controllers/namespace/namespace';
import { pvcProtectionSpec } from '../../server/controllers/pvc-protection/pvc-protection';
import { Manager } from '../../server/controllers/runtime/manager';
import { logger } from '../../server/services/logger';
import { ObjectService } from '../../server/services/objects';
import { PodPublishing } from '../../server/services/pod-publishing';
import { StowageError } from '../../server/domain/errors';
import type { Namespace } from '../../server/resources/namespace/schema';
import { exists, NODE, NS, openHarness, waitFor, type Harness } from '../provisioning/harness';
import { rawQuery } from '../db';

const admin: Principal = { type: 'user', id: 'admin', name: 'admin', role: 'admin', namespaces: [] };
const snapApi = 'snapshot.storage.k8s.io/v1';

let h: Harness;
let objects: ObjectService;
let managers: Manager[] = [];

beforeAll(async () => {
  h = await openHarness();
  await h.start();
  objects = new ObjectService(h.ts.store);
});
afterAll(async () => {
  for (const m of managers) await m.stop();
  await h?.close();
});

/** The namespace and pvc-protection controllers, as a process of their own (stop() is a kill). */
async function startLifecycle(): Promise<Manager> {
  const log = logger.child({ test: 'namespace' });
  const m = new Manager({
    store: h.ts.store,
    log,
    leaderElection: false,
    specs: () => [pvcProtectionSpec({ store: h.ts.store }, { resyncMs: 1000 }), namespaceControllerSpec({ store: h.ts.store }, { resyncMs: 1000 })],
    shutdownTimeoutMs: 10_000,
  });
  await m.start();
  managers.push(m);
  return m;
}

async function stopLifecycle(m: Manager): Promise<void> {
  await m.stop();
  managers = managers.filter((x) => x !== m);
}

const ns = (name: string) => h.ts.store.tryGet('Namespace', undefined, name);
const condition = (n: Namespace | undefined, type: string) => n?.status?.conditions?.find((c) => c.type === type);

function pod(name: string, claim: string) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: NS },
    spec: { nodeName: NODE, containers: [{ name: 'c', image: 'busybox' }], volumes: [{ name: 'd', persistentVolumeClaim: { claimName: claim } }] },
  };
}

async function refusal(p: Promise<unknown>): Promise<StowageError> {
  const e = await p.then(() => undefined, (err: unknown) => err);
  expect(e).toBeInstanceOf(StowageError);
  return e as StowageError;
}

describe('namespace lifecycle admission', () => {
  it('a DELETE marks the namespace Terminating and keeps it; creates in it are Forbidden as upstream; a second DELETE changes nothing', async () => {
    await h.ts.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'doomed' } });
    await h.ts.store.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kept', namespace: 'doomed' }, data: {} });
    const res = await objects.delete(admin, 'Namespace', undefined, 'doomed');
    expect(res.deleted).toBe(false);
    expect(res.object.metadata.deletionTimestamp).toBeTruthy();
    expect(res.object.status).toEqual({ phase: 'Terminating' });
    expect((res.object as Namespace).spec?.finalizers).toEqual(['kubernetes']);
    const stored = (await ns('doomed'))!;
    expect(stored.status?.phase).toBe('Terminating');
    expect(await h.ts.store.tryGet('ConfigMap', 'doomed', 'kept')).toBeDefined();

    const e = await refusal(objects.create(admin, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'new', namespace: 'doomed' }, data: {} }));
    expect(e.code).toBe('Forbidden');
    expect(e.message).toBe('configmaps "new" is forbidden: unable to create new content in namespace doomed because it is being terminated');
    expect(e.details.causes).toEqual([{ reason: 'NamespaceTerminating', message: 'namespace doomed is being terminated', field: 'metadata.namespace' }]);
    // Whoever creates (a controller's write included): the store refuses it.
    const claim = await refusal(h.ts.store.create({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c', namespace: 'doomed' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }));
    expect(claim.message).toBe('persistentvolumeclaims "c" is forbidden: unable to create new content in namespace doomed because it is being terminated');

    const again = await objects.delete(admin, 'Namespace', undefined, 'doomed');
    expect(again.deleted).toBe(false);
    expect((await ns('doomed'))!.metadata.resourceVersion).toBe(stored.metadata.resourceVersion);
  });

  it('default, kube-system and kube-public may not be deleted', async () => {
    for (const name of ['default', 'kube-system']) {
      if (!(await ns(name))) await h.ts.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
      const e = await refusal(objects.delete(admin, 'Namespace', undefined, name));
      expect(e.code).toBe('Forbidden');
      expect(e.message).toBe(`namespaces "${name}" is forbidden: this namespace may not be deleted`);
      expect((await ns(name))?.metadata.deletionTimestamp).toBeUndefined();
    }
  });

  it('a DELETE waits for a create in flight in the namespace (so nothing lands in it after its last look)', async () => {
    await h.ts.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'racing' } });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let created!: () => void;
    const inFlight = new Promise<void>((r) => (created = r));
    const creating = h.ts.store.transact(async (tx) => {
      await tx.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'late', namespace: 'racing' }, data: {} });
      created();
      await gate;
    });
    try {
      // The DELETE starts only once the create holds its lock (else it may win the race).
      await inFlight;
      const deleting = objects.delete(admin, 'Namespace', undefined, 'racing');
      await waitFor('the DELETE waiting on the namespace row', async () => {
        const rows = await rawQuery<{ n: number }>(h.ts.url, "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()");
        return rows[0].n > 0;
      });
      release();
      await creating;
      expect(((await deleting).object as Namespace).status?.phase).toBe('Terminating');
    } finally {
      release();
    }
    expect(await h.ts.store.tryGet('ConfigMap', 'racing', 'late')).toBeDefined();
  });

  it('the controller empties the Terminating namespaces it finds on start, and they go', async () => {
    const m = await startLifecycle();
    for (const name of ['doomed', 'racing']) {
      await waitFor(`${name} gone`, async () => !(await ns(name)));
      expect(await namespaceContent(h.ts.store, name, contentKinds())).toEqual([]);
    }
    await stopLifecycle(m);
  });
});

describe('kubectl-style namespace deletion with claims, pods and snapshots', () => {
  it('deletes pods first, then claims (volumes released by policy), snapshots and the rest; a restarted controller finishes', async () => {
    await h.createClass('hp', hostPathProvisioner, { basePath: h.base });
    await h.createClass('keep', hostPathProvisioner, { basePath: h.base }, { reclaimPolicy: 'Retain' });
    await h.ts.store.create({ apiVersion: snapApi, kind: 'VolumeSnapshotClass', metadata: { name: 'hp-snap', annotations: { 'snapshot.storage.kubernetes.io/is-default-class': 'true' } }, driver: hostPathProvisioner, deletionPolicy: 'Delete' });
    await h.createClaim('data', 'hp', { size: '16Mi' });
    await h.createClaim('kept', 'keep', { size: '16Mi' });
    const { volume: dataPv } = await h.waitBound('data');
    const { volume: keptPv } = await h.waitBound('kept');
    await h.ts.store.create({ apiVersion: snapApi, kind: 'VolumeSnapshot', metadata: { name: 'snap', namespace: NS }, spec: { source: { persistentVolumeClaimName: 'data' } } });
    const snap = await waitFor('snapshot ready', async () => {
      const vs = await h.ts.store.tryGet('VolumeSnapshot', NS, 'snap');
      return vs?.status?.readyToUse === true ? vs : undefined;
    }, 60_000);
    const contentName = snap.status!.boundVolumeSnapshotContentName!;
    await h.ts.store.create({ apiVersion: 'snapshot.stowage.io/v1', kind: 'SnapshotSchedule', metadata: { name: 'nightly', namespace: NS }, spec: { every: '24h', keep: 2, target: { claimName: 'data' }, suspend: true } });
    await h.ts.store.create({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q', namespace: NS }, spec: { hard: { 'requests.storage': '10Gi' } } });
    await h.ts.store.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace: NS }, data: { a: 'b' } });
    await h.ts.store.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'pw', namespace: NS }, stringData: { p: 'x' } });
    // A pod whose node's agent published its volume (Running: its delete waits for the agent), and one still Pending on the node.
    const running = await h.ts.store.create(pod('runner', 'data'));
    await h.ts.store.update({ ...running, status: { phase: 'Running' } }, { subresource: 'status' });
    await h.ts.store.create(pod('waiting', 'kept'));

    let m = await startLifecycle();
    await objects.delete(admin, 'Namespace', undefined, NS);

    // Pods first: the Running one is Terminating (its agent must unpublish), the other gone; nothing else is deleted yet.
    const terminating = await waitFor('the pod reported remaining', async () => {
      const n = await ns(NS);
      return condition(n, 'NamespaceContentRemaining')?.message?.includes('pods. has 1 resource instances') ? n : undefined;
    });
    expect(terminating.status?.phase).toBe('Terminating');
    expect(condition(terminating, 'NamespaceContentRemaining')).toMatchObject({ status: 'True', reason: 'SomeResourcesRemain' });
    expect(condition(terminating, 'NamespaceContentRemaining')?.message).toMatch(
      /^Some resources are remaining: configmaps\. has 1 resource instances, events\. has \d+ resource instances, persistentvolumeclaims\. has 2 resource instances, pods\. has 1 resource instances, resourcequotas\. has 1 resource instances, secrets\. has 1 resource instances, snapshotschedules\.snapshot\.stowage\.io has 1 resource instances, volumesnapshots\.snapshot\.storage\.k8s\.io has 1 resource instances$/,
    );
    expect(condition(terminating, 'NamespaceFinalizersRemaining')).toMatchObject({ status: 'True', reason: 'SomeFinalizersRemain' });
    expect(condition(terminating, 'NamespaceFinalizersRemaining')?.message).toMatch(/^Some content in the namespace has finalizers remaining: kubernetes\.io\/pvc-protection in 2 resource instances, /);
    expect(condition(terminating, 'NamespaceDeletionContentFailure')).toMatchObject({ status: 'False', reason: 'ContentDeleted' });
    const runner = await h.ts.store.get('Pod', NS, 'runner');
    expect(runner.metadata.deletionTimestamp).toBeTruthy();
    expect(await h.ts.store.tryGet('Pod', NS, 'waiting')).toBeUndefined();
    expect((await h.claim('data'))?.metadata.deletionTimestamp).toBeUndefined();
    expect(await h.ts.store.tryGet('ConfigMap', NS, 'cfg')).toBeDefined();

    // The controller dies here; the agent finishes the pod meanwhile; a new controller carries on.
    await stopLifecycle(m);
    const agent = new PodPublishing(h.ts.store, logger.child({ test: 'agent' }));
    expect(await agent.done(NODE, { namespace: NS, name: 'runner', uid: runner.metadata.uid })).toEqual({ deleted: true });
    m = await startLifecycle();

    await waitFor('the namespace gone', async () => !(await ns(NS)), 60_000);
    expect(await namespaceContent(h.ts.store, NS, contentKinds())).toEqual([]);
    // Every volume released by its policy: Delete deleted (its directory too), Retain kept Released.
    await waitFor('the Delete volume gone', async () => (await h.volume(dataPv.metadata.name!)) === undefined, 30_000);
    expect(await exists(dataPv.spec!.hostPath!.path!)).toBe(false);
    const kept = await waitFor('the Retain volume Released', async () => {
      const v = await h.volume(keptPv.metadata.name!);
      return v?.status?.phase === 'Released' ? v : undefined;
    });
    expect(await exists(kept.spec!.hostPath!.path!)).toBe(true);
    await waitFor('the snapshot content gone', async () => !(await h.ts.store.tryGet('VolumeSnapshotContent', undefined, contentName)), 30_000);
    await stopLifecycle(m);
  }, 120_000);
});

// The replication controller against the real store: a replica added on the roomiest other
// node, transfers queued as a send/receive pair with one key and acknowledged by the
// receive, the PV's annotations and node affinity, failover when the active node is not
// Ready (and not while a pod of the claim is left on it), the old copy fenced when its node
// returns and resynced from the new active copy, two promotions racing (one wins), an
// admin's move (a final transfer, then the switch) and the removal of every copy when the
// volume goes. The data jobs are the in-memory queue (a test double of the port); the test
// plays the agents.
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DataJobSpec } from '../../server/contracts/data-jobs';
import type { ReconcileContext } from '../../server/controllers/runtime/controller';
import { replicationSpec } from '../../server/controllers/replication/replication';
import { MemoryJobQueue } from '../../server/controllers/volume-backup/testing';
import type { UserPrincipal } from '../../server/domain/authorization';
import { readReplication } from '../../server/domain/replication';
import { annPoolFree, annPoolPath, annPoolTotal, annReplicationEndpoint } from '../../server/domain/well-known/annotations';
import { labelHostname, labelPoolNode, labelZone } from '../../server/domain/well-known/labels';
import { btrfsProvisioner } from '../../server/domain/well-known/provisioners';
import type { PersistentVolume } from '../../server/resources/persistent-volume/schema';
import { AssetStore } from '../../server/store/provisioned-assets';
import { VolumeReplicaStore } from '../../server/store/volume-replicas';
import { ensureNamespaces, eventsAbout, openApp } from './fixtures';
import { EventRecorder } from '../../server/services/event-recorder';
import { replicationComponent } from '../../server/domain/well-known/components';

const NS = 'rep';
const POOL = '/srv/pool';
const CLASS = 'replicated';
const GiB = 1n << 30n;
const log = pino({ level: 'silent' });
const admin: UserPrincipal = { type: 'user', id: 'test-admin', name: 'admin', role: 'admin', namespaces: [] };
let ctx: Awaited<ReturnType<typeof openApp>>;
let jobs: MemoryJobQueue;
let assets: AssetStore;
let replicas: VolumeReplicaStore;
let spec: ReturnType<typeof replicationSpec>;
let clock = new Date();

const rctx: ReconcileContext = { controller: 'replication', signal: new AbortController().signal, log, enqueue: () => undefined, isQueued: () => false, wrote: () => undefined };
const sync = (pv: string) => spec.reconcile(`pv/${pv}`, rctx);
const store = () => ctx.app.store;
const later = (s: number) => (clock = new Date(clock.getTime() + s * 1000));

async function node(name: string, zone: string, ready = true): Promise<void> {
  await store().create({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { [labelHostname]: name, [labelZone]: zone }, annotations: { [annReplicationEndpoint]: `10.0.0.${name.charCodeAt(name.length - 1) - 96}:7443` } },
    status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'Unknown', reason: 'test', message: 'test' }] },
  });
  await store().create({
    apiVersion: 'storage.k8s.io/v1',
    kind: 'CSIStorageCapacity',
    metadata: { name: `pool-${name}`, namespace: 'kube-system', labels: { [labelPoolNode]: name }, annotations: { [annPoolPath]: POOL, [annPoolTotal]: String(100n * GiB), [annPoolFree]: String((name === 'node-c' ? 90n : 50n) * GiB) } },
    storageClassName: CLASS,
    nodeTopology: { matchLabels: { [labelHostname]: name } },
    capacity: `${name === 'node-c' ? 90 : 50}Gi`,
  });
}

async function setReady(name: string, ready: boolean): Promise<void> {
  const n = (await store().get('Node', undefined, name));
  n.status = { conditions: [{ type: 'Ready', status: ready ? 'True' : 'Unknown', reason: 'test', message: 'test' }] };
  await store().update(n, { subresource: 'status' });
}

/** A replicated volume as the provisioner leaves it: its record (created, adopted) and its PV bound to a claim. */
async function replicatedVolume(pvName: string, claimName: string, activeNode: string, want = 2): Promise<void> {
  const { record } = await assets.begin({ plugin: btrfsProvisioner, pvName, claimUid: `uid-${claimName}`, claim: `${NS}/${claimName}`, node: activeNode, details: { className: CLASS, pool: POOL, path: `${POOL}/${pvName}`, limitBytes: String(GiB), replicas: want, intervalSeconds: 30, epoch: 0, seq: 0, replicaNodes: [] } });
  await assets.markCreated(record, { appliedBytes: String(GiB) });
  const pv = (await store().create({
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: pvName, annotations: { 'pv.kubernetes.io/provisioned-by': btrfsProvisioner, 'stowage.io/asset': JSON.stringify({ pool: POOL, path: `${POOL}/${pvName}`, node: activeNode }) } },
    spec: {
      capacity: { storage: '1Gi' },
      accessModes: ['ReadWriteOnce'],
      local: { path: `${POOL}/${pvName}` },
      nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: labelHostname, operator: 'In', values: [activeNode] }] }] } },
      persistentVolumeReclaimPolicy: 'Delete',
      storageClassName: CLASS,
      claimRef: { kind: 'PersistentVolumeClaim', namespace: NS, name: claimName, uid: `uid-${claimName}` },
    },
  })) as PersistentVolume;
  await assets.adopt(btrfsProvisioner, pvName, pv.metadata.uid!);
}

async function pod(name: string, claimName: string, nodeName?: string): Promise<void> {
  await store().create({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: NS },
    spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'app', image: 'app:1' }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName } }] },
  });
}

/** The receivers of `pv`'s transfers start (listen): the controller then queues the sends. */
async function receiversRun(pv: string): Promise<void> {
  for (const j of [...jobs.jobs.values()]) if (j.state === 'queued' && j.spec.kind === 'replica-receive' && j.spec.pvName === pv) jobs.progress(j.key, { doneBytes: '0', totalBytes: '0' });
  await sync(pv);
}

/** The agents' side of the transfers of `pv`: receivers start, then each send and receive succeeds (or the receive fails as given). */
async function finishTransfers(pv: string, receive: { ok: true } | { ok: false; parentMissing?: boolean } = { ok: true }): Promise<DataJobSpec[]> {
  await receiversRun(pv);
  const done: DataJobSpec[] = [];
  for (const j of [...jobs.jobs.values()]) {
    if ((j.state !== 'queued' && j.state !== 'running') || !('pvName' in j.spec) || j.spec.pvName !== pv) continue;
    if (j.spec.kind === 'replica-send') jobs.finish(j.key, { ok: true, doneBytes: '10', totalBytes: '10' });
    else if (j.spec.kind === 'replica-receive') jobs.finish(j.key, receive.ok ? { ok: true, doneBytes: '10', totalBytes: '10' } : { ok: false, error: 'parent missing', retryable: false, parentMissing: receive.parentMissing });
    else continue;
    done.push(j.spec);
  }
  return done;
}

const queuedOf = (kind: DataJobSpec['kind'], pv: string) => [...jobs.jobs.values()].filter((j) => j.spec.kind === kind && 'pvName' in j.spec && j.spec.pvName === pv && (j.state === 'queued' || j.state === 'running'));
const pvOf = async (name: string) => (await store().get('PersistentVolume', undefined, name));
const affinityOf = (pv: PersistentVolume) => pv.spec?.nodeAffinity?.required?.nodeSelectorTerms?.[0]?.matchExpressions?.[0]?.values;

beforeAll(async () => {
  ctx = await openApp();
  await ensureNamespaces(ctx.app, 'default', 'kube-system', NS);
  for (const [n, z] of [['node-a', 'z1'], ['node-b', 'z1'], ['node-c', 'z2'], ['node-d', 'z2']]) await node(n, z);
  assets = new AssetStore(store());
  replicas = new VolumeReplicaStore(store());
});
afterAll(async () => {
  await ctx?.app.close();
});

describe('replication controller', () => {
  beforeAll(() => {
    jobs = new MemoryJobQueue();
    spec = replicationSpec({ store: store(), log, events: new EventRecorder(store(), replicationComponent, log), jobs, now: () => clock });
  });

  it('adds a replica in another zone, transfers with one key, and writes the PV’s view once acknowledged', async () => {
    await replicatedVolume('pvc-00000000-0000-4000-8000-000000000001', 'one', 'node-a');
    const pv = 'pvc-00000000-0000-4000-8000-000000000001';
    await sync(pv);
    const rows = await replicas.list(pv);
    // node-c: another zone than node-a's, and the most room there.
    expect(rows.map((r) => [r.node, r.role])).toEqual([['node-c', 'replica']]);
    // The receive first; the send once the receiver listens.
    expect(queuedOf('replica-send', pv)).toHaveLength(0);
    expect(queuedOf('replica-receive', pv)).toHaveLength(1);
    await receiversRun(pv);
    const [send] = queuedOf('replica-send', pv);
    const [recv] = queuedOf('replica-receive', pv);
    expect(send.node).toBe('node-a');
    expect(recv.node).toBe('node-c');
    if (send.spec.kind !== 'replica-send' || recv.spec.kind !== 'replica-receive') throw new Error('kinds');
    expect(send.spec.transfer).toEqual(recv.spec.transfer);
    expect(send.spec.transfer.key).toMatch(/^[0-9a-f]{64}$/);
    expect(send.spec.receiver).toEqual({ node: 'node-c', endpoint: '10.0.0.3:7443' });
    expect(send.spec.parentPath).toBeUndefined();
    expect(send.spec.snapshotPath).toBe(`${POOL}/.stowage-replicas/${pv}/snap-1`);
    let view = readReplication((await pvOf(pv)).metadata.annotations);
    expect(view).toMatchObject({ activeNode: 'node-a', epoch: 0, replicas: [{ node: 'node-c', state: 'Rebuilding' }] });

    await finishTransfers(pv);
    later(1);
    await sync(pv);
    const [c] = await replicas.list(pv);
    expect(c.ackedSeq).toBe(1);
    view = readReplication((await pvOf(pv)).metadata.annotations);
    expect(view?.replicas[0]).toMatchObject({ node: 'node-c', state: 'InSync' });
    expect(affinityOf(await pvOf(pv))).toEqual(['node-a', 'node-c']);

    // Not due before the interval; due after it, incremental from the acknowledged snapshot.
    await sync(pv);
    expect(queuedOf('replica-send', pv)).toHaveLength(0);
    later(30);
    await sync(pv);
    await receiversRun(pv);
    const [next] = queuedOf('replica-send', pv);
    if (next?.spec.kind !== 'replica-send') throw new Error('no second transfer');
    expect(next.spec.seq).toBe(2);
    expect(next.spec.parentPath).toBe(`${POOL}/.stowage-replicas/${pv}/snap-1`);
    expect(next.spec.keep).toEqual(expect.arrayContaining([`${POOL}/.stowage-replicas/${pv}/snap-1`, `${POOL}/.stowage-replicas/${pv}/snap-2`]));
    await finishTransfers(pv);
    later(1);
    await sync(pv);
    expect((await replicas.list(pv))[0].ackedSeq).toBe(2);
  });

  it('warns when a replica falls behind and says when it is in sync again', async () => {
    const pv = 'pvc-00000000-0000-4000-8000-000000000001';
    later(30);
    await sync(pv);
    // The transfer never ends: the replica falls behind.
    later(100);
    await sync(pv);
    const behind = (await eventsAbout(ctx.app, await pvOf(pv))).filter((e) => e.reason === 'ReplicaBehind');
    expect(behind).toHaveLength(1);
    expect(behind[0].type).toBe('Warning');
    expect(readReplication((await pvOf(pv)).metadata.annotations)?.replicas[0].state).toBe('Behind');
    await finishTransfers(pv);
    later(1);
    await sync(pv);
    expect((await eventsAbout(ctx.app, await pvOf(pv))).some((e) => e.reason === 'ReplicaInSync')).toBe(true);
  });

  it('fails over only when the active node is not Ready and no pod of the claim is left on it', async () => {
    const pv = 'pvc-00000000-0000-4000-8000-000000000001';
    await pod('old', 'one', 'node-a');
    await setReady('node-a', false);
    await pod('new', 'one', 'node-c');
    await sync(pv);
    let record = await assets.get(btrfsProvisioner, pv);
    expect(record?.node).toBe('node-a');
    expect((await eventsAbout(ctx.app, await pvOf(pv))).some((e) => e.reason === 'FailoverWaiting' && e.message?.includes('"old"'))).toBe(true);

    await store().delete('Pod', NS, 'old');
    await sync(pv);
    record = await assets.get(btrfsProvisioner, pv);
    expect(record).toMatchObject({ node: 'node-c', state: 'creating' });
    expect(record?.details).toMatchObject({ epoch: 1, from: `${POOL}/.stowage-replicas/${pv}/snap-3` });
    expect((await replicas.list(pv)).map((r) => [r.node, r.role, r.ackedSeq])).toEqual([['node-a', 'fenced', 3]]);
    // The PV still names node-a until node-c's copy exists.
    expect(readReplication((await pvOf(pv)).metadata.annotations)?.activeNode).toBe('node-a');
    await assets.markCreated(record!, { appliedBytes: String(GiB) });
    await sync(pv);
    const view = readReplication((await pvOf(pv)).metadata.annotations);
    expect(view).toMatchObject({ activeNode: 'node-c', epoch: 1 });
    // The asset annotation names where the volume is now.
    expect(JSON.parse((await pvOf(pv)).metadata.annotations?.['stowage.io/asset'] ?? '{}')).toEqual({ pool: POOL, path: `${POOL}/${pv}`, node: 'node-c' });
    expect((await eventsAbout(ctx.app, await pvOf(pv))).some((e) => e.reason === 'FailedOver' && e.type === 'Warning')).toBe(true);
    // A fenced copy is not a place for pods: the affinity names node-c only (and the replica added meanwhile once it holds data).
    expect(affinityOf(await pvOf(pv))).not.toContain('node-a');
  });

  it('adds a replica to get back to the count while the old node is away, and fences the old copy when it returns', async () => {
    const pv = 'pvc-00000000-0000-4000-8000-000000000001';
    // node-a is away: it counts as a copy (fenced) so no third node is taken yet; nothing is sent to it.
    await sync(pv);
    expect(queuedOf('replica-remove', pv)).toHaveLength(0);
    await setReady('node-a', true);
    await sync(pv);
    const [fence] = queuedOf('replica-remove', pv);
    expect(fence.node).toBe('node-a');
    expect(fence.spec).toMatchObject({ removeVolume: true, keepSnapshots: true, epoch: 1 });
    jobs.finish(fence.key, { ok: true, doneBytes: '0', totalBytes: '0' });
    await sync(pv);
    expect((await replicas.list(pv)).map((r) => [r.node, r.role])).toEqual([['node-a', 'replica']]);
    expect((await eventsAbout(ctx.app, await pvOf(pv))).some((e) => e.reason === 'CopyFenced')).toBe(true);
    // Resynced from node-c, incremental from the snapshot both hold.
    await receiversRun(pv);
    const [send] = queuedOf('replica-send', pv);
    if (send?.spec.kind !== 'replica-send') throw new Error('no resync');
    expect(send.node).toBe('node-c');
    expect(send.spec.receiver.node).toBe('node-a');
    expect(send.spec.parentPath).toBe(`${POOL}/.stowage-replicas/${pv}/snap-3`);
    expect(send.spec.epoch).toBe(1);
    // The parent is gone on node-a after all: the next transfer is a full one.
    await finishTransfers(pv, { ok: false, parentMissing: true });
    later(11);
    await sync(pv);
    await receiversRun(pv);
    const [full] = queuedOf('replica-send', pv);
    if (full?.spec.kind !== 'replica-send') throw new Error('no full transfer');
    expect(full.spec.parentPath).toBeUndefined();
    await finishTransfers(pv);
    await store().delete('Pod', NS, 'new');
  });

  it('lets one of two racing promotions win', async () => {
    const pv = 'pvc-00000000-0000-4000-8000-000000000002';
    await replicatedVolume(pv, 'two', 'node-b', 3);
    await replicas.add(pv, 'node-c', POOL, 'replica', { seq: 4, at: clock });
    await replicas.add(pv, 'node-d', POOL, 'replica', { seq: 4, at: clock });
    const p = (to: string) => replicas.promote({ plugin: btrfsProvisioner, pvName: pv, fromNode: 'node-b', epoch: 0, to, fromPath: `${POOL}/.stowage-replicas/${pv}/snap-4`, seq: 4 });
    const results = await Promise.all([p('node-c'), p('node-d')]);
    expect(results.filter(Boolean)).toHaveLength(1);
    const record = await assets.get(btrfsProvisioner, pv);
    expect(record?.details.epoch).toBe(1);
    expect(['node-c', 'node-d']).toContain(record?.node);
    // A promotion decided on an older epoch loses.
    expect(await replicas.promote({ plugin: btrfsProvisioner, pvName: pv, fromNode: 'node-b', epoch: 0, to: 'node-c', fromPath: 'x', seq: 4 })).toBe(false);
  });

  it('moves the active copy on drain after a final transfer, with nothing lost', async () => {
    const pv = 'pvc-00000000-0000-4000-8000-000000000003';
    await replicatedVolume(pv, 'three', 'node-b');
    await sync(pv);
    const [row] = await replicas.list(pv);
    await finishTransfers(pv);
    later(1);
    await sync(pv);
    await pod('worker', 'three', 'node-b');
    const preview = await ctx.app.replication.drainPreview(admin, 'node-b');
    expect(preview.moves.map((m) => [m.pvName, m.to])).toContainEqual([pv, row.node]);
    expect(preview.podsToStop).toEqual([{ namespace: NS, name: 'worker', claims: ['three'] }]);
    // A dry run changes nothing.
    await ctx.app.replication.drain(admin, 'node-b', { dryRun: true });
    expect(((await store().get('Node', undefined, 'node-b'))).spec?.unschedulable).toBeUndefined();

    await ctx.app.replication.drain(admin, 'node-b');
    expect(((await store().get('Node', undefined, 'node-b'))).spec?.unschedulable).toBe(true);
    await sync(pv);
    // The pod is still there: nothing moves.
    expect((await assets.get(btrfsProvisioner, pv))?.node).toBe('node-b');
    await store().delete('Pod', NS, 'worker');
    const seqBefore = Number((await assets.get(btrfsProvisioner, pv))?.details.seq);
    await sync(pv);
    await sync(pv);
    await receiversRun(pv);
    const [final] = queuedOf('replica-send', pv);
    if (final?.spec.kind !== 'replica-send') throw new Error('no final transfer');
    expect(final.spec.seq).toBe(seqBefore + 1);
    expect((await assets.get(btrfsProvisioner, pv))?.node).toBe('node-b');
    await finishTransfers(pv);
    await sync(pv);
    const record = await assets.get(btrfsProvisioner, pv);
    expect(record).toMatchObject({ node: row.node, state: 'creating' });
    expect(record?.details).toMatchObject({ epoch: 1, from: `${POOL}/.stowage-replicas/${pv}/snap-${seqBefore + 1}` });
    expect(record?.details.moveTo).toBeUndefined();
    expect((await eventsAbout(ctx.app, await pvOf(pv))).some((e) => e.reason === 'ReplicaMoved')).toBe(true);
    await ctx.app.replication.uncordon(admin, 'node-b');
    expect(((await store().get('Node', undefined, 'node-b'))).spec?.unschedulable).toBe(false);
  });

  it('gives up a copy whose node has been gone for long and makes it again elsewhere', async () => {
    const pv = 'pvc-00000000-0000-4000-8000-000000000004';
    await replicatedVolume(pv, 'four', 'node-a');
    await replicas.add(pv, 'node-d', POOL, 'replica', { seq: 1, at: clock });
    const d = (await store().get('Node', undefined, 'node-d'));
    d.status = { conditions: [{ type: 'Ready', status: 'Unknown', reason: 'NodeStatusUnknown', message: 'gone', lastTransitionTime: new Date(clock.getTime() - 200_000).toISOString() }] };
    await store().update(d, { subresource: 'status' });
    await sync(pv);
    // Not yet: 200 s of the 300.
    expect((await replicas.list(pv)).map((r) => [r.node, r.role])).toEqual([['node-d', 'replica']]);
    later(120);
    await sync(pv);
    const rows = await replicas.list(pv);
    expect(rows.find((r) => r.node === 'node-d')?.role).toBe('removing');
    expect(rows.filter((r) => r.role === 'replica').map((r) => r.node)).toEqual(['node-c']);
    expect((await eventsAbout(ctx.app, await pvOf(pv))).some((e) => e.reason === 'ReplicaUnavailable' && e.message?.includes('given up'))).toBe(true);
    // The old copy is removed once its node can run the job: then its row goes.
    await sync(pv);
    const [drop] = queuedOf('replica-remove', pv);
    expect(drop).toMatchObject({ node: 'node-d' });
    expect(drop.spec).toMatchObject({ removeVolume: true, keepSnapshots: false });
    jobs.finish(drop.key, { ok: true, doneBytes: '0', totalBytes: '0' });
    await sync(pv);
    expect((await replicas.list(pv)).map((r) => r.node)).toEqual(['node-c']);
    await setReady('node-d', true);
  });

  it('refuses a drain by a developer and of a node that does not exist', async () => {
    const dev: UserPrincipal = { type: 'user', id: 'dev', name: 'dev', role: 'developer', namespaces: [NS] };
    await expect(ctx.app.replication.drainPreview(dev, 'node-a')).rejects.toMatchObject({ code: 'Forbidden' });
    await expect(ctx.app.replication.drain(admin, 'nope')).rejects.toMatchObject({ code: 'NotFound' });
    await expect(ctx.app.replication.drain(admin, '../etc')).rejects.toMatchObject({ code: 'Invalid' });
  });

  it('removes every copy when the volume is gone', async () => {
    const pv = 'pvc-00000000-0000-4000-8000-000000000003';
    const record = await assets.get(btrfsProvisioner, pv);
    await assets.remove(record!);
    await sync(pv);
    const removes = queuedOf('replica-remove', pv);
    expect(removes.length).toBeGreaterThan(0);
    expect(removes.every((j) => j.spec.kind === 'replica-remove' && !j.spec.keepSnapshots)).toBe(true);
    for (const j of removes) jobs.finish(j.key, { ok: true, doneBytes: '0', totalBytes: '0' });
    await sync(pv);
    expect(await replicas.list(pv)).toEqual([]);
  });
});

// The replication controller: keeps each replicated pool volume's copies (stowage.io/btrfs,
// class parameter `replicas`). Keys: pv/<name>, for every volume with an intent record that
// asks for replicas and every volume with replica rows (store/volume-replicas.ts). For one
// volume, each pass:
//  1. the volume is gone or being deleted: every copy's folder (and writable copy) is
//     removed by its node's agent (replica-remove jobs), then its row;
//  2. a copy of an older epoch (role fenced: its node held the active copy before a
//     failover or a move) loses its writable copy as soon as its node reports, and becomes a
//     replica resynced from the active one;
//  3. failover: the active node is not Ready, no pod of the claim is left on it, and a pod
//     of the claim is placed on a replica's node: that replica's last complete snapshot
//     becomes the active copy (VolumeReplicaStore.promote: a new epoch, in one statement);
//     a move an admin asked for (drain) does the same after a final transfer;
//  4. replicas short of the class's count are added on nodes with room (zones first);
//  5. transfers: each interval a new snapshot seq; each replica without a transfer in flight
//     gets one (a replica-send job on the active node, a replica-receive job on its node,
//     a one-time key between them); a receive that succeeds acknowledges the seq;
//  6. the PV says where its copies are (annotations, node affinity), and events tell of
//     replicas added, behind, in sync again, failovers and moves.
// Everything is derived from rows, jobs and objects, and every job key names its volume,
// node and seq: a kill -9 anywhere and a restart continue without doing anything twice.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { DataJob, DataJobQueue, DataJobSpec } from '../../contracts/data-jobs';
import { poolVolumePath } from '../../domain/btrfs-pool';
import { pooledPromises, roomOnNode, withCurrentPromises } from '../../domain/pool-capacity';
import { isNodeReady, readyCondition } from '../../domain/node-lifecycle';
import { isPodTerminated } from '../../domain/pod-claims';
import {
  assetOnNode,
  failoverTarget,
  pickReplicaNodes,
  readReplication,
  replicaState,
  replicaView,
  replicationAnnotations,
  zoneOf,
  type ReplicaFacts,
  type ReplicaView,
} from '../../domain/replication';
import { replicaSnapshotPath } from '../../domain/replication-paths';
import { metaTime } from '../../domain/meta-time';
import { reasons } from '../../domain/well-known/event-reasons';
import { annAsset, annReplicationEndpoint } from '../../domain/well-known/annotations';
import { labelHostname } from '../../domain/well-known/labels';
import { btrfsProvisioner } from '../../domain/well-known/provisioners';
import type { Node } from '../../resources/node/schema';
import type { PersistentVolume } from '../../resources/persistent-volume/schema';
import type { EventRecorder } from '../../services/event-recorder';
import { podsNamingClaim } from '../../store/consumer-queries';
import type { ObjectStore } from '../../store/object-store';
import { AssetStore, type AssetRecord } from '../../store/provisioned-assets';
import { VolumeReplicaStore, type ReplicaRow } from '../../store/volume-replicas';
import type { ControllerSpec, ReconcileContext, ReconcileResult } from '../runtime/controller';
import { write } from '../runtime/write';

export const replicationControllerName = 'replication';

export interface ReplicationDeps {
  store: ObjectStore;
  log: Logger;
  jobs: DataJobQueue;
  assets?: AssetStore;
  replicas?: VolumeReplicaStore;
  /** Its Event recorder (runtime/recorders.ts, keyed by its component). */
  events: EventRecorder;
  now?: () => Date;
}

export interface ReplicationOptions {
  /** How often every replicated volume is looked at (ms, default 2 s): transfers are due by time. */
  resyncMs?: number;
  /** How long a receiver waits for its sender (s, default 120). */
  receiveWaitSeconds?: number;
  /** A copy whose node has not been Ready this long is given up and made again elsewhere (s, default 300). */
  replaceAfterSeconds?: number;
}

/** The details of a replicated volume's intent record (beside the pool's, btrfs-pool.ts). */
export interface ReplicatedDetails {
  pool?: string;
  className?: string;
  limitBytes?: string;
  appliedBytes?: string;
  /** Copies in all (the class's `replicas`). */
  replicas?: number;
  intervalSeconds?: number;
  /** The active copy's epoch (raised by each promotion). */
  epoch?: number;
  /** The last snapshot seq asked for, and when. */
  seq?: number;
  seqAt?: string;
  /** Nodes the provisioner found for the first replicas. */
  replicaNodes?: string[];
  /** An admin's move (drain): the replica to become active, and the final transfer's seq once asked. */
  moveTo?: string;
  moveSeq?: number | null;
  from?: string;
}

const detailsOf = (r: AssetRecord) => r.details as ReplicatedDetails;
// Job keys: `<kind>/<pv>_<node>_<more>` (`_` is in neither a PV's nor a node's name).
const sendKey = (pv: string, node: string, seq: number) => `replica-send/${pv}_${node}_${seq}`;
const receiveKey = (pv: string, node: string, seq: number) => `replica-receive/${pv}_${node}_${seq}`;
const removeKey = (pv: string, node: string, what: 'fence' | 'drop', epoch: number) => `replica-remove/${pv}_${node}_${what}-${epoch}`;

/** Whether an intent record asks for replicas. */
const isReplicated = (r: AssetRecord | undefined): boolean => !!r && r.plugin === btrfsProvisioner && (detailsOf(r).replicas ?? 1) > 1;

export function replicationSpec(deps: ReplicationDeps, opts: ReplicationOptions = {}): ControllerSpec {
  const d = {
    ...deps,
    assets: deps.assets ?? new AssetStore(deps.store),
    replicas: deps.replicas ?? new VolumeReplicaStore(deps.store),
    now: deps.now ?? (() => new Date()),
  };
  const keys = async () => (await d.replicas.volumes(btrfsProvisioner)).map((n) => `pv/${n}`);
  return {
    name: replicationControllerName,
    concurrency: 4,
    watch: {
      kinds: ['PersistentVolume'],
      keysFor: (e) => (e.kind === 'PersistentVolume' && readReplication(e.object.metadata?.annotations ?? undefined) ? [`pv/${e.name}`] : []),
    },
    listKeys: keys,
    resync: { everyMs: opts.resyncMs ?? 2_000, listKeys: keys },
    reconcile: async (key, ctx) => (key.startsWith('pv/') ? reconcileVolume(d, ctx, key.slice(3), opts) : undefined),
  };
}

type Deps = Required<ReplicationDeps>;

/** Warnings a pass would repeat (a failover waiting, no node for a replica): once a minute per volume and text. */
const REPEAT_MS = 60_000;
const lastSaid = new Map<string, number>();
async function sayOnce(d: Deps, pv: PersistentVolume, type: 'Normal' | 'Warning', reason: string, message: string): Promise<void> {
  const key = `${pv.metadata.uid ?? ''}|${reason}|${message}`;
  const at = d.now().getTime();
  if (at - (lastSaid.get(key) ?? -Infinity) < REPEAT_MS) return;
  if (lastSaid.size > 10_000) lastSaid.clear();
  lastSaid.set(key, at);
  await d.events.record(pv, type, reason, message);
}

async function reconcileVolume(d: Deps, ctx: ReconcileContext, pvName: string, opts: ReplicationOptions): Promise<ReconcileResult | void> {
  const record = await d.assets.get(btrfsProvisioner, pvName);
  let rows = await d.replicas.list(pvName);
  if (!record || record.state === 'deleting' || !isReplicated(record)) {
    if (rows.length === 0 && !(record && isReplicated(record))) return;
    return dropAll(d, pvName, record, rows);
  }
  const det = detailsOf(record);
  const pv = await d.store.tryGet('PersistentVolume', undefined, pvName);
  // Before the PV is saved, the claim may still give the volume up: nothing to copy yet.
  if (!pv || !record.details.pvUid) return { requeueAfter: 2_000 };
  const now = d.now();
  const interval = det.intervalSeconds ?? 30;
  const epoch = det.epoch ?? 0;
  const nodes = new Map<string, Node>();
  for (const n of (await d.store.list('Node', {})).items) nodes.set(n.metadata.name ?? '', n);
  const ready = (n: string) => isNodeReady(nodes.get(n));

  // A promotion in the agent's hands: the new active copy is being made from its snapshot.
  if (record.state === 'creating') {
    await publishView(d, ctx, pv, record, rows, ready, now);
    return { requeueAfter: 1_000 };
  }

  // Fenced copies: removed from nodes that report, then replicas again.
  for (const r of rows.filter((x) => x.role === 'fenced')) {
    if (!ready(r.node)) continue;
    const job = await d.jobs.ensure(removeKey(pvName, r.node, 'fence', epoch), r.node, { kind: 'replica-remove', pvName, pool: r.pool, epoch, removeVolume: true, keepSnapshots: true });
    if (job.state === 'succeeded') {
      await d.replicas.setRole(pvName, r.node, 'replica');
      await d.jobs.forget(job.key);
      await d.events.record(pv, 'Normal', reasons.copyFenced, `the copy on node "${r.node}" from before epoch ${epoch} was removed; node "${r.node}" holds a replica again and is resynced from node "${record.node}"`);
    } else if (job.state === 'failed') {
      await d.jobs.retry(job.key);
    }
  }
  // Replicas no longer wanted (a node gone for good): dropped.
  for (const r of rows.filter((x) => x.role === 'removing')) await dropCopy(d, pvName, r, true);
  rows = await d.replicas.list(pvName);

  // Transfers that ended.
  for (const r of rows.filter((x) => x.role === 'replica' && x.transfer)) await settleTransfer(d, pv, record, rows, r, nodes, interval, now);
  rows = await d.replicas.list(pvName);

  // Failover or a move.
  const claim = pv.spec?.claimRef;
  const pods = claim?.namespace && claim.name ? (await podsNamingClaim(d.store, claim.namespace, claim.name)).filter((p) => !isPodTerminated(p) && !p.metadata.deletionTimestamp) : [];
  const facts: ReplicaFacts[] = rows.filter((r) => r.role !== 'removing').map((r) => factsOf(r, ready(r.node)));
  const failover = failoverTarget({ activeNode: record.node, activeNodeReady: ready(record.node), pods: pods.map((p) => ({ name: p.metadata.name ?? '', node: p.spec?.nodeName ?? '' })), replicas: facts });
  if (failover && 'promote' in failover) {
    const r = rows.find((x) => x.node === failover.promote)!;
    const promoted = await promote(d, record, r);
    if (promoted) {
      const lost = r.ackedAt ? Math.max(0, Math.round((now.getTime() - r.ackedAt.getTime()) / 1000)) : undefined;
      const message = `node "${record.node}" is not Ready: the replica on node "${r.node}" is the active copy now (epoch ${epoch + 1}), with the data of its last transfer (taken ${r.ackedAt ? metaTime(r.ackedAt) : '?'}${lost !== undefined ? `, ${lost} s before the failover` : ''})`;
      await d.events.record(pv, 'Warning', reasons.failedOver, message);
      d.log.warn({ pv: pvName, from: record.node, to: r.node, epoch: epoch + 1 }, 'replicated volume failed over');
    }
    return { requeueAfter: 500 };
  }
  if (failover && 'wait' in failover) {
    await sayOnce(d, pv, 'Warning', reasons.failoverWaiting, failover.wait);
  }
  if (det.moveTo) {
    const step = await continueMove(d, pv, record, rows, pods, ready, now);
    // The record changed (moved, or the final seq asked for): look again with it.
    if (step !== 'waiting') return { requeueAfter: 200 };
  }

  // A copy whose node has been gone for long is given up (removed if the node ever
  // returns) and made again elsewhere.
  const giveUpMs = (opts.replaceAfterSeconds ?? 300) * 1000;
  for (const r of rows.filter((x) => (x.role === 'replica' || x.role === 'fenced') && !ready(x.node))) {
    const since = notReadySince(nodes.get(r.node));
    if (since === undefined || now.getTime() - since < giveUpMs) continue;
    if (r.transfer) await forgetTransfer(d, pvName, r.node, r.transfer.seq);
    await d.replicas.setRole(pvName, r.node, 'removing');
    await d.events.record(pv, 'Warning', reasons.replicaUnavailable, `the copy on node "${r.node}" is given up: the node has not been Ready for ${Math.round((now.getTime() - since) / 1000)} s; a replica is made on another node, and the old copy is removed if the node returns`);
  }
  rows = await d.replicas.list(pvName);

  // Replicas short of the count.
  const want = (det.replicas ?? 1) - 1;
  const have = rows.filter((r) => r.role === 'replica' || r.role === 'fenced');
  if (have.length < want) await addReplicas(d, pv, record, have, want - have.length, nodes, ready);
  rows = await d.replicas.list(pvName);

  // Transfers due.
  if (ready(record.node)) await startTransfers(d, record, rows, nodes, ready, now, opts);
  rows = await d.replicas.list(pvName);

  await warnBehind(d, pv, rows, ready, interval, now);
  await publishView(d, ctx, pv, record, rows, ready, now);
  // A transfer in flight is looked at again soon: its send is queued as soon as its receiver listens.
  return rows.some((r) => r.transfer) ? { requeueAfter: 300 } : undefined;
}

function factsOf(r: ReplicaRow, nodeReady: boolean, progress?: ReplicaFacts['progress']): ReplicaFacts {
  return {
    node: r.node,
    role: r.role === 'fenced' ? 'fenced' : 'replica',
    nodeReady,
    ...(r.ackedSeq !== undefined ? { ackedSeq: r.ackedSeq } : {}),
    ...(r.ackedAt ? { ackedAt: r.ackedAt } : {}),
    ...(progress ? { progress } : {}),
    ...(r.error ? { error: r.error } : {}),
  };
}

async function promote(d: Deps, record: AssetRecord, r: ReplicaRow): Promise<boolean> {
  if (r.ackedSeq === undefined) return false;
  // A transfer in flight to the new active copy is of no use any more.
  if (r.transfer) await forgetTransfer(d, record.pvName, r.node, r.transfer.seq);
  return d.replicas.promote({
    plugin: btrfsProvisioner,
    pvName: record.pvName,
    fromNode: record.node,
    epoch: detailsOf(record).epoch ?? 0,
    to: r.node,
    fromPath: replicaSnapshotPath(r.pool, record.pvName, r.ackedSeq),
    seq: r.ackedSeq,
  });
}

/**
 * An admin's move of the active copy to a replica (drain): once no pod of the claim runs on
 * the active node, one final transfer to the target, then the switch. True when it switched.
 */
async function continueMove(d: Deps, pv: PersistentVolume, record: AssetRecord, rows: ReplicaRow[], pods: { spec?: { nodeName?: string | null } | null; metadata: { name?: string } }[], ready: (n: string) => boolean, now: Date): Promise<'moved' | 'asked' | 'waiting'> {
  const det = detailsOf(record);
  const target = rows.find((r) => r.node === det.moveTo && r.role === 'replica');
  if (!target || !ready(target.node) || !ready(record.node)) return 'waiting';
  if (pods.some((p) => p.spec?.nodeName === record.node)) return 'waiting';
  if (det.moveSeq == null) {
    // The final transfer: a new snapshot, taken after the last pod left.
    if (target.transfer) return 'waiting';
    const seq = (det.seq ?? 0) + 1;
    await d.assets.setDetails(record, { seq, seqAt: now.toISOString(), moveSeq: seq });
    return 'asked';
  }
  if (target.ackedSeq === undefined || target.ackedSeq < det.moveSeq) return 'waiting';
  if (!(await promote(d, record, target))) return 'waiting';
  await d.events.record(pv, 'Normal', reasons.replicaMoved, `the active copy moved from node "${record.node}" to node "${target.node}" after a final transfer (epoch ${(det.epoch ?? 0) + 1}); nothing was lost`);
  return 'moved';
}

async function addReplicas(d: Deps, pv: PersistentVolume, record: AssetRecord, have: ReplicaRow[], count: number, nodes: Map<string, Node>, ready: (n: string) => boolean): Promise<void> {
  const det = detailsOf(record);
  const bytes = BigInt(det.limitBytes ?? det.appliedBytes ?? '0');
  const capacities = withCurrentPromises(await d.store.current('CSIStorageCapacity'), pooledPromises(await d.assets.promisedByPool(btrfsProvisioner)));
  const candidates = [...nodes.keys()].map((node) => {
    const room = det.className ? roomOnNode(capacities, det.className, { [labelHostname]: node }) : undefined;
    return { node, zone: zoneOf(nodes.get(node)?.metadata.labels ?? undefined), ready: ready(node), ...(room !== undefined ? { roomBytes: room } : {}) };
  });
  const taken = [record.node, ...have.map((r) => r.node)].map((node) => ({ node, zone: zoneOf(nodes.get(node)?.metadata.labels ?? undefined) }));
  // The provisioner's first choices when they still fit, else the rule's.
  const preferred = (det.replicaNodes ?? []).filter((n) => !taken.some((t) => t.node === n) && candidates.some((c) => c.node === n && c.ready && c.roomBytes !== undefined && c.roomBytes >= bytes));
  const picked = [...preferred, ...pickReplicaNodes(candidates, [...taken, ...preferred.map((node) => ({ node, zone: zoneOf(nodes.get(node)?.metadata.labels ?? undefined) }))], count - preferred.length, bytes)].slice(0, count);
  for (const node of picked) {
    await d.replicas.add(record.pvName, node, det.pool ?? '', 'replica');
    await d.events.record(pv, 'Normal', reasons.replicaAdded, `a replica is being made on node "${node}" (a full transfer from node "${record.node}")`);
  }
  if (picked.length < count) {
    await sayOnce(d, pv, 'Warning', reasons.replicaUnavailable, `${count - picked.length} of the class's replicas have no node: no other Ready node has room for ${String(bytes)} bytes in pool ${det.pool ?? '?'}`);
  }
}

async function startTransfers(d: Deps, record: AssetRecord, rows: ReplicaRow[], nodes: Map<string, Node>, ready: (n: string) => boolean, now: Date, opts: ReplicationOptions): Promise<void> {
  const det = detailsOf(record);
  const interval = (det.intervalSeconds ?? 30) * 1000;
  const replicas = rows.filter((r) => r.role === 'replica');
  const idle = replicas.filter((r) => !r.transfer && ready(r.node) && endpointOf(nodes.get(r.node)));
  if (idle.length === 0) return;
  let seq = det.seq ?? 0;
  let seqAt = det.seqAt ? new Date(det.seqAt) : undefined;
  // A failed transfer is tried again after a pause, not on every pass.
  const retryAfter = (r: ReplicaRow) => (r.error ? Math.min(interval, 10_000) : 0);
  const wants = idle.filter((r) => (r.ackedSeq === undefined || r.ackedSeq < seq || !seqAt || now.getTime() - seqAt.getTime() >= interval) && (!r.error || now.getTime() - r.updatedAt.getTime() >= retryAfter(r)));
  if (wants.length === 0) return;
  const due = !seqAt || now.getTime() - seqAt.getTime() >= interval || seq === 0 || wants.some((r) => r.ackedSeq !== undefined && r.ackedSeq >= seq);
  if (due && det.moveSeq == null) {
    seq += 1;
    seqAt = now;
    await d.assets.setDetails(record, { seq, seqAt: now.toISOString() });
  }
  const pool = det.pool ?? '';
  for (const r of wants) {
    if (r.ackedSeq !== undefined && r.ackedSeq >= seq) continue;
    const transfer = { id: `${seq}-${randomBytes(8).toString('hex')}`, key: randomBytes(32).toString('hex') };
    const parentSeq = r.ackedSeq;
    if (!(await d.replicas.beginTransfer(record.pvName, r.node, { seq, startedAt: (seqAt ?? now).toISOString(), ...transfer, ...(parentSeq !== undefined ? { parentSeq } : {}) }))) continue;
    const parentPath = parentSeq !== undefined ? replicaSnapshotPath(pool, record.pvName, parentSeq) : undefined;
    const common = { pvName: record.pvName, pool, seq, snapshotPath: replicaSnapshotPath(pool, record.pvName, seq), ...(parentPath ? { parentPath } : {}), epoch: det.epoch ?? 0, transfer };
    const receive: DataJobSpec = { kind: 'replica-receive', ...common, sender: { node: record.node }, keep: parentPath ? [parentPath] : [], waitSeconds: opts.receiveWaitSeconds ?? 120 };
    // The receive first: the send is queued once the receiver listens for it (settleTransfer).
    await d.jobs.ensure(receiveKey(record.pvName, r.node, seq), r.node, receive);
  }
}

/** The send half of a transfer, queued once its receiver runs: what the active copy's node sends, to whom, and what it keeps. */
function sendSpecOf(record: AssetRecord, rows: ReplicaRow[], r: ReplicaRow, endpoint: string): DataJobSpec {
  const det = detailsOf(record);
  const pool = det.pool ?? '';
  const t = r.transfer!;
  const replicas = rows.filter((x) => x.role === 'replica');
  const seqs = [...replicas.map((x) => x.ackedSeq), ...replicas.map((x) => x.transfer?.seq), t.seq].filter((x): x is number => x !== undefined);
  const keep = [...new Set(seqs)].sort((a, b) => b - a).slice(0, 16).map((x) => replicaSnapshotPath(pool, record.pvName, x));
  return {
    kind: 'replica-send',
    pvName: record.pvName,
    pool,
    seq: t.seq,
    snapshotPath: replicaSnapshotPath(pool, record.pvName, t.seq),
    ...(t.parentSeq !== undefined ? { parentPath: replicaSnapshotPath(pool, record.pvName, t.parentSeq) } : {}),
    epoch: det.epoch ?? 0,
    transfer: { id: t.id, key: t.key },
    volumePath: poolVolumePath(pool, record.pvName),
    receiver: { node: r.node, endpoint },
    keep,
  };
}

/** Since when a node has not been Ready (ms), from its Ready condition; undefined when unknown (a gone node: long ago). */
function notReadySince(n: Node | undefined): number | undefined {
  if (!n) return 0;
  const t = Date.parse(readyCondition(n)?.lastTransitionTime ?? '');
  return Number.isFinite(t) ? t : undefined;
}

function endpointOf(n: Node | undefined): string | undefined {
  const e = n?.metadata.annotations?.[annReplicationEndpoint];
  return typeof e === 'string' && e.length > 0 ? e : undefined;
}

/** A transfer in flight: acknowledged when its receive succeeded, failed when either side failed for good or it took too long. */
async function settleTransfer(d: Deps, pv: PersistentVolume, record: AssetRecord, rows: ReplicaRow[], r: ReplicaRow, nodes: Map<string, Node>, intervalSeconds: number, now: Date): Promise<void> {
  const t = r.transfer!;
  const [recv, sent] = await Promise.all([d.jobs.get(receiveKey(record.pvName, r.node, t.seq)), d.jobs.get(sendKey(record.pvName, r.node, t.seq))]);
  let send = sent;
  const endpoint = endpointOf(nodes.get(r.node));
  if (!send && recv?.state === 'running' && endpoint && record.state === 'created') {
    send = await d.jobs.ensure(sendKey(record.pvName, r.node, t.seq), record.node, sendSpecOf(record, rows, r, endpoint));
  }
  if (recv?.state === 'succeeded') {
    const wasBehind = replicaState(factsOf(r, true), intervalSeconds, now) === 'Behind' || r.ackedSeq === undefined;
    const moved = recv.result?.ok ? recv.result.doneBytes : undefined;
    await d.replicas.endTransfer(record.pvName, r.node, t.seq, { acked: new Date(t.startedAt), ...(moved && /^\d{1,20}$/.test(moved) ? { bytes: BigInt(moved) } : {}) });
    await forgetTransfer(d, record.pvName, r.node, t.seq);
    if (wasBehind || r.warned) {
      await d.replicas.setWarned(record.pvName, r.node, false);
      await d.events.record(pv, 'Normal', reasons.replicaInSync, `the replica on node "${r.node}" holds the snapshot taken ${t.startedAt}`);
    }
    return;
  }
  // A failed attempt ends the transfer at once (the job queue would try it again after a
  // growing backoff, its partner waiting): a new one is begun after a short pause.
  const failed = [recv, send].find((j): j is DataJob => j?.state === 'failed' || (j?.result !== undefined && !j.result.ok));
  const lost = !recv || (!send && recv.state !== 'queued' && recv.state !== 'running');
  const tooLong = now.getTime() - new Date(t.startedAt).getTime() > Math.max(600_000, 5 * intervalSeconds * 1000);
  if (!failed && !lost && !tooLong) return;
  const result = failed?.result;
  const error = lost ? 'the transfer’s jobs are gone' : tooLong ? 'the transfer took too long' : result && !result.ok ? result.error : `${failed?.spec.kind} failed`;
  const full = !!(result && !result.ok && result.parentMissing);
  await d.replicas.endTransfer(record.pvName, r.node, t.seq, { error, full });
  await forgetTransfer(d, record.pvName, r.node, t.seq);
  d.log.warn({ pv: record.pvName, node: r.node, seq: t.seq, error }, 'replication transfer failed; trying again');
}

async function forgetTransfer(d: Deps, pvName: string, node: string, seq: number): Promise<void> {
  await d.jobs.forget(receiveKey(pvName, node, seq));
  await d.jobs.forget(sendKey(pvName, node, seq));
}

async function warnBehind(d: Deps, pv: PersistentVolume, rows: ReplicaRow[], ready: (n: string) => boolean, intervalSeconds: number, now: Date): Promise<void> {
  for (const r of rows.filter((x) => x.role === 'replica')) {
    const state = replicaState(factsOf(r, ready(r.node)), intervalSeconds, now);
    if ((state === 'Behind' || state === 'Unreachable') && r.ackedAt && !r.warned) {
      const behind = Math.round((now.getTime() - r.ackedAt.getTime()) / 1000);
      await d.replicas.setWarned(pv.metadata.name ?? '', r.node, true);
      await d.events.record(pv, 'Warning', reasons.replicaBehind, `the replica on node "${r.node}" is ${behind} s behind (interval ${intervalSeconds} s)${r.error ? `: ${r.error.slice(0, 300)}` : state === 'Unreachable' ? ': its node is not Ready' : ''}`);
    }
  }
}

/** The PV's annotations and node affinity: the active node, the epoch, and every node holding a complete copy. */
async function publishView(d: Deps, ctx: ReconcileContext, pv: PersistentVolume, record: AssetRecord, rows: ReplicaRow[], ready: (n: string) => boolean, now: Date): Promise<void> {
  const det = detailsOf(record);
  const interval = det.intervalSeconds ?? 30;
  const jobs = await Promise.all(rows.map((r) => (r.transfer ? d.jobs.get(receiveKey(record.pvName, r.node, r.transfer.seq)) : Promise.resolve(undefined))));
  const replicas: ReplicaView[] = rows
    .filter((r) => r.role !== 'removing')
    .map((r, i) => {
      const p = jobs[i]?.progress;
      const rebuilding = r.ackedSeq === undefined && p && p.totalBytes !== '0';
      return replicaView(factsOf(r, ready(r.node), rebuilding ? { doneBytes: p.doneBytes, totalBytes: p.totalBytes } : undefined), interval, now);
    });
  // The active node is the record's only once its copy exists (a promotion in progress keeps the old one named, fenced).
  const activeNode = record.state === 'created' ? record.node : (readReplication(pv.metadata.annotations ?? undefined)?.activeNode ?? record.node);
  const epoch = record.state === 'created' ? (det.epoch ?? 0) : Math.max(0, (det.epoch ?? 0) - 1);
  const annotations = replicationAnnotations({ activeNode, epoch, replicas });
  // The asset annotation names the node holding the volume: the active one after a failover or a move.
  const asset = assetOnNode(pv.metadata.annotations?.[annAsset], activeNode);
  if (asset) annotations[annAsset] = asset;
  const holders = [activeNode, ...rows.filter((r) => r.role === 'replica' && r.ackedSeq !== undefined && r.node !== activeNode).map((r) => r.node)];
  const affinity = { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: labelHostname, operator: 'In', values: holders }] }] } };
  const same = Object.entries(annotations).every(([k, v]) => pv.metadata.annotations?.[k] === v) && JSON.stringify(pv.spec?.nodeAffinity) === JSON.stringify(affinity);
  if (same) return;
  await write(d, ctx, async (t) => {
    const cur = await t.get('PersistentVolume', undefined, pv.metadata.name ?? '');
    if (!cur || cur.metadata.uid !== pv.metadata.uid) return;
    const first = !readReplication(cur.metadata.annotations ?? undefined);
    cur.metadata.annotations = { ...(cur.metadata.annotations ?? {}), ...annotations };
    // The affinity of a volume may change once it is marked replicated (validation.ts): the marks first.
    const marked = first ? await t.update(cur) : cur;
    marked.spec = { ...(marked.spec ?? {}), nodeAffinity: affinity };
    await t.update(marked);
  });
}

/** The volume is gone (or no longer replicated): every copy's folder removed by its node, then its row. */
async function dropAll(d: Deps, pvName: string, record: AssetRecord | undefined, rows: ReplicaRow[]): Promise<ReconcileResult | void> {
  // The active node's snapshot folder goes too (its writable copy is the pool keeper's).
  if (record && record.state === 'deleting' && !rows.some((r) => r.node === record.node)) {
    await d.replicas.add(pvName, record.node, detailsOf(record).pool ?? '', 'removing');
    rows = await d.replicas.list(pvName);
  }
  let left = 0;
  for (const r of rows) {
    if (r.transfer) await forgetTransfer(d, pvName, r.node, r.transfer.seq);
    if (r.role !== 'removing') await d.replicas.setRole(pvName, r.node, 'removing');
    const done = await dropCopy(d, pvName, r, !record || r.node !== record.node);
    if (!done) left++;
  }
  return left > 0 ? { requeueAfter: 2_000 } : undefined;
}

/** Removes one copy through its node's agent; true once it is gone (its row too). */
async function dropCopy(d: Deps, pvName: string, r: ReplicaRow, removeVolume: boolean): Promise<boolean> {
  const key = removeKey(pvName, r.node, 'drop', 0);
  const job = await d.jobs.ensure(key, r.node, { kind: 'replica-remove', pvName, pool: r.pool, epoch: 0, removeVolume, keepSnapshots: false });
  if (job.state === 'succeeded') {
    await d.replicas.remove(pvName, r.node);
    await d.jobs.forget(key);
    return true;
  }
  if (job.state === 'failed') await d.jobs.retry(key);
  return false;
}

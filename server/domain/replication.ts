// Replicated pool volumes (stowage.io/btrfs, class parameter `replicas`) as pure rules: the
// class parameters, where replicas go, when a replica counts as in sync or behind, when a
// replica may be promoted (failover, or an admin's move), what the PV says about its
// copies (annotations readable by any client), and which nodes a pod of the volume may be
// placed on. Pure: no I/O.
import { parseEvery } from './snapshot-schedule';
import { labelZone } from './well-known/labels';
import { metaTime } from './meta-time';
import { annReplicationActiveNode, annReplicationEpoch, annReplicationReplicas } from './well-known/annotations';

export const REPLICAS_MIN = 1;
export const REPLICAS_MAX = 3;
export const DEFAULT_INTERVAL_SECONDS = 30;
export const MIN_INTERVAL_SECONDS = 5;
export const MAX_INTERVAL_SECONDS = 3600;

export interface ReplicationParameters {
  /** Copies in all, the active one included (1: not replicated). */
  replicas: number;
  intervalSeconds: number;
}

/** The class parameters `replicas` and `replicationInterval`, or why they are wrong. */
export function replicationParameters(parameters: Record<string, string | undefined>): { value: ReplicationParameters; problems: string[] } {
  const problems: string[] = [];
  let replicas = 1;
  const r = parameters.replicas;
  if (r !== undefined) {
    if (!/^\d{1,2}$/.test(r) || Number(r) < REPLICAS_MIN || Number(r) > REPLICAS_MAX) problems.push(`parameter "replicas": must be a whole number from ${REPLICAS_MIN} to ${REPLICAS_MAX}, not ${JSON.stringify(r.slice(0, 40))}`);
    else replicas = Number(r);
  }
  let intervalSeconds = DEFAULT_INTERVAL_SECONDS;
  const i = parameters.replicationInterval;
  if (i !== undefined) {
    const ms = parseEvery(i);
    if (ms === undefined) problems.push(`parameter "replicationInterval": not a duration (e.g. 30s, 2m): ${JSON.stringify(i.slice(0, 40))}`);
    else if (ms < MIN_INTERVAL_SECONDS * 1000 || ms > MAX_INTERVAL_SECONDS * 1000) problems.push(`parameter "replicationInterval": must be from ${MIN_INTERVAL_SECONDS}s to ${MAX_INTERVAL_SECONDS / 60}m, not ${i}`);
    else intervalSeconds = Math.round(ms / 1000);
    if (replicas === 1 && r !== undefined) problems.push('parameter "replicationInterval" has no effect with "replicas" 1');
  }
  return { value: { replicas, intervalSeconds }, problems };
}

/** A node that could hold a copy: its name, zone, whether it is Ready, and the room its pool of the class has. */
export interface ReplicaCandidate {
  node: string;
  zone?: string;
  ready: boolean;
  /** Room for a new volume in the class's pool on it; undefined: no such pool reported. */
  roomBytes?: bigint;
}

/**
 * Nodes for `count` new replicas of a volume of `bytes`: Ready, not holding a copy already
 * (`taken`), with room in the pool; zones not used by the copies yet first, then the most
 * room, then the name (deterministic). Fewer than `count` when fewer fit.
 */
export function pickReplicaNodes(candidates: ReplicaCandidate[], taken: { node: string; zone?: string }[], count: number, bytes: bigint): string[] {
  const takenNodes = new Set(taken.map((t) => t.node));
  const zones = new Set(taken.map((t) => t.zone).filter((z): z is string => !!z));
  const fit = candidates.filter((c) => c.ready && !takenNodes.has(c.node) && c.roomBytes !== undefined && c.roomBytes >= bytes);
  const chosen: string[] = [];
  while (chosen.length < count) {
    const left = fit.filter((c) => !chosen.includes(c.node));
    if (left.length === 0) break;
    left.sort((a, b) => {
      const za = a.zone && zones.has(a.zone) ? 1 : 0;
      const zb = b.zone && zones.has(b.zone) ? 1 : 0;
      if (za !== zb) return za - zb;
      if (a.roomBytes !== b.roomBytes) return a.roomBytes! > b.roomBytes! ? -1 : 1;
      return a.node.localeCompare(b.node);
    });
    chosen.push(left[0].node);
    if (left[0].zone) zones.add(left[0].zone);
  }
  return chosen;
}

/** Why a claim cannot have its replicas, in the words of upstream's provisioning failures. */
export function notEnoughReplicaNodes(className: string, want: number, found: number): string {
  return `not enough nodes with room in the pool of StorageClass "${className}" for ${want} replica${want === 1 ? '' : 's'} besides the active copy: ${found} available`;
}

export type ReplicaState = 'Rebuilding' | 'InSync' | 'Behind' | 'Unreachable' | 'Fenced';

/** One replica as the PV's annotation and the dashboard show it. */
export interface ReplicaView {
  node: string;
  state: ReplicaState;
  /** When the snapshot it holds last was taken (its data is that old at worst). */
  lastSyncTime?: string;
  /** A transfer in flight: bytes done and (estimated) total. */
  progress?: { doneBytes: string; totalBytes: string };
  error?: string;
}

/** A replica's row as the controller keeps it. */
export interface ReplicaFacts {
  node: string;
  role: 'replica' | 'fenced';
  ackedSeq?: number;
  ackedAt?: Date;
  nodeReady: boolean;
  progress?: { doneBytes: string; totalBytes: string };
  error?: string;
}

/** How far behind a replica may fall before it is Behind: twice the interval and 30 s for the transfer. */
export const behindAfterMs = (intervalSeconds: number) => (2 * intervalSeconds + 30) * 1000;

/** A replica's state from its facts. */
export function replicaState(f: ReplicaFacts, intervalSeconds: number, now: Date): ReplicaState {
  if (f.role === 'fenced') return 'Fenced';
  if (!f.nodeReady) return 'Unreachable';
  if (f.ackedSeq === undefined || !f.ackedAt) return 'Rebuilding';
  return now.getTime() - f.ackedAt.getTime() > behindAfterMs(intervalSeconds) ? 'Behind' : 'InSync';
}

export function replicaView(f: ReplicaFacts, intervalSeconds: number, now: Date): ReplicaView {
  return {
    node: f.node,
    state: replicaState(f, intervalSeconds, now),
    ...(f.ackedAt ? { lastSyncTime: metaTime(f.ackedAt) } : {}),
    ...(f.progress ? { progress: f.progress } : {}),
    ...(f.error ? { error: f.error.slice(0, 300) } : {}),
  };
}

/** Seconds of writes a failover now would lose with this replica (undefined: it holds nothing yet). */
export function behindSeconds(v: Pick<ReplicaView, 'lastSyncTime'>, now: Date): number | undefined {
  const t = v.lastSyncTime ? Date.parse(v.lastSyncTime) : NaN;
  return Number.isFinite(t) ? Math.max(0, Math.round((now.getTime() - t) / 1000)) : undefined;
}

/** What a PV says of its copies (annotations). */
export interface ReplicationView {
  activeNode: string;
  epoch: number;
  replicas: ReplicaView[];
}

/** The PV annotations for a replicated volume's copies. */
export function replicationAnnotations(v: ReplicationView): Record<string, string> {
  return {
    [annReplicationActiveNode]: v.activeNode,
    [annReplicationEpoch]: String(v.epoch),
    [annReplicationReplicas]: JSON.stringify(v.replicas),
  };
}

/**
 * The volume's asset annotation (`stowage.io/asset`, JSON with the node that holds the volume)
 * naming `node`: what a failover or a move writes with the new active node. Undefined when the
 * annotation is absent, unreadable or names the node already.
 */
export function assetOnNode(asset: string | undefined, node: string): string | undefined {
  if (!asset) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(asset);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const o = parsed as Record<string, unknown>; // a JSON object, read field by field
  if (o.node === node || typeof o.node !== 'string') return undefined;
  return JSON.stringify({ ...o, node });
}

const STATES: ReadonlySet<string> = new Set(['Rebuilding', 'InSync', 'Behind', 'Unreachable', 'Fenced']);

/** What a PV's annotations say of its copies; undefined for a volume that is not replicated (or unreadable annotations). */
export function readReplication(annotations: Record<string, string> | undefined | null): ReplicationView | undefined {
  const active = annotations?.[annReplicationActiveNode];
  if (!active) return undefined;
  const epoch = Number(annotations?.[annReplicationEpoch] ?? '0');
  let replicas: ReplicaView[] = [];
  try {
    const raw: unknown = JSON.parse(annotations?.[annReplicationReplicas] ?? '[]');
    if (Array.isArray(raw)) {
      replicas = raw
        .slice(0, 8)
        .filter((r): r is Record<string, unknown> => !!r && typeof r === 'object' && typeof (r as Record<string, unknown>).node === 'string' && STATES.has(String((r as Record<string, unknown>).state)))
        .map((r) => ({
          node: String(r.node),
          state: r.state as ReplicaState,
          ...(typeof r.lastSyncTime === 'string' ? { lastSyncTime: r.lastSyncTime } : {}),
          ...(r.progress && typeof r.progress === 'object' ? { progress: { doneBytes: String((r.progress as Record<string, unknown>).doneBytes ?? '0'), totalBytes: String((r.progress as Record<string, unknown>).totalBytes ?? '0') } } : {}),
          ...(typeof r.error === 'string' ? { error: r.error } : {}),
        }));
    }
  } catch {
    replicas = [];
  }
  return { activeNode: active, epoch: Number.isSafeInteger(epoch) && epoch >= 0 ? epoch : 0, replicas };
}

/**
 * Which node a pod of a replicated volume may run on: the active copy's node while it is
 * Ready; when it is not, a replica that holds a snapshot (it is promoted for the pod).
 * Undefined when allowed, else the reason.
 */
export function replicatedVolumeNodeProblem(v: ReplicationView, node: string, isReady: (node: string) => boolean): string | undefined {
  if (node === v.activeNode) return undefined;
  const replica = v.replicas.find((r) => r.node === node);
  if (!replica || replica.state === 'Fenced' || !replica.lastSyncTime) return 'node(s) did not hold a copy of a replicated volume';
  if (isReady(v.activeNode)) return "node(s) held a replica while the volume's active copy is on a Ready node";
  return undefined;
}

/** The failover facts of a volume whose active node is gone. */
export interface FailoverFacts {
  activeNode: string;
  activeNodeReady: boolean;
  /** Pods (not finished) using the volume's claim, with their nodes ('' when not placed). */
  pods: { name: string; node: string }[];
  replicas: ReplicaFacts[];
}

/**
 * The replica to promote for a pod placed on it, or why not yet: only when the active
 * node is not Ready, no pod of the claim is left on it, a pod of the claim is placed on a
 * Ready replica node that holds a snapshot.
 */
export function failoverTarget(f: FailoverFacts): { promote: string } | { wait: string } | undefined {
  if (f.activeNodeReady) return undefined;
  const onReplica = f.pods.find((p) => p.node && p.node !== f.activeNode && f.replicas.some((r) => r.node === p.node));
  if (!onReplica) return undefined;
  const left = f.pods.find((p) => p.node === f.activeNode);
  if (left) return { wait: `pod "${left.name}" still uses the volume on node "${f.activeNode}" (NotReady): delete it to fail over` };
  const r = f.replicas.find((x) => x.node === onReplica.node)!;
  if (r.role !== 'replica' || !r.nodeReady || r.ackedSeq === undefined) return { wait: `the replica on node "${r.node}" holds no complete snapshot yet` };
  return { promote: r.node };
}

/** The zone label of a node's labels. */
export const zoneOf = (labels: Record<string, string> | undefined | null) => labels?.[labelZone];

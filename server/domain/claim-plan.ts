// What would happen to a claim if it were created now: bind to an existing volume, be
// provisioned, or sit Pending (and why). The claim form asks before it submits. The
// volume search itself is the binder's (matching.ts over the store's candidate query);
// this decides what its result means, with the same situations the binder explains
// Pending claims with. Pure.
import { nearestCandidates, summaryOf, type CandidateExplanation, type Situation } from './binding-explanation';
import { requestedStorage, type MatchOptions } from './matching';
import { parseQuantity, quantityToBytes, roundedQuantity } from './quantity';
import { hideForeignClaims, redactReason, type Reader } from './redaction';
import type { PersistentVolume } from '../resources/persistent-volume/schema';
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';
import type { StorageClass } from '../resources/storage-class/schema';
import { inTreeProvisionerPrefix, noProvisioner } from './well-known/provisioners';
import { humanBytes } from './human-size';

export interface Capabilities {
  readonly accessModes: readonly string[];
  readonly volumeModes: readonly string[];
  readonly minBytes?: string;
}

export type ClaimPlan =
  | { outcome: 'binds'; summary: string; volume?: string; capacity?: string; prebound: boolean; onFirstUse?: boolean; nodes?: string[] }
  | { outcome: 'provisions'; summary: string; provisioner: string; className: string; node?: string; external: boolean; onFirstUse: boolean; pools?: PoolRoom[] }
  | { outcome: 'pending'; summary: string; problems: string[]; nearest: CandidateExplanation[]; nearCount: number };

/** A node's pool of the class, as its CSIStorageCapacity says: the room for a new volume, or why it cannot serve. */
export interface PoolRoom {
  node: string;
  roomBytes: string;
  problem?: string;
  /** The claim fits in the room (set by planClaim). */
  fits?: boolean;
}

export interface PlanInput {
  claim: PersistentVolumeClaim;
  /** The class that applies ("" = none; the default class already resolved). */
  className: string;
  /** Whether the claim named its class (otherwise the default applied, or none exists). */
  classNamed: boolean;
  storageClass?: StorageClass;
  /** The binder's choice among existing volumes, if any. */
  match?: { volume: PersistentVolume; prebound: boolean };
  /**
   * WaitForFirstConsumer without a match: the Available volumes that fit the claim but for
   * the node its pod will pick, and the nodes they are pinned to.
   */
  laterMatches?: { volumes: number; nodes: string[] };
  /** Volumes near the claim (nearVolumes), for "nearest is …, because …". */
  near: PersistentVolume[];
  capabilities?: Capabilities;
  /** Whether Stowage itself provisions for this provisioner (in-tree plugin). */
  inTree: boolean;
  /** The node in-tree plugins provision on. */
  node?: string;
  /** A pool class (capacity-tracked provisioner): each node's pool; the claim lands on one with room. */
  pools?: PoolRoom[];
  opts?: MatchOptions;
}


/** Why the class's provisioner cannot make this claim's volume (modes, size). */
export function capabilityProblems(claim: PersistentVolumeClaim, provisioner: string, caps: Capabilities): string[] {
  const problems: string[] = [];
  for (const m of claim.spec?.accessModes ?? []) {
    if (!caps.accessModes.includes(m)) problems.push(`${provisioner} cannot make ${m} volumes (it makes ${caps.accessModes.join(', ')})`);
  }
  const vm = claim.spec?.volumeMode ?? 'Filesystem';
  if (!caps.volumeModes.includes(vm)) problems.push(`${provisioner} cannot make volumeMode ${vm} volumes (it makes ${caps.volumeModes.join(', ')})`);
  const req = parseQuantity(String(claim.spec?.resources?.requests?.storage ?? ''));
  if (caps.minBytes && req && quantityToBytes(req) < BigInt(caps.minBytes)) {
    problems.push(`${provisioner} makes volumes of at least ${humanBytes(BigInt(caps.minBytes))}`);
  }
  return problems;
}

function pending(input: PlanInput, situation: Situation, problems: string[] = []): ClaimPlan {
  const nearest = nearestCandidates(input.claim, input.near, input.opts, 3);
  let summary = summaryOf(situation);
  if (problems.length > 0) summary = `No available volume matches this claim, and StorageClass "${input.className}" cannot provision it: ${problems.join('; ')}.`;
  return { outcome: 'pending', summary, problems, nearest, nearCount: nearest.length };
}

export function planClaim(input: PlanInput): ClaimPlan {
  const { match, className, storageClass: sc } = input;
  if (match) {
    // A quantity's JSON may be a number; stored ones are canonical strings (applyDefaults).
    const storage = match.volume.spec?.capacity?.storage;
    const cap = storage === undefined ? undefined : String(storage);
    return {
      outcome: 'binds',
      summary: match.prebound ? 'Binds now to the volume reserved for it.' : `Binds now to an existing volume${cap ? ` of ${cap}` : ''}.`,
      volume: match.volume.metadata.name,
      capacity: cap,
      prebound: match.prebound,
    };
  }
  const later = input.laterMatches;
  if (later && later.volumes > 0) {
    const n = later.volumes;
    const on = later.nodes.length > 0 ? ` on node${later.nodes.length === 1 ? '' : 's'} ${later.nodes.join(', ')}` : '';
    return {
      outcome: 'binds',
      summary: `Binds when a pod first uses it: ${n} existing volume${n === 1 ? ' fits' : 's fit'}${on} (StorageClass "${className}" binds on first use, to a volume on the pod's node).`,
      prebound: false,
      onFirstUse: true,
      nodes: later.nodes,
    };
  }
  if (className === '') return pending(input, input.classNamed ? { kind: 'noMatch' } : { kind: 'noDefaultClass' });
  if (!sc) return pending(input, { kind: 'classNotFound', className });
  const provisioner: string = sc.provisioner ?? '';
  if (provisioner === noProvisioner || (provisioner.startsWith(inTreeProvisionerPrefix) && !input.inTree)) {
    return pending(input, { kind: 'cannotProvision', className, provisioner });
  }
  const problems = input.capabilities ? capabilityProblems(input.claim, provisioner, input.capabilities) : [];
  if (problems.length > 0) return pending(input, { kind: 'cannotProvision', className, provisioner }, problems);
  const onFirstUse = sc.volumeBindingMode === 'WaitForFirstConsumer';
  if (input.pools) return planOnPools(input, provisioner, className, onFirstUse, input.pools);
  const node = input.inTree ? input.node : undefined;
  const where = node ? ` on node ${node}` : '';
  const summary = onFirstUse
    ? `Will be provisioned by ${provisioner}${where} when a pod first uses it (StorageClass "${className}" binds on first use).`
    : input.inTree
      ? `Will be provisioned by ${provisioner}${where} (StorageClass "${className}").`
      : `Will be provisioned by the external provisioner ${provisioner} (StorageClass "${className}"), if it is running.`;
  return { outcome: 'provisions', summary, provisioner, className, node, external: !input.inTree, onFirstUse };
}

/**
 * A pool class: an Immediate claim lands on the node whose pool has the most room (as the
 * provisioner picks); a WaitForFirstConsumer claim on its pod's node, so the plan names the
 * nodes with room. No node with room: Pending, with each pool's room or problem.
 */
function planOnPools(input: PlanInput, provisioner: string, className: string, onFirstUse: boolean, pools: PoolRoom[]): ClaimPlan {
  const want = quantityToBytes(requestedStorage(input.claim));
  const rooms = pools
    .map((p) => ({ ...p, fits: !p.problem && BigInt(p.roomBytes) >= want }))
    .sort((a, b) => Number(b.fits) - Number(a.fits) || (BigInt(b.roomBytes) > BigInt(a.roomBytes) ? 1 : BigInt(b.roomBytes) < BigInt(a.roomBytes) ? -1 : a.node.localeCompare(b.node)));
  const fitting = rooms.filter((p) => p.fits);
  const cls = `StorageClass "${className}"`;
  if (fitting.length === 0) {
    const why =
      rooms.length === 0
        ? 'no node reports a pool for it yet'
        : `no node's pool has room for ${roundedQuantity(want)} (${rooms.map((p) => `${p.node}: ${p.problem ?? `${roundedQuantity(BigInt(p.roomBytes))} free for new volumes`}`).join('; ')})`;
    return { outcome: 'pending', summary: `${cls} cannot place this claim now: ${why}.`, problems: [why], nearest: [], nearCount: 0 };
  }
  const list = fitting.map((p) => `${p.node} (${roundedQuantity(BigInt(p.roomBytes))} free)`).join(', ');
  if (onFirstUse) {
    return {
      outcome: 'provisions',
      summary: `Will be provisioned by ${provisioner} when a pod first uses it, on the pod's node (${cls} binds on first use); it fits on ${fitting.length === 1 ? 'node' : 'nodes'} ${list}.`,
      provisioner,
      className,
      external: false,
      onFirstUse: true,
      pools: rooms,
    };
  }
  const node = fitting[0].node;
  return {
    outcome: 'provisions',
    summary: `Will be provisioned by ${provisioner} on node ${node}, the one with the most room (${roundedQuantity(BigInt(fitting[0].roomBytes))} free for new volumes; ${cls}).`,
    provisioner,
    className,
    node,
    external: false,
    onFirstUse: false,
    pools: rooms,
  };
}

/**
 * The plan as a reader may see it, redacted as the binder's explanations are: without the
 * right to see volumes, no volume names and no volume labels; claims of namespaces the
 * reader may not see are "another claim".
 */
export function redactPlan(plan: ClaimPlan, r: Reader): ClaimPlan {
  if (r.secrets) return plan;
  const summary = hideForeignClaims(plan.summary, r.namespaces);
  if (plan.outcome === 'binds') return { ...plan, summary, volume: r.volumes ? plan.volume : undefined };
  if (plan.outcome === 'pending') {
    return {
      ...plan,
      summary,
      problems: plan.problems.map((x) => redactReason(x, r)),
      nearest: plan.nearest.map((c) => ({ name: r.volumes ? c.name : '', reasons: c.reasons.map((x) => redactReason(x, r)) })),
    };
  }
  return { ...plan, summary };
}

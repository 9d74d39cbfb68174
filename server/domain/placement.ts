// Placement: the storage part of a scheduler, as a pure decision. A pod without a node is
// placed on a node that is Ready and schedulable, matches the pod's nodeSelector and
// required node affinity, fits the node affinity of every bound volume the pod uses, and
// where each unbound WaitForFirstConsumer claim can either bind to an Available volume
// reachable from that node or be provisioned there. This follows upstream's filter plugins
// (NodeUnschedulable, TaintToleration, NodeAffinity, VolumeBinding in
// pkg/scheduler/framework/plugins), including their reasons and the
// "0/N nodes are available: ..." summary. Pure: no I/O.
import { claimClass, findBestMatch, nodeMatchesTerms, volumeFitsNode, type NodeView } from './matching';
import { quantityFromJSON, quantityToBytes } from './quantity';
import { podClaimNames } from './pod-claims';
import type { Node } from '../resources/node/schema';
import type { PersistentVolume } from '../resources/persistent-volume/schema';
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';
import type { Pod } from '../resources/pod/schema';
import type { StorageClass } from '../resources/storage-class/schema';
import { taintNotReady, taintUnschedulable } from './well-known/taints';
import { noProvisioner } from './well-known/provisioners';
import { identityLabels } from './node-lifecycle';
import { readReplication, replicatedVolumeNodeProblem } from './replication';
import type { CSIStorageCapacity } from '../resources/csi-storage-capacity/schema';
import { notEnoughSpace, roomOnNode } from './pool-capacity';

/** Upstream's per-node reasons (the plugins' Err* strings). */
export const reasons = {
  unschedulable: 'node(s) were unschedulable',
  notReady: `node(s) had untolerated taint {${taintNotReady}: }`,
  taint: (key: string, value: string) => `node(s) had untolerated taint {${key}: ${value}}`,
  nodeAffinity: "node(s) didn't match Pod's node affinity/selector",
  volumeNodeConflict: 'node(s) had volume node affinity conflict',
  bindConflict: "node(s) didn't find available persistent volumes to bind",
  /** VolumeRestrictions' PreFilter: the claim is ReadWriteOncePod and another pod already uses it. */
  readWriteOncePodConflict: 'node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode',
  notEnoughSpace,
} as const;

export interface PlacementInput {
  pod: Pod;
  nodes: Node[];
  /** The claims of the pod's namespace that the pod names, by name (absent = not found). */
  claims: Map<string, PersistentVolumeClaim>;
  /** The volumes the pod's bound claims are bound to, by name. */
  boundVolumes: Map<string, PersistentVolume>;
  /** StorageClasses by name. */
  classes: Map<string, StorageClass>;
  /** Available volumes an unbound WaitForFirstConsumer claim could bind to. */
  candidates: PersistentVolume[];
  /**
   * For provisioners whose volumes can only be made on one node (Stowage's in-tree
   * host-path and loop plugins): that node. Others may provision anywhere the class's
   * allowedTopologies allow.
   */
  provisionerNode?: (provisioner: string) => string | undefined;
  /**
   * Claims of the pod (by name) that another placed, still running pod uses: a
   * ReadWriteOncePod claim among them keeps this pod from being placed anywhere.
   */
  claimsInUseElsewhere?: ReadonlySet<string>;
  /**
   * Provisioners that publish their capacity (upstream: a CSIDriver with storageCapacity:
   * true): their claims are provisioned only where a CSIStorageCapacity has room for them.
   */
  capacityTracked?: (provisioner: string) => boolean;
  /** The published CSIStorageCapacity objects (of the classes of such provisioners). */
  capacities?: readonly CSIStorageCapacity[];
}

export type Placement =
  | {
      kind: 'placed';
      node: string;
      /** Unbound WaitForFirstConsumer claims to annotate with the selected node. */
      select: string[];
      /**
       * Of those, the claims that bind to an existing volume on that node, and the volume:
       * pre-bound (its claimRef set) before the node is selected, as upstream's scheduler
       * does (VolumeBinding PreBind), so the binder only completes the binding.
       */
      prebind: { claim: string; volume: string }[];
    }
  /** The pod cannot be placed now; `message` is upstream's FailedScheduling text. */
  | { kind: 'unschedulable'; message: string; perNode: Record<string, string> };

/** A node as placement sees it: its identity is its name, never a label it set on itself. */
function nodeView(node: Node): NodeView {
  const name = node.metadata?.name ?? '';
  return { name, labels: identityLabels(name, node.metadata?.labels) };
}

function isReady(node: Node): boolean {
  const conds = node.status?.conditions ?? [];
  return conds.some((c) => c?.type === 'Ready' && c?.status === 'True');
}

/** The pod schema keeps tolerations as sent (undescribed), so they are read defensively. */
type Toleration = { key?: unknown; operator?: unknown; value?: unknown; effect?: unknown } | null | undefined;

function tolerates(pod: Pod, taint: { key?: string; value?: string; effect?: string }): boolean {
  const tolerations: Toleration[] = Array.isArray(pod.spec?.tolerations) ? pod.spec.tolerations : [];
  return tolerations.some((t) => {
    if (t?.effect && t.effect !== taint.effect) return false;
    if (t?.operator === 'Exists') return !t.key || t.key === taint.key;
    return t?.key === taint.key && (t?.value ?? '') === (taint.value ?? '');
  });
}

/** The pod's own node constraints: nodeSelector (all labels) and required node affinity. */
export function podMatchesNode(pod: Pod, node: NodeView): boolean {
  const selector = pod.spec?.nodeSelector ?? {};
  for (const [k, v] of Object.entries(selector)) {
    if (!Object.hasOwn(node.labels, k) || node.labels[k] !== v) return false;
  }
  const terms = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (Array.isArray(terms)) return nodeMatchesTerms(terms, node);
  return true;
}

function allowedOnNode(sc: StorageClass, node: NodeView): boolean {
  const terms = sc.allowedTopologies ?? [];
  if (terms.length === 0) return true;
  return terms.some((t) =>
    (t?.matchLabelExpressions ?? []).every((e) => {
      // Validation requires a key; '' is no label.
      const key = e?.key ?? '';
      return Object.hasOwn(node.labels, key) && (e?.values ?? []).includes(node.labels[key]);
    }),
  );
}

/**
 * Upstream checkVolumeProvisions: why the class cannot make a volume for the claim on this
 * node (undefined when it can). `asked` holds the bytes this pod's earlier claims already
 * need of a capacity-tracked class on this node, so the pod's claims fit together.
 */
function provisionProblem(input: PlacementInput, claim: PersistentVolumeClaim, node: NodeView, asked: Map<string, bigint>): string | undefined {
  const cls = claimClass(claim);
  const sc = cls ? input.classes.get(cls) : undefined;
  if (!sc) return reasons.bindConflict;
  const provisioner = sc.provisioner ?? '';
  if (!provisioner || provisioner === noProvisioner) return reasons.bindConflict;
  if (!allowedOnNode(sc, node)) return reasons.bindConflict;
  const only = input.provisionerNode?.(provisioner);
  if (only !== undefined && only !== node.name) return reasons.bindConflict;
  if (!input.capacityTracked?.(provisioner)) return undefined;
  const request = quantityFromJSON(claim.spec?.resources?.requests?.storage);
  const need = (asked.get(cls) ?? 0n) + (request ? quantityToBytes(request) : 0n);
  const room = roomOnNode(input.capacities ?? [], cls, node.labels);
  if (room === undefined || room < need) return reasons.notEnoughSpace;
  asked.set(cls, need);
  return undefined;
}

/** The volumes the pod's bound claims are bound to, and its unbound WaitForFirstConsumer claims. */
type ClaimSets = { bound: PersistentVolume[]; delayed: PersistentVolumeClaim[] };

/** The pod's claims sorted into bound and delayed, or the reason the pod cannot be placed at all. */
function sortClaims(input: PlacementInput): ClaimSets | string {
  const bound: PersistentVolume[] = [];
  const delayed: PersistentVolumeClaim[] = [];
  let immediateUnbound = false;
  for (const name of podClaimNames(input.pod)) {
    const claim = input.claims.get(name);
    if (!claim) return `persistentvolumeclaim "${name}" not found`;
    if (claim.metadata?.deletionTimestamp) return `persistentvolumeclaim "${name}" is being deleted`;
    const modes: unknown = claim.spec?.accessModes;
    if (Array.isArray(modes) && modes.includes('ReadWriteOncePod') && input.claimsInUseElsewhere?.has(name)) {
      return reasons.readWriteOncePodConflict;
    }
    const volumeName = claim.spec?.volumeName;
    if (volumeName) {
      if (claim.status?.phase === 'Lost') return `persistentvolumeclaim "${name}" bound to non-existent persistentvolume "${volumeName}"`;
      const volume = input.boundVolumes.get(volumeName);
      if (!volume) return `persistentvolumeclaim "${name}" bound to non-existent persistentvolume "${volumeName}"`;
      bound.push(volume);
      continue;
    }
    const cls = claimClass(claim);
    const sc = cls ? input.classes.get(cls) : undefined;
    if (sc?.volumeBindingMode === 'WaitForFirstConsumer') delayed.push(claim);
    else immediateUnbound = true;
  }
  if (immediateUnbound) return 'pod has unbound immediate PersistentVolumeClaims';
  return { bound, delayed };
}

/** requested / capacity of a claim matched to a volume, 0..1 (0 when either is unknown). */
function utilization(claim: PersistentVolumeClaim, volume: PersistentVolume): number {
  const req = quantityFromJSON(claim.spec?.resources?.requests?.storage);
  const cap = quantityFromJSON(volume.spec?.capacity?.storage);
  if (!req || !cap) return 0;
  const c = Number(quantityToBytes(cap));
  return c > 0 ? Math.min(1, Number(quantityToBytes(req)) / c) : 0;
}

/**
 * The first filter this node fails, or undefined when the pod fits; `select` gets the
 * claims to annotate, `fit` the utilization of each existing volume they would bind to.
 */
function checkNode(input: PlacementInput, sets: ClaimSets, node: Node, select: string[], fit: number[] = [], prebind: { claim: string; volume: string }[] = []): string | undefined {
  const view = nodeView(node);
  if (node.spec?.unschedulable === true && !tolerates(input.pod, { key: taintUnschedulable, effect: 'NoSchedule' })) {
    return reasons.unschedulable;
  }
  if (!isReady(node) && !tolerates(input.pod, { key: taintNotReady, effect: 'NoSchedule' })) return reasons.notReady;
  const taints = node.spec?.taints ?? [];
  for (const t of taints) {
    if ((t?.effect === 'NoSchedule' || t?.effect === 'NoExecute') && !tolerates(input.pod, t)) {
      return reasons.taint(String(t.key ?? ''), String(t.value ?? ''));
    }
  }
  if (!podMatchesNode(input.pod, view)) return reasons.nodeAffinity;
  for (const pv of sets.bound) {
    if (!volumeFitsNode(pv, view)) return reasons.volumeNodeConflict;
    // A replicated volume: its active copy's node, or a replica's when that node is gone.
    const replication = readReplication(pv.metadata?.annotations);
    if (replication) {
      const problem = replicatedVolumeNodeProblem(replication, node.metadata?.name ?? '', (n) => input.nodes.some((x) => x.metadata?.name === n && isReady(x)));
      if (problem) return problem;
    }
  }
  // Unbound delayed claims: bind to a reachable volume (one volume per claim), else provision.
  let pool = input.candidates;
  const asked = new Map<string, bigint>();
  for (const claim of sets.delayed) {
    const match = findBestMatch(claim, pool, { node: view });
    if (match) {
      pool = pool.filter((v) => v !== match.volume);
      fit.push(utilization(claim, match.volume));
      prebind.push({ claim: claim.metadata.name!, volume: match.volume.metadata.name! });
    } else {
      const problem = provisionProblem(input, claim, view, asked);
      if (problem) return problem;
    }
    select.push(claim.metadata.name!);
  }
  return undefined;
}

/** Upstream's FitError text: "0/3 nodes are available: 1 node(s) ..., 2 node(s) ...". */
export function fitErrorMessage(total: number, perNode: Record<string, string>): string {
  const counts = new Map<string, number>();
  for (const r of Object.values(perNode)) counts.set(r, (counts.get(r) ?? 0) + 1);
  const parts = [...counts.entries()].map(([r, n]) => `${n} ${r}`).sort();
  return `0/${total} nodes are available${parts.length ? `: ${parts.join(', ')}` : ''}.`;
}

/**
 * Where the pod goes. Among the nodes that fit, `preferred` wins (the node its claims were
 * already selected for); then, as upstream's VolumeBinding score (VolumeCapacityPriority),
 * the node whose existing volumes fit the claims most tightly (highest mean requested /
 * capacity; provisioning scores nothing), so large disks stay free for large claims; then
 * the node name order, so the choice is deterministic.
 */
export function placePod(input: PlacementInput, preferred?: string): Placement {
  const sets = sortClaims(input);
  const total = input.nodes.length;
  if (typeof sets === 'string') {
    return { kind: 'unschedulable', message: `0/${total} nodes are available: ${sets}.`, perNode: {} };
  }
  const perNode: Record<string, string> = {};
  const fits: { node: string; select: string[]; prebind: { claim: string; volume: string }[]; score: number }[] = [];
  const ordered = [...input.nodes].sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
  for (const node of ordered) {
    const select: string[] = [];
    const fit: number[] = [];
    const prebind: { claim: string; volume: string }[] = [];
    const failure = checkNode(input, sets, node, select, fit, prebind);
    if (failure) perNode[node.metadata?.name ?? ''] = failure;
    else fits.push({ node: node.metadata?.name ?? '', select, prebind, score: fit.length ? fit.reduce((a, b) => a + b, 0) / fit.length : 0 });
  }
  const best = fits.reduce<(typeof fits)[number] | undefined>((b, f) => (!b || f.score > b.score ? f : b), undefined);
  const chosen = fits.find((f) => f.node === preferred) ?? best;
  if (chosen) return { kind: 'placed', node: chosen.node, select: chosen.select, prebind: chosen.prebind };
  return { kind: 'unschedulable', message: fitErrorMessage(total, perNode), perNode };
}

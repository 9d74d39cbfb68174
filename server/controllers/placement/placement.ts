// The placement controller (the storage half of a scheduler) on the shared runtime. Keys:
// pod/<namespace>/<name> for a pod without a node. A change re-places only the pods whose
// inputs it touched (waiting-pods.ts): a claim's change (or a change of the volume bound
// to it) the pods that use it; a change that may make room (a node, a class, a volume,
// published capacity, a pod that stopped using a claim) the pods found unschedulable. The
// start and the periodic resync place every waiting pod.
//
// For one pod, as upstream's scheduler with its VolumeBinding plugin does:
//  1. a claim of the pod already selected for a node but not bound yet: wait (the binder
//     or provisioner is finishing it on that node; a failed provisioning drops the
//     selection and the pod is placed again);
//  2. placePod (server/domain/placement.ts) decides;
//  3. placed with unbound WaitForFirstConsumer claims: annotate them with
//     volume.kubernetes.io/selected-node (upstream PreBind), nothing else; when they are
//     bound, step 2 runs again and prefers that node;
//  4. placed with every claim bound: spec.nodeName, PodScheduled=True, event Scheduled;
//  5. not placeable: PodScheduled=False reason Unschedulable and a FailedScheduling event
//     naming the reasons per node, written only when the message changes.
import type { Logger } from 'pino';
import { placePod, type PlacementInput } from '../../domain/placement';
import { annBoundByController, annSelectedNode } from '../../domain/well-known/annotations';
import { claimRefTo } from '../../domain/claim-ref';
import { claimClass } from '../../domain/matching';
import { podClaimNames, podsUsingClaim } from '../../domain/pod-claims';
import { timestampNow } from '../../resources/metadata';
import type { Node } from '../../resources/node/schema';
import type { PersistentVolume } from '../../resources/persistent-volume/schema';
import type { PersistentVolumeClaim } from '../../resources/persistent-volume-claim/schema';
import type { Pod } from '../../resources/pod/schema';
import { availableVolumesOfClasses, podsToPlace } from '../../store/consumer-queries';
import type { ObjectStore } from '../../store/object-store';
import type { ControllerSpec, ReconcileContext, ReconcileResult } from '../runtime/controller';
import { isRowBusy } from '../runtime/controller-tx';
import { write, type WriteDeps } from '../runtime/write';
import type { EventRecorder } from '../../services/event-recorder';
import { schedulerComponent } from '../../domain/well-known/components';
import { reasons } from '../../domain/well-known/event-reasons';
import { btrfsProvisioner, capacityTrackedProvisioners } from '../../domain/well-known/provisioners';
import { pooledPromises, withCurrentPromises } from '../../domain/pool-capacity';
import { AssetStore } from '../../store/provisioned-assets';
import type { ChangeEvent } from '../../store/change-feed';
import { WaitingPods } from './waiting-pods';
import { KindLists } from '../runtime/kind-lists';

export const placementName = 'default-scheduler';
const POD = 'Pod';
const PVC = 'PersistentVolumeClaim';
const PV = 'PersistentVolume';

export interface PlacementOptions {
  store: ObjectStore;
  log: Logger;
  /** Its Event recorder (runtime/recorders.ts, keyed by its component). */
  events: EventRecorder;
  /** Provisioners that make volumes on one node only (the in-tree plugins), and that node. */
  nodeLocalProvisioners?: { names: ReadonlySet<string>; node: string };
  resyncMs?: number;
}

interface Deps {
  store: ObjectStore;
  /** Nodes, classes and published capacity: read for every pod, kept until the watch sees them change. */
  lists: KindLists<'Node' | 'StorageClass' | 'CSIStorageCapacity'>;
  events: EventRecorder;
  provisionerNode: (p: string) => string | undefined;
  waiting: WaitingPods;
}

const podKey = (ns: string, name: string) => `pod/${ns}/${name}`;

/** The pod's claims that exist, by name. */
async function claimsOf(d: Deps, pod: Pod): Promise<Map<string, PersistentVolumeClaim>> {
  const claims = new Map<string, PersistentVolumeClaim>();
  for (const name of podClaimNames(pod)) {
    const c = await d.store.recent(PVC, pod.metadata.namespace ?? '', name);
    if (c) claims.set(name, c);
  }
  return claims;
}

/** Everything else placePod needs, read from the store. */
async function gather(d: Deps, pod: Pod, claims: Map<string, PersistentVolumeClaim>): Promise<PlacementInput> {
  const ns = pod.metadata.namespace ?? '';
  const boundVolumes = new Map<string, PersistentVolume>();
  for (const c of claims.values()) {
    const vn: string | undefined = c.spec?.volumeName || undefined;
    if (vn) {
      const v = await d.store.recent('PersistentVolume', undefined, vn);
      if (v) boundVolumes.set(vn, v);
    }
  }
  const [nodes, classList] = await Promise.all([d.lists.get('Node'), d.lists.get('StorageClass')]);
  const classes = new Map(classList.map((c) => [c.metadata.name!, c]));
  const delayedClasses = [...claims.values()].filter((c) => !c.spec?.volumeName).map((c) => claimClass(c));
  const candidates = (await availableVolumesOfClasses(d.store, [...new Set(delayedClasses)]));
  // Published capacity, when a waiting claim's class counts on it.
  const tracked = delayedClasses.some((c) => capacityTrackedProvisioners.has(classes.get(c)?.provisioner ?? ''));
  const published = tracked ? await d.lists.get('CSIStorageCapacity') : [];
  // Volumes begun since an agent's last report count at once.
  const capacities = tracked ? withCurrentPromises(published, pooledPromises(await new AssetStore(d.store).promisedByPool(btrfsProvisioner))) : [];
  const rwop = [...claims.values()].filter((c) => Array.isArray(c.spec?.accessModes) && c.spec.accessModes.includes('ReadWriteOncePod'));
  const claimsInUseElsewhere = new Set<string>();
  if (rwop.length > 0) {
    const pods = await d.store.list(POD, { namespace: ns });
    for (const c of rwop) {
      const name = c.metadata.name!;
      const others = (pods.items).filter((p) => p.metadata.uid !== pod.metadata.uid && p.spec?.nodeName);
      if (podsUsingClaim(others, ns, name).length > 0) claimsInUseElsewhere.add(name);
    }
  }
  return {
    pod,
    nodes,
    claims,
    boundVolumes,
    classes,
    candidates,
    provisionerNode: d.provisionerNode,
    claimsInUseElsewhere,
    capacityTracked: (p) => capacityTrackedProvisioners.has(p),
    capacities,
  };
}

function scheduledCondition(pod: Pod) {
  const conds = Array.isArray(pod.status?.conditions) ? pod.status.conditions : [];
  return conds.find((c) => c?.type === 'PodScheduled');
}

function withCondition(pod: Pod, cond: Record<string, string>): Pod {
  const next = structuredClone(pod);
  next.status ??= {};
  const conds = (Array.isArray(next.status.conditions) ? next.status.conditions : []).filter((c) => c?.type !== 'PodScheduled');
  next.status.conditions = [...conds, { type: 'PodScheduled', lastTransitionTime: timestampNow(), ...cond }];
  return next;
}

async function markUnschedulable(d: Deps, ctx: ReconcileContext, pod: Pod, message: string): Promise<void> {
  const cur = scheduledCondition(pod);
  if (cur?.status === 'False' && cur?.reason === 'Unschedulable' && cur?.message === message) return;
  const next = withCondition(pod, { status: 'False', reason: 'Unschedulable', message });
  const saved = await write(d, ctx, async (tx) => {
    const p = await tx.get(POD, pod.metadata.namespace, pod.metadata.name!);
    if (!p || p.metadata.resourceVersion !== pod.metadata.resourceVersion || p.spec?.nodeName) return undefined;
    return tx.update(next, { subresource: 'status' });
  });
  if (saved) await d.events.record(saved, 'Warning', reasons.failedScheduling, message);
  else ctx.enqueue(podKey(pod.metadata.namespace ?? '', pod.metadata.name!));
}

/**
 * Upstream PreBind in one transaction: each chosen existing volume gets its claimRef (and
 * bound-by-controller), then every delayed claim the selected node. The binder then only
 * completes the pre-bound bindings and provisions the rest on that node. A chosen volume
 * taken meanwhile aborts it all (the pod is placed again).
 */
async function selectNode(d: Deps, ctx: ReconcileContext, pod: Pod, node: string, claims: string[], prebind: { claim: string; volume: string }[]): Promise<boolean> {
  return write(d, ctx, async (tx) => {
    const read = new Map<string, PersistentVolumeClaim>();
    for (const name of claims) {
      const c = await tx.get(PVC, pod.metadata.namespace, name);
      if (!c || c.spec?.volumeName || c.metadata.deletionTimestamp) return false;
      read.set(name, c);
    }
    for (const { claim, volume } of prebind) {
      const c = read.get(claim);
      const v = await tx.get(PV, undefined, volume);
      if (!c || !v || v.metadata.deletionTimestamp) return false;
      const ref = v.spec?.claimRef;
      if (ref && !(ref.namespace === c.metadata.namespace && ref.name === c.metadata.name && (!ref.uid || ref.uid === c.metadata.uid))) return false;
      if (ref?.uid === c.metadata.uid) continue;
      v.spec = { ...v.spec!, claimRef: claimRefTo(c) }; // a stored volume has a spec
      v.metadata.annotations = { ...(v.metadata.annotations ?? {}), [annBoundByController]: 'yes' };
      await tx.update(v);
    }
    for (const c of read.values()) {
      if (c.metadata.annotations?.[annSelectedNode] === node) continue;
      c.metadata.annotations = { ...(c.metadata.annotations ?? {}), [annSelectedNode]: node };
      await tx.update(c);
    }
    return true;
  });
}

async function bindPod(d: Deps, ctx: ReconcileContext, pod: Pod, node: string): Promise<boolean> {
  const saved = await write(d, ctx, async (tx) => {
    const p = await tx.get(POD, pod.metadata.namespace, pod.metadata.name!);
    if (!p || p.metadata.resourceVersion !== pod.metadata.resourceVersion || p.spec?.nodeName || p.metadata.deletionTimestamp) return undefined;
    const next = withCondition(p, { status: 'True' });
    next.spec = { ...next.spec, nodeName: node };
    const written = await tx.updateAll(next);
    // Committed with the binding, not in a transaction of its own. About the pod as it was
    // placed (its version before the binding), as upstream's scheduler records it.
    await d.events.recordIn(tx, pod, 'Normal', reasons.scheduled, `Successfully assigned ${pod.metadata.namespace}/${pod.metadata.name} to ${node}`);
    return written;
  });
  if (!saved) return false;
  return true;
}

export async function placeOne(d: Deps, ctx: ReconcileContext, namespace: string, name: string): Promise<ReconcileResult | void> {
  const key = podKey(namespace, name);
  const pod = await d.store.recent(POD, namespace, name);
  const scheduler = pod?.spec?.schedulerName;
  if (!pod || pod.spec?.nodeName || pod.metadata.deletionTimestamp || (scheduler && scheduler !== schedulerComponent)) return d.waiting.forget(key);
  const claims = await claimsOf(d, pod);
  const claimKeys = podClaimNames(pod).map((c) => `${namespace}/${c}`);

  // A selection in progress: the claims' binder/provisioner is working on it; their changes
  // bring the pod back (the requeue is a fallback). Known from the claims alone, before the
  // rest is read: in a burst most passes over a pod end here.
  const selected = [...claims.values()].map((c) => c.metadata.annotations?.[annSelectedNode]).filter(Boolean) as string[];
  const inProgress = [...claims.values()].some((c) => !c.spec?.volumeName && c.metadata.annotations?.[annSelectedNode]);
  if (inProgress) {
    d.waiting.waiting(key, claimKeys, false);
    return { requeueAfter: 30_000 };
  }
  const input = await gather(d, pod, claims);

  const decision = placePod(input, selected[0]);
  d.waiting.waiting(key, claimKeys, decision.kind === 'unschedulable');
  if (decision.kind === 'unschedulable') return markUnschedulable(d, ctx, pod, decision.message);
  if (decision.select.length > 0) {
    if (!(await selectNode(d, ctx, pod, decision.node, decision.select, decision.prebind))) ctx.enqueue(key, 1000);
    return;
  }
  if (await bindPod(d, ctx, pod, decision.node)) d.waiting.forget(key);
  else ctx.enqueue(key);
}

function nodeReady(node: Node | undefined): boolean {
  const conds = Array.isArray(node?.status?.conditions) ? node.status.conditions : [];
  return conds.some((c) => c?.type === 'Ready' && c?.status === 'True');
}

/**
 * Pod garbage collection (upstream PodGC, the part storage needs): a pod Terminating past
 * its grace period on a node that is gone or not Ready has no agent to finish it; it is
 * deleted, so its claims are free again.
 */
export async function collectOrphanedPods(d: WriteDeps, ctx: ReconcileContext, now = Date.now()): Promise<string[]> {
  const { store } = d;
  const pods = (await store.list(POD)).items.filter((p) => p.metadata.deletionTimestamp && p.spec?.nodeName);
  const gone: string[] = [];
  for (const pod of pods) {
    if (Date.parse(pod.metadata.deletionTimestamp!) > now) continue;
    if (nodeReady(await store.tryGet('Node', undefined, pod.spec!.nodeName!))) continue; // filtered to pods on a node above
    try {
      await write(d, ctx, (tx) => tx.delete(POD, pod.metadata.namespace, pod.metadata.name!, { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid } }));
      gone.push(`${pod.metadata.namespace}/${pod.metadata.name}`);
    } catch {
      // gone already, replaced, or being written (the next pass looks again): nothing to collect now
    }
  }
  return gone;
}

/** The pods a change may concern (see the header): never every waiting pod. */
export function placementKeysFor(waiting: WaitingPods, e: ChangeEvent): string[] {
  if (e.kind === POD) {
    const pod: Pod | undefined = e.object;
    const key = podKey(e.namespace, e.name);
    // A pod that is gone (or has finished) may free a ReadWriteOncePod claim another pod waits for.
    if (e.type === 'DELETED' || pod?.status?.phase === 'Succeeded' || pod?.status?.phase === 'Failed') return [key, ...waiting.unschedulable()];
    // A pod with a node is done with here (looked at once more only to be forgotten).
    return pod?.spec?.nodeName && !waiting.has(key) ? [] : [key];
  }
  if (e.kind === PVC) return waiting.podsUsing(`${e.namespace}/${e.name}`);
  if (e.kind === PV) {
    const ref = e.object.spec?.claimRef;
    return [...(ref?.namespace && ref.name ? waiting.podsUsing(`${ref.namespace}/${ref.name}`) : []), ...waiting.unschedulable()];
  }
  return waiting.unschedulable();
}

export function placementSpec(o: PlacementOptions): ControllerSpec {
  const local = o.nodeLocalProvisioners;
  const waiting = new WaitingPods();
  const d: Deps = {
    store: o.store,
    lists: new KindLists(o.store, ['Node', 'StorageClass', 'CSIStorageCapacity']),
    events: o.events,
    provisionerNode: (p) => (local?.names.has(p) ? local.node : undefined),
    waiting,
  };
  const keys = async () => (await podsToPlace(o.store)).map((r) => podKey(r.namespace, r.name));
  return {
    name: 'placement',
    concurrency: 4,
    watch: {
      kinds: [POD, PVC, PV, 'Node', 'StorageClass', 'CSIStorageCapacity'],
      keysFor: (e) => {
        d.lists.changed(e.kind);
        return placementKeysFor(waiting, e);
      },
    },
    listKeys: keys,
    resync: { everyMs: o.resyncMs ?? 30_000, listKeys: async () => [...(await keys()), 'gc'] },
    reconcile: async (key, ctx) => {
      if (key === 'gc') {
        const gone = await collectOrphanedPods(d, ctx);
        if (gone.length === 0) return;
        o.log.info({ pods: gone }, 'deleted Terminating pods whose node is gone or not ready');
        // The runtime does not hand back the echo of these deletions: what it would queue is queued
        // here (a pod gone may free a ReadWriteOncePod claim an unschedulable pod waits for).
        for (const p of gone) ctx.enqueue(`pod/${p}`);
        for (const k of waiting.unschedulable()) ctx.enqueue(k);
        return;
      }
      const [, namespace, name] = key.split('/');
      if (!namespace || !name) return;
      try {
        return await placeOne(d, ctx, namespace, name);
      } catch (err) {
        if (isRowBusy(err)) return { requeueAfter: 10 + Math.floor(Math.random() * 40) };
        throw err;
      }
    },
  };
}

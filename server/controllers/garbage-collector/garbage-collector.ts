// The garbage collector on the shared runtime (upstream pkg/controller/garbagecollector,
// background propagation): an object whose owners (metadata.ownerReferences, by uid) are all
// gone is deleted; one with some owners left loses the references to the gone ones. A
// deleted object with the `orphan` finalizer (deleted with propagationPolicy Orphan) is first
// removed from its dependents' ownerReferences, then let go.
//
// It never scans the store per change. A graph of owner uid -> dependents is built by one
// start-up pass (the objects that name owners) and kept from the change feed; a deletion
// queues exactly the deleted object's dependents, and an object whose owner list changed
// queues itself (its owner may be gone already). Keys:
//   dep/<kind>/<namespace>/<name>     look at one dependent's owners
//   orphan/<kind>/<namespace>/<name>  let go of one owner's dependents, then its finalizer
import type { Logger } from 'pino';
import { orphanFinalizer } from '../../domain/well-known/finalizers';
import { isStowageError } from '../../domain/errors';
import { strategies } from '../../resources/registry';
import type { KubeObject } from '../../resources/types';
import type { ChangeEvent } from '../../store/change-feed';
import type { DeleteResult, ObjectStore } from '../../store/object-store';
import { deletingWithFinalizer, ownedObjects } from '../../store/owner-queries';
import type { ControllerSpec, ReconcileContext } from '../runtime/controller';
import { write } from '../runtime/write';
import { decideDependent, type OwnerFacts } from './decide';

export const garbageCollectorName = 'garbage-collector';

export interface GarbageCollectorDeps {
  store: ObjectStore;
  log: Logger;
}

type OwnerRef = { apiVersion?: string; kind?: string; name?: string; uid?: string };

const refsOf = (o: KubeObject): OwnerRef[] => (o.metadata.ownerReferences ?? []) as OwnerRef[];
const keyOf = (kind: string, namespace: string | undefined, name: string) => `${kind}/${namespace ?? ''}/${name}`;

/** Owner uid -> the dependents naming it, and each dependent's owner uids. */
export class OwnerGraph {
  private readonly dependents = new Map<string, Set<string>>();
  private readonly owners = new Map<string, string[]>();

  /** Records a dependent's owners; true when they changed. */
  set(key: string, ownerUids: string[]): boolean {
    const before = this.owners.get(key) ?? [];
    if (before.length === ownerUids.length && before.every((u, i) => u === ownerUids[i])) return false;
    this.drop(key);
    if (ownerUids.length === 0) return true;
    this.owners.set(key, ownerUids);
    for (const u of ownerUids) {
      let s = this.dependents.get(u);
      if (!s) this.dependents.set(u, (s = new Set()));
      s.add(key);
    }
    return true;
  }

  drop(key: string): void {
    for (const u of this.owners.get(key) ?? []) {
      const s = this.dependents.get(u);
      s?.delete(key);
      if (s?.size === 0) this.dependents.delete(u);
    }
    this.owners.delete(key);
  }

  ownersOf(key: string): string[] {
    return this.owners.get(key) ?? [];
  }

  dependentsOf(ownerUid: string): string[] {
    return [...(this.dependents.get(ownerUid) ?? [])];
  }
}

/** The served kind an ownerReference names (its API group and version), if any. */
function ownerKind(ref: OwnerRef) {
  const [group, version] = (ref.apiVersion ?? '').includes('/') ? ref.apiVersion!.split('/') : ['', ref.apiVersion];
  return strategies.find((s) => s.kind === ref.kind && s.group === group && s.version === version);
}

async function ownerFacts(store: ObjectStore, dependent: KubeObject, ref: OwnerRef): Promise<OwnerFacts> {
  const uid = ref.uid ?? '';
  const s = ownerKind(ref);
  const namespace = dependent.metadata.namespace ?? '';
  // A cluster-scoped dependent cannot name a namespaced owner (upstream: unresolvable).
  if (!s || !ref.name || (s.namespaced && !namespace)) return { uid, state: 'unresolvable' };
  const owner = await store.tryGet(s.kind, s.namespaced ? namespace : undefined, ref.name);
  return { uid, state: owner && owner.metadata.uid === uid ? 'solid' : 'dangling' };
}

async function collectDependent(d: GarbageCollectorDeps, ctx: ReconcileContext, graph: OwnerGraph, kind: string, namespace: string, name: string): Promise<void> {
  const dep = await d.store.tryGet(kind, namespace || undefined, name);
  if (!dep) return;
  const refs = refsOf(dep);
  const owners = await Promise.all(refs.map((r) => ownerFacts(d.store, dep, r)));
  const decision = decideDependent({ deleting: !!dep.metadata.deletionTimestamp }, owners);
  if (decision.action === 'none') return;
  if (decision.action === 'delete') {
    try {
      // Background: the dependent goes (or, held by finalizers, is marked deleted); its own
      // dependents follow.
      const result = await write(d, ctx, (tx) => tx.delete(kind, namespace || undefined, name, { preconditions: { uid: dep.metadata.uid } }));
      learnDeletion(graph, ctx, keyOf(kind, namespace, name), result);
      d.log.info({ kind, namespace, name, why: decision.why }, 'garbage collected');
    } catch (e) {
      if (isStowageError(e) && (e.code === 'NotFound' || e.code === 'Conflict')) return ctx.enqueue(`dep/${keyOf(kind, namespace, name)}`);
      throw e;
    }
    return;
  }
  await dropReferences(d, ctx, graph, dep, decision.uids);
}

const orphaning = (o: KubeObject) => !!o.metadata.deletionTimestamp && (o.metadata.finalizers ?? []).includes(orphanFinalizer);

/**
 * What the feed would have told the graph of this controller's own deletion (the runtime
 * does not hand a controller the echo of its own write): an object gone queues its
 * dependents; one held by the orphan finalizer is orphaned first.
 */
function learnDeletion(graph: OwnerGraph, ctx: ReconcileContext, key: string, result: DeleteResult): void {
  if (result.deleted) {
    graph.drop(key);
    for (const k of graph.dependentsOf(result.object.metadata.uid ?? '')) ctx.enqueue(`dep/${k}`);
    return;
  }
  if (orphaning(result.object)) ctx.enqueue(`orphan/${key}`);
}

/**
 * Removes the references to `uids` from the dependent. The graph learns it here: the runtime
 * does not hand a controller the echo of its own write.
 */
async function dropReferences(d: GarbageCollectorDeps, ctx: ReconcileContext, graph: OwnerGraph, dep: KubeObject, uids: string[]): Promise<void> {
  const gone = new Set(uids);
  const saved = await write(d, ctx, async (tx) => {
    const cur = await tx.get(dep.kind, dep.metadata.namespace || undefined, dep.metadata.name!);
    if (!cur || cur.metadata.uid !== dep.metadata.uid) return undefined;
    const kept = refsOf(cur).filter((r) => !gone.has(r.uid ?? ''));
    if (kept.length === refsOf(cur).length) return undefined;
    cur.metadata.ownerReferences = kept.length > 0 ? (kept) : undefined;
    return tx.update(cur);
  });
  if (saved) graph.set(keyOf(saved.kind, saved.metadata.namespace, saved.metadata.name!), refsOf(saved).map((r) => r.uid ?? ''));
}

/** Propagation Orphan: every dependent lets go of the owner, then the owner's finalizer goes. */
async function orphanDependents(d: GarbageCollectorDeps, ctx: ReconcileContext, graph: OwnerGraph, kind: string, namespace: string, name: string): Promise<void> {
  const owner = await d.store.tryGet(kind, namespace || undefined, name);
  if (!owner?.metadata.deletionTimestamp || !(owner.metadata.finalizers ?? []).includes(orphanFinalizer)) return;
  for (const key of graph.dependentsOf(owner.metadata.uid!)) {
    const [k, ns, n] = key.split('/');
    const dep = await d.store.tryGet(k, ns || undefined, n);
    if (dep) await dropReferences(d, ctx, graph, dep, [owner.metadata.uid!]);
  }
  const released = await write(d, ctx, async (tx) => {
    const cur = await tx.get(kind, namespace || undefined, name);
    if (!cur || cur.metadata.uid !== owner.metadata.uid) return false;
    cur.metadata.finalizers = (cur.metadata.finalizers ?? []).filter((f) => f !== orphanFinalizer);
    await tx.update(cur);
    return cur.metadata.finalizers.length === 0;
  });
  if (released) graph.drop(keyOf(kind, namespace, name)); // gone: its echo is not handed to us
}

export function garbageCollectorSpec(d: GarbageCollectorDeps, opts: { concurrency?: number } = {}): ControllerSpec {
  let graph = new OwnerGraph();
  const ownerUids = (o: KubeObject) => refsOf(o).map((r) => r.uid ?? '');
  // Keys the feed set while a start-up pass was reading: the pass must not overwrite them with older rows.
  let touched: Set<string> | undefined;
  return {
    name: garbageCollectorName,
    concurrency: opts.concurrency ?? 4,
    watch: {
      kinds: strategies.map((s) => s.kind),
      keysFor: (e: ChangeEvent) => {
        const key = keyOf(e.kind, e.namespace, e.name);
        touched?.add(key);
        if (e.type === 'DELETED') {
          graph.drop(key);
          return graph.dependentsOf(e.object.metadata.uid ?? '').map((k) => `dep/${k}`);
        }
        const keys: string[] = [];
        if (graph.set(key, ownerUids(e.object)) && refsOf(e.object).length > 0) keys.push(`dep/${key}`);
        if (orphaning(e.object)) keys.push(`orphan/${key}`);
        return keys;
      },
    },
    // The start-up pass (and again after the watch fell behind compaction): the graph, and
    // every object with owners looked at once (an owner may have gone while no one watched).
    listKeys: async () => {
      touched = new Set();
      const next = new OwnerGraph();
      const rows = await ownedObjects(d.store);
      const orphans = await deletingWithFinalizer(d.store, orphanFinalizer);
      const fresh = touched;
      touched = undefined;
      for (const r of rows) {
        const key = keyOf(r.kind, r.namespace, r.name);
        if (!fresh.has(key)) next.set(key, r.owners);
      }
      // What the feed recorded meanwhile is newer than the rows: carry it over.
      for (const key of fresh) next.set(key, graph.ownersOf(key));
      graph = next;
      return [...rows.map((r) => `dep/${keyOf(r.kind, r.namespace, r.name)}`), ...orphans.map((r) => `orphan/${keyOf(r.kind, r.namespace, r.name)}`)];
    },
    reconcile: async (key, ctx) => {
      const slash = key.indexOf('/');
      const [kind, namespace, name] = key.slice(slash + 1).split('/');
      if (!kind || namespace === undefined || !name) return;
      if (key.startsWith('dep/')) return collectDependent(d, ctx, graph, kind, namespace, name);
      if (key.startsWith('orphan/')) return orphanDependents(d, ctx, graph, kind, namespace, name);
    },
  };
}

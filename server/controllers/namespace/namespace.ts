// The namespace controller on the shared runtime (upstream pkg/controller/namespace): keys
// ns/<name>. A namespace being deleted (deletionTimestamp set, phase Terminating) is
// emptied: its pods are deleted first (each through the pod path, so a node agent
// unpublishes its volumes before the pod goes), then, once no pod remains, every other
// namespaced kind (claims go through pvc-protection and their volumes are released by
// their reclaim policy; snapshots, schedules, quotas, events, ...). Each pass reports what
// remains in the namespace's status conditions with upstream's wording; when nothing
// remains the `kubernetes` finalizer is removed (the finalize subresource) and the
// namespace goes.
//
// Restart-safe by construction: all state is in the objects (the namespace's
// deletionTimestamp, each object's own deletion), so a controller that starts (or takes the
// lead) lists the Terminating namespaces and carries on where the last one stopped.
import { isStowageError } from '../../domain/errors';
import {
  countRemaining,
  decideNamespace,
  deleteOthersNow,
  emptyTally,
  hasRemaining,
  namespaceFinalizer,
  nextConditions,
  remainingEstimateSeconds,
  type ContentTally,
  type NamespaceCondition,
} from '../../domain/namespace-lifecycle';
import type { Namespace } from '../../resources/namespace/schema';
import { timestampNow } from '../../resources/metadata';
import { strategies, strategyForKind } from '../../resources/registry';
import type { ObjectStore } from '../../store/object-store';
import { namespaceContent, namespaceHasContent, terminatingNamespaces, type ContentItem } from '../../store/namespace-queries';
import type { ControllerSpec, ReconcileContext, ReconcileResult } from '../runtime/controller';
import { isRowBusy } from '../runtime/controller-tx';
import { write } from '../runtime/write';

export const namespaceControllerName = 'namespace-controller';
const NS = 'Namespace';

export interface NamespaceControllerDeps {
  store: ObjectStore;
}

/** Every namespaced kind the registry serves: all of it is a namespace's content. */
export function contentKinds(): string[] {
  return strategies.filter((s) => s.namespaced).map((s) => s.kind);
}

const keyOf = (name: string) => `ns/${name}`;

/** Deletes the items not being deleted yet, one write each; what could not be deleted is an error of its resource. */
async function deleteItems(d: NamespaceControllerDeps, ctx: ReconcileContext, namespace: string, items: ContentItem[], errors: Map<string, string>): Promise<void> {
  for (const item of items) {
    if (item.deleting || ctx.signal.aborted) continue;
    try {
      await write(d, ctx, (tx) => tx.delete(item.kind, namespace, item.name, { preconditions: { uid: item.uid }, propagationPolicy: 'Background' }));
    } catch (err) {
      // Gone or replaced meanwhile, or a row busy now: the next pass looks again.
      if (isRowBusy(err) || (isStowageError(err) && (err.code === 'NotFound' || err.code === 'Conflict'))) continue;
      const s = strategyForKind(item.kind);
      const resource = s ? `${s.plural}.${s.group}` : item.kind;
      if (!errors.has(resource)) errors.set(resource, `${resource}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}

function tallied(items: ContentItem[], t: ContentTally): void {
  for (const item of items) {
    const s = strategyForKind(item.kind);
    countRemaining(t, s?.plural ?? item.kind, s?.group ?? '', item.finalizers);
  }
}

/** One pass over a Terminating namespace's content; answers what remains. */
async function emptyNamespace(d: NamespaceControllerDeps, ctx: ReconcileContext, name: string): Promise<{ tally: ContentTally; graces: number[] }> {
  const errors = new Map<string, string>();
  await deleteItems(d, ctx, name, await namespaceContent(d.store, name, ['Pod']), errors);
  const pods = await namespaceContent(d.store, name, ['Pod']);
  const others = contentKinds().filter((k) => k !== 'Pod');
  if (deleteOthersNow(pods.length)) await deleteItems(d, ctx, name, await namespaceContent(d.store, name, others), errors);
  const tally = emptyTally();
  tallied([...pods, ...(await namespaceContent(d.store, name, others))], tally);
  tally.errors = [...errors.values()];
  return { tally, graces: pods.map((p) => p.grace ?? 0) };
}

/** Writes the phase and conditions when they changed. */
async function report(d: NamespaceControllerDeps, ctx: ReconcileContext, read: Namespace, tally: ContentTally): Promise<void> {
  const old = (read.status?.conditions ?? []) as NamespaceCondition[];
  const { conditions, changed } = nextConditions(old, tally, timestampNow());
  if (!changed && read.status?.phase === 'Terminating') return;
  await write(d, ctx, async (tx) => {
    const ns = await tx.get(NS, undefined, read.metadata.name!);
    if (!ns || ns.metadata.uid !== read.metadata.uid) return;
    await tx.update({ ...ns, status: { ...(ns.status ?? {}), phase: 'Terminating', conditions } }, { subresource: 'status' });
  });
}

/**
 * Removes our finalizer once the namespace holds nothing: the last look at its content is
 * made with the namespace row locked, and a create in the namespace holds a key-share lock
 * on that row until it commits, so nothing can be created in it between the look and the write.
 */
async function finalize(d: NamespaceControllerDeps, ctx: ReconcileContext, read: Namespace): Promise<'done' | 'content'> {
  const name = read.metadata.name!;
  return write(d, ctx, async (tx) => {
    const ns = await tx.get(NS, undefined, name);
    if (!ns || ns.metadata.uid !== read.metadata.uid || !ns.metadata.deletionTimestamp) return 'done';
    if (await namespaceHasContent(tx, name, contentKinds())) return 'content';
    const finalizers = (ns.spec?.finalizers ?? []).filter((f) => f !== namespaceFinalizer);
    // With no finalizer left the store deletes the namespace in this same write.
    await tx.update({ ...ns, spec: { ...(ns.spec ?? {}), finalizers } }, { subresource: 'finalize' });
    return 'done';
  });
}

/** The namespace is finalized: delete it (its metadata.finalizers, e.g. orphan, may still hold it). */
async function deleteFinalized(d: NamespaceControllerDeps, ctx: ReconcileContext, read: Namespace): Promise<void> {
  try {
    await write(d, ctx, (tx) => tx.delete(NS, undefined, read.metadata.name!, { preconditions: { uid: read.metadata.uid } }));
  } catch (err) {
    if (isStowageError(err) && (err.code === 'NotFound' || err.code === 'Conflict')) return;
    throw err;
  }
}

export async function syncNamespace(d: NamespaceControllerDeps, ctx: ReconcileContext, name: string): Promise<ReconcileResult | void> {
  const read = await d.store.tryGet(NS, undefined, name);
  const step = decideNamespace({ exists: Boolean(read), deletionTimestamp: read?.metadata.deletionTimestamp, specFinalizers: read?.spec?.finalizers ?? [] });
  if (!read || step.kind === 'none' || step.kind === 'wait-for-others') return;
  if (step.kind === 'delete') return deleteFinalized(d, ctx, read);
  const { tally, graces } = await emptyNamespace(d, ctx, name);
  await report(d, ctx, read, tally);
  if (hasRemaining(tally) || tally.errors.length > 0) {
    const estimate = remainingEstimateSeconds(graces, Object.keys(tally.finalizers).length > 0);
    // Changes in the namespace queue it again at once; this is the fallback look.
    return { requeueAfter: Math.min(Math.max(estimate, 1), 15) * 1000 };
  }
  if ((await finalize(d, ctx, read)) === 'content') return { requeueAfter: 1000 };
}

export function namespaceControllerSpec(d: NamespaceControllerDeps, opts: { resyncMs?: number; concurrency?: number } = {}): ControllerSpec {
  // The namespaces being deleted, as the watch sees them: a change of their content queues them.
  const terminating = new Set<string>();
  const listKeys = async () => {
    const names = await terminatingNamespaces(d.store);
    for (const n of names) terminating.add(n);
    return names.map(keyOf);
  };
  return {
    name: namespaceControllerName,
    concurrency: opts.concurrency ?? 2,
    watch: {
      kinds: [NS, ...contentKinds()],
      keysFor: (e) => {
        if (e.kind === NS) {
          if (e.type === 'DELETED' || !e.object.metadata.deletionTimestamp) {
            terminating.delete(e.name);
            return [];
          }
          terminating.add(e.name);
          return [keyOf(e.name)];
        }
        return e.namespace && terminating.has(e.namespace) ? [keyOf(e.namespace)] : [];
      },
    },
    listKeys,
    resync: { everyMs: opts.resyncMs ?? 30_000, listKeys },
    reconcile: async (key, ctx) => {
      const name = key.slice('ns/'.length);
      if (name) return syncNamespace(d, ctx, name);
    },
  };
}

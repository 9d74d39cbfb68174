// What a delete does to the stored object (upstream's graceful deletion, finalizers and
// orphan propagation): mark it (a deletionTimestamp, a grace period, the orphan
// finalizer), leave it as it is, or delete it now. No I/O: the transaction (store-tx.ts)
// reads the object under its row lock and queues what this answers.
import { StowageError } from '../domain/errors';
import { orphanFinalizer } from '../domain/well-known/finalizers';
import { timestampNow } from '../resources/metadata';
import type { KubeObject, Strategy } from '../resources/types';
import type { DeleteOptions } from './write-options';
import { nowRfc3339 } from './write-rules';

/** A delete's outcome: the object as it stays (nothing to write), or the change to queue. */
export type DeletePlan = { unchanged: KubeObject } | { type: 'MODIFIED' | 'DELETED'; object: KubeObject };

/** The grace period a delete waits for (upstream BeforeDelete): 0 when the kind or object has none. */
function graceOf(s: Strategy, obj: KubeObject, asked: number | undefined): number {
  const byDefault = s.gracefulDeletionSeconds?.(obj) ?? 0;
  if (byDefault <= 0) return 0;
  if (asked === undefined) return byDefault;
  return asked < 0 ? 1 : Math.min(asked, 86_400);
}

function inSeconds(seconds: number): string {
  return timestampNow(new Date(Date.now() + seconds * 1000));
}

/** The delete's preconditions on the stored object: its uid and resourceVersion, when given. */
function checkPreconditions(s: Strategy, name: string, prev: KubeObject, opts: DeleteOptions): void {
  const pre = opts.preconditions ?? {};
  if (pre.uid && pre.uid !== prev.metadata.uid) {
    throw new StowageError(
      'Conflict',
      `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${prev.metadata.uid}`,
      { kind: s.plural, name, ...(s.group ? { group: s.group } : {}) },
    );
  }
  if (pre.resourceVersion && pre.resourceVersion !== prev.metadata.resourceVersion) {
    throw new StowageError(
      'Conflict',
      `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${prev.metadata.resourceVersion}`,
      { kind: s.plural, name, ...(s.group ? { group: s.group } : {}) },
    );
  }
}

const modified = (object: KubeObject): DeletePlan => ({ type: 'MODIFIED', object });

/**
 * What deleting `prev` (the stored object named `name`, of `s`) does. Throws Conflict when
 * a precondition fails. Every plan but the last marks or holds the object.
 */
export function planDelete(s: Strategy, name: string, prev: KubeObject, opts: DeleteOptions): DeletePlan {
  checkPreconditions(s, name, prev, opts);
  if (s.kindFinalizers && (!prev.metadata.deletionTimestamp || s.kindFinalizers.of(prev).length > 0)) {
    // Upstream's namespace registry: the first delete marks the object (its controller
    // empties it and removes its finalizer); the object goes on a delete once they are gone.
    if (prev.metadata.deletionTimestamp) return { unchanged: prev };
    const next = structuredClone(prev);
    next.metadata.deletionTimestamp = nowRfc3339();
    s.kindFinalizers.markDeleting(next);
    if (opts.propagationPolicy === 'Orphan' && !(prev.metadata.finalizers ?? []).includes(orphanFinalizer)) {
      next.metadata.finalizers = [...(prev.metadata.finalizers ?? []), orphanFinalizer];
    }
    return modified(next);
  }
  const grace = graceOf(s, prev, opts.gracePeriodSeconds);
  const pendingGrace = prev.metadata.deletionGracePeriodSeconds ?? 0;
  if (opts.propagationPolicy === 'Orphan' && !(prev.metadata.finalizers ?? []).includes(orphanFinalizer)) {
    // Upstream adds the orphan finalizer (the garbage collector removes it once the
    // dependents let go); the object is marked deleted and stays until then.
    const next = structuredClone(prev);
    next.metadata.finalizers = [...(prev.metadata.finalizers ?? []), orphanFinalizer];
    if (!prev.metadata.deletionTimestamp) {
      next.metadata.deletionTimestamp = grace > 0 ? inSeconds(grace) : nowRfc3339();
      next.metadata.deletionGracePeriodSeconds = grace;
      next.metadata.generation = (prev.metadata.generation ?? 1) + 1;
    }
    return modified(next);
  }
  if (grace > 0) {
    // Graceful: Terminating until whoever runs the object (a node agent) deletes it with
    // grace 0. A second delete may shorten the grace period, never lengthen it.
    if (prev.metadata.deletionTimestamp && pendingGrace <= grace) return { unchanged: prev };
    const next = structuredClone(prev);
    next.metadata.deletionTimestamp = inSeconds(grace);
    next.metadata.deletionGracePeriodSeconds = grace;
    if (!prev.metadata.deletionTimestamp) next.metadata.generation = (prev.metadata.generation ?? 1) + 1;
    return modified(next);
  }
  if ((prev.metadata.finalizers ?? []).length > 0) {
    if (prev.metadata.deletionTimestamp && pendingGrace > 0) {
      const next = structuredClone(prev);
      next.metadata.deletionGracePeriodSeconds = 0;
      return modified(next);
    }
    if (prev.metadata.deletionTimestamp) return { unchanged: prev };
    const next = structuredClone(prev);
    next.metadata.deletionTimestamp = nowRfc3339();
    next.metadata.deletionGracePeriodSeconds = 0;
    next.metadata.generation = (prev.metadata.generation ?? 1) + 1;
    return modified(next);
  }
  return { type: 'DELETED', object: structuredClone(prev) };
}

// What a caller may ask of a store write, and what a write answers: shared by the store's
// transaction (store-tx.ts), the store itself (object-store.ts) and their callers.
import type { KubeObject, ObjectMeta } from '../resources/types';

/**
 * What a create or update answers: the object of the type it was given (the store keeps
 * its kind, and the kind's strategy checked it against the kind's schema), with the
 * metadata the store fills (uid, resourceVersion, creationTimestamp ...).
 */
export type Written<T extends KubeObject> = T & { metadata: ObjectMeta };

export interface WriteOptions {
  dryRun?: boolean;
  /**
   * Who writes (user:alice, token:alice/ci, controller:binder, ...), recorded in the
   * history table; absent: the async context's actor (actor-context.ts), else `system`.
   */
  actor?: string;
}
export interface UpdateOptions extends WriteOptions {
  /** `finalize`: a kind's own finalizers (Strategy.kindFinalizers), as upstream's namespaces/{name}/finalize. */
  subresource?: 'status' | 'finalize';
}
export interface DeleteOptions extends WriteOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
  /** Upstream DeleteOptions.gracePeriodSeconds: 0 deletes at once; absent takes the kind's default. */
  gracePeriodSeconds?: number;
  /**
   * Upstream DeleteOptions.propagationPolicy. Orphan holds the object with the `orphan`
   * finalizer until the garbage collector has removed it from its dependents' owners;
   * Background (and Foreground, treated alike) lets the garbage collector delete them.
   */
  propagationPolicy?: string;
}

export interface DeleteResult<T extends KubeObject = KubeObject> {
  /** The object as deleted (or as marked for deletion): of the kind deleted. */
  object: T;
  /** false when finalizers hold the object (it now has a deletionTimestamp). */
  deleted: boolean;
}

// The actor of the writes made inside a piece of work, carried by the async context: a
// controller's reconcile, a node agent's request. StoreTx reads it when a write is queued,
// unless the transaction was given an actor explicitly (services pass the principal's).
import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';

const storage = new AsyncLocalStorage<string>();

/** Runs `fn` with `actor` as the actor of every store write it makes (and its callbacks). */
export function runAs<T>(actor: string, fn: () => T): T {
  return storage.run(actor, fn);
}

/** The actor of the current async context, if any. */
export function currentActor(): string | undefined {
  return storage.getStore();
}

/** `fn` bound to the caller's async context (for work run later by a shared queue). */
export function bindToCaller<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
  return AsyncResource.bind(fn);
}

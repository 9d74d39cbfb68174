// A reconcile's writes, with their own-write echoes recorded: every controller writes
// through `write`, so the runtime never reconciles a change the reconcile itself made
// (ReconcileContext.wrote, explained in controller.ts).
import type { ObjectStore } from '../../store/object-store';
import type { ReconcileContext } from './controller';
import { transact, writtenVersions, type ControllerTx } from './controller-tx';
import type { Batched, TxBatcher } from './tx-batcher';

/** Where a controller's transactions run: the store, or a batcher sharing them (the binder). */
export interface WriteDeps {
  store: ObjectStore;
  /** When set, every write goes through it (many reconciles' writes in one transaction). */
  batcher?: TxBatcher;
}

/** One transaction of its own, and the versions its writes got. */
async function transactAlone<T>(store: ObjectStore, fn: (tx: ControllerTx) => Promise<T>): Promise<Batched<T>> {
  let last: ControllerTx | undefined;
  const result = await transact(store, async (tx) => {
    last = tx;
    return fn(tx);
  });
  return { result, versions: last ? writtenVersions(last) : [] };
}

/**
 * Runs `fn` atomically (in the batcher's shared transaction when there is one, else in a
 * transaction of its own) and tells the runtime which versions it wrote, so their echo from
 * the change log is not reconciled again. `hint` is for the batch's prefetch.
 */
export async function write<T>(d: WriteDeps, ctx: ReconcileContext, fn: (tx: ControllerTx) => Promise<T>, hint?: unknown): Promise<T> {
  const { result, versions } = d.batcher ? await d.batcher.run(fn, hint) : await transactAlone(d.store, fn);
  for (const rv of versions) ctx.wrote(rv);
  return result;
}

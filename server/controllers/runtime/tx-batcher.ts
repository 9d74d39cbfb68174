// Runs many small controller writes in few transactions.
//
// Store commits run concurrently (docs/write-path.md), but each still costs a round trip,
// a statement and a WAL flush. Putting many reconciles' writes into one transaction pays
// that once per batch; a binding stays inside one reconcile, so it is still one atomic
// unit (no volume bound to two claims).
//
// Each `run(fn)` is still atomic on its own: `fn` runs inside the shared transaction, and
// if it throws, the writes it queued are dropped and only its caller sees the error. If
// a database error breaks the transaction, each write of the batch is run again alone, so
// that only the culprit's caller sees an error.
// Batches start as soon as one is free, so a lone write is not delayed.
import { transact, type ControllerTx } from './controller-tx';
import type { ObjectStore } from '../../store/object-store';
import { bindToCaller } from '../../store/actor-context';

export interface Batched<T> {
  result: T;
  /** The resourceVersions this `fn`'s writes got. */
  versions: string[];
}

interface Item {
  fn: (tx: ControllerTx) => Promise<unknown>;
  hint?: unknown;
  resolve: (v: Batched<unknown>) => void;
  reject: (e: unknown) => void;
}

export interface TxBatcherOptions {
  /** Most writes per transaction. */
  maxBatch?: number;
  /** Transactions in flight at once. */
  parallel?: number;
  /**
   * Runs first in each batch transaction with the hints of its writes (those given one),
   * to read or lock for all of them at once what each would read alone. It must not
   * write: each write still decides for itself. What it returns runs when the batch's
   * transaction has ended (committed or not).
   */
  prefetch?: (tx: ControllerTx, hints: unknown[]) => Promise<(() => void) | void>;
}

function isDatabaseError(e: unknown): boolean {
  const name = String((e as Error)?.name ?? '');
  return name.startsWith('PrismaClient') || name === 'DriverAdapterError' || name === 'DatabaseError';
}

export class TxBatcher {
  private readonly waiting: Item[] = [];
  private active = 0;
  private readonly maxBatch: number;
  private readonly parallel: number;
  private readonly prefetch: TxBatcherOptions['prefetch'];

  constructor(
    private readonly store: ObjectStore,
    opts: TxBatcherOptions = {},
  ) {
    this.maxBatch = opts.maxBatch ?? 64;
    this.parallel = opts.parallel ?? 2;
    this.prefetch = opts.prefetch;
  }

  /** Runs `fn` in a batch transaction; `hint` tells the batch's prefetch what `fn` will read. */
  run<T>(fn: (tx: ControllerTx) => Promise<T>, hint?: unknown): Promise<Batched<T>> {
    return new Promise<Batched<T>>((resolve, reject) => {
      // fn runs in a batch another caller may have started: it keeps its caller's actor.
      this.waiting.push({ fn: bindToCaller(fn), hint, resolve: resolve as (v: Batched<unknown>) => void, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.active < this.parallel && this.waiting.length > 0) {
      const batch = this.waiting.splice(0, this.maxBatch);
      this.active++;
      void this.runBatch(batch).finally(() => {
        this.active--;
        this.pump();
      });
    }
  }

  private async runBatch(batch: Item[]): Promise<void> {
    type Outcome = { ok: true; value: unknown; from: number; to: number } | { ok: false; error: unknown };
    let outcomes: Outcome[] = [];
    let committed: ControllerTx | undefined;
    const ended: (() => void)[] = [];
    try {
      await transact(this.store, async (tx) => {
        outcomes = [];
        committed = tx;
        const hints = batch.flatMap((item) => (item.hint === undefined ? [] : [item.hint]));
        if (this.prefetch && hints.length > 0) {
          const end = await this.prefetch(tx, hints);
          if (end) ended.push(end);
        }
        for (const item of batch) {
          const from = tx.writes.length;
          try {
            const value = await item.fn(tx);
            outcomes.push({ ok: true, value, from, to: tx.writes.length });
          } catch (error) {
            // A database error leaves the transaction unusable: give the batch up.
            if (isDatabaseError(error)) throw error;
            tx.truncate(from);
            outcomes.push({ ok: false, error });
          }
        }
      });
    } catch (error) {
      for (const end of ended.splice(0)) end();
      if (batch.length === 1) {
        batch[0].reject(error);
        return;
      }
      // Find the culprit the slow way: each write in a transaction of its own.
      for (const item of batch) await this.runBatch([item]);
      return;
    }
    for (const end of ended.splice(0)) end();
    const writes = committed!.writes;
    batch.forEach((item, i) => {
      const o = outcomes[i];
      if (!o.ok) return item.reject(o.error);
      const versions = writes.slice(o.from, o.to).map((w) => w.object.metadata.resourceVersion ?? '');
      item.resolve({ result: o.value, versions });
    });
  }
}

// Running a store transaction: one Postgres transaction per attempt, the writes flushed
// at its end, the whole run again after a deadlock, a serialization failure or a version
// the change feed closed as a gap (change-feed.ts), and the highest version written told
// to the caller once committed.
import type pg from 'pg';
import { inTransaction, type SqlClient } from './pg';
import type { StoreTx } from './store-tx';
import type { WriteOptions } from './write-options';

/** StoreTx or a subclass of it (e.g. the controllers' read-your-writes one). */
export type TxClass<X extends StoreTx> = new (sql: SqlClient, dryRun: boolean, actor?: string) => X;

/** Attempts after the first before a retryable failure is thrown. */
const RETRIES = 5;

/**
 * Errors after which the whole transaction is run again: deadlocks, serialization
 * failures, and a resourceVersion a reader of the change log closed as a gap before this
 * transaction wrote its row (change-feed.ts).
 */
function isRetryable(e: unknown): boolean {
  const err = e as { message?: unknown; code?: unknown; constraint?: unknown };
  if (err?.code === '40P01' || err?.code === '40001') return true;
  if (err?.code === '23505' && err.constraint === 'change_log_pkey') return true;
  const msg = String(err?.message ?? '');
  return /deadlock detected|could not serialize|40P01|40001/.test(msg);
}

/** The highest resourceVersion a committed transaction's writes got. */
function lastVersion(stx: StoreTx): bigint | undefined {
  let top: bigint | undefined;
  for (const w of stx.writes) {
    const rv = w.object.metadata.resourceVersion;
    if (rv && (top === undefined || BigInt(rv) > top)) top = BigInt(rv);
  }
  return top;
}

/**
 * Runs `fn` in one transaction of a `Tx` on `pool`: all its writes commit together or not
 * at all. `committed` hears the highest version written, after the commit (never for a
 * dry run or a transaction that wrote nothing).
 */
export async function runTransaction<X extends StoreTx, T>(
  pool: pg.Pool,
  Tx: TxClass<X>,
  fn: (tx: X) => Promise<T>,
  opts: WriteOptions,
  committed: (top: bigint) => void,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      let written: X | undefined;
      const result = await inTransaction(pool, async (sql) => {
        const stx = new Tx(sql, !!opts.dryRun, opts.actor);
        const result = await fn(stx);
        await stx.flush();
        written = stx;
        return result;
      });
      const top = written && !written.dryRun ? lastVersion(written) : undefined;
      if (top !== undefined) committed(top);
      return result;
    } catch (e) {
      if (attempt < RETRIES && isRetryable(e)) continue;
      throw e;
    }
  }
}

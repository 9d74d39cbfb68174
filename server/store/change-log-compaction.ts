// Compaction of the change log: old entries go, so the log does not grow without end,
// while a list can still be served as of any version at or above the cut (list.ts) and a
// watch from a version below it fails as Expired (watch-stream.ts).
import type pg from 'pg';
import { compactedRv, GAP, settle } from './change-feed';
import { inTransaction, poolSql } from './pg';

/**
 * Drops change-log entries older than `olderThanMs`, always keeping the newest `keep`
 * entries, and never past the settled prefix. A watch from a dropped version then fails
 * as Expired. Each key's newest entry at the cut stays (unless it is a deletion), so a
 * list can still be served as of any version at or above the cut (list.ts). Answers the
 * version compacted up to.
 */
export async function compactChangeLog(pool: pg.Pool, olderThanMs: number, keep: number): Promise<bigint> {
  const { settled } = await settle(poolSql(pool));
  return inTransaction(pool, async (tx) => {
    const rows = await tx.$queryRawUnsafe<{ cutoff: bigint | null }[]>(
      `SELECT max(rv) AS cutoff FROM change_log
        WHERE created_at < now() - ($1::double precision * interval '1 millisecond') AND rv <= $3
          AND rv <= COALESCE((SELECT rv FROM change_log ORDER BY rv DESC OFFSET $2 LIMIT 1), 0)`,
      olderThanMs,
      keep,
      settled,
    );
    const cutoff = rows[0]?.cutoff;
    if (cutoff === null || cutoff === undefined) return compactedRv(tx);
    await tx.$executeRawUnsafe(
      `DELETE FROM change_log c WHERE c.rv <= $1
         AND (c.type IN ('DELETED', '${GAP}') OR EXISTS (
           SELECT 1 FROM change_log d WHERE d.kind = c.kind AND d.namespace = c.namespace AND d.name = c.name AND d.rv > c.rv AND d.rv <= $1))`,
      cutoff,
    );
    await tx.$executeRawUnsafe('UPDATE store_meta SET compacted_rv = GREATEST(compacted_rv, $1) WHERE id = 1', cutoff);
    return BigInt(cutoff);
  });
}

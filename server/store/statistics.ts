// Planner statistics that keep up with a store growing from empty.
//
// The store prepares its statements once per connection (pg.ts), and Postgres keeps a
// statement's generic plan until the table's statistics change. A plan made while
// `objects` was empty is a guess between indexes that all cost the same: the lookup by
// unique key was planned as a scan of `objects_kind_capacity_idx` (every object of the
// kind) with a filter on namespace and name. Such a plan stays in the connection while
// the table grows to thousands of rows in seconds, long before autovacuum's next analyze
// (a minute at the least), and each lookup then reads the whole kind: in a burst of
// 10,000 volumes and claims, 3,500 buffers per lookup and most of Postgres's CPU.
//
// So the store analyzes its tables itself each time the change log has doubled since the
// last time: ANALYZE replaces the statistics and makes every session plan its prepared
// statements again. Doubling keeps it rare (about twenty times in the first million
// changes, each one a sampled read) while no plan outlives a tenfold growth of the table.
import type { SqlClient } from './pg';

/** The change-log length below which the tables are too small for a plan to matter. */
export const FIRST_REFRESH = 256n;

/** The resourceVersion at which statistics are next refreshed, after a refresh at `rv`. */
export function nextRefreshAfter(rv: bigint): bigint {
  const twice = rv * 2n;
  return twice > FIRST_REFRESH ? twice : FIRST_REFRESH;
}

/**
 * Analyzes the store's tables. SKIP_LOCKED: another process's concurrent ANALYZE does the
 * same work, and a refresh must never wait. Failures (a role that does not own the tables)
 * leave the statistics to autovacuum.
 */
export async function refreshStatistics(db: SqlClient): Promise<void> {
  await db.$executeRawUnsafe('ANALYZE (SKIP_LOCKED) objects, change_log').catch(() => {});
}

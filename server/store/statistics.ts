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
// So the store analyzes a table itself once it holds more than twice the rows its
// statistics describe. The decision reads the table's own state (the rows the planner
// assumes, pg_class.reltuples, against the live rows the statistics collector counts), not
// anything a process remembers: an analyze by any process or by autovacuum counts, several
// processes do not analyze the same growth each, and a table that only changes in place
// (a pool of volumes made Available) is never analyzed again by the store. Growth by
// doubling keeps it rare (about twenty times up to a million rows) while no plan outlives
// a table twice the size it was planned for.
import type { SqlClient } from './pg';

/** Below this many rows a table is too small for a plan to matter. */
export const FIRST_REFRESH_ROWS = 256;

/** The tables whose growth the store's plans depend on. */
export const ANALYZED_TABLES = ['objects', 'change_log'] as const;

/** How often a change feed looks at the statistics while the store is written. */
export const CHECK_INTERVAL_MS = 1000;

/**
 * How long after the last write it keeps looking: a backend that has reported its counts
 * less than a second ago reports the next ones once it has been idle for 10 s
 * (PGSTAT_IDLE_INTERVAL), so the growth of a burst's last writes shows only in a look that
 * late.
 */
export const RECHECK_FOR_MS = 15_000;

/** When a change feed looks at the statistics: once a second while its head moves, and a little after. */
export class StatisticsSchedule {
  private lastHead: bigint | undefined;
  private lastCheck = -Infinity;
  private recheckUntil = -Infinity;

  /** Whether to look now, with the feed's head at `head` at time `now` (ms). */
  due(head: bigint, now: number): boolean {
    if (head !== this.lastHead) {
      this.lastHead = head;
      this.recheckUntil = now + RECHECK_FOR_MS;
    }
    if (now > this.recheckUntil || now - this.lastCheck < CHECK_INTERVAL_MS) return false;
    this.lastCheck = now;
    return true;
  }
}

/**
 * Whether a table's statistics are too old for its plans: it holds more than twice the
 * rows they describe. `planned` is pg_class.reltuples (-1 for a table never analyzed).
 */
export function statisticsStale(live: number, planned: number): boolean {
  return live >= FIRST_REFRESH_ROWS && live > 2 * Math.max(planned, 0);
}

/**
 * Analyzes each store table that has outgrown its statistics. SKIP_LOCKED: another
 * process's concurrent ANALYZE does the same work, and a refresh must never wait. Failures
 * (a role that does not own the tables) leave the statistics to autovacuum.
 */
export async function refreshStaleStatistics(db: SqlClient): Promise<void> {
  try {
    const rows = await db.$queryRawUnsafe<{ name: string; live: string; planned: number }[]>(
      `SELECT t.name, pg_stat_get_live_tuples(c.oid)::text AS live, c.reltuples::float8 AS planned
         FROM unnest($1::text[]) AS t(name) JOIN pg_class c ON c.oid = to_regclass(t.name)`,
      [...ANALYZED_TABLES],
    );
    const stale = rows.filter((r) => statisticsStale(Number(r.live), Number(r.planned))).map((r) => r.name);
    if (stale.length > 0) await db.$executeRawUnsafe(`ANALYZE (SKIP_LOCKED) ${stale.join(', ')}`);
  } catch {
    // Autovacuum keeps the statistics, later.
  }
}

/** A change feed's keeper of the statistics: looks when the schedule says, one look at a time. */
export class StatisticsKeeper {
  private readonly schedule = new StatisticsSchedule();
  private running: Promise<void> | undefined;

  constructor(private readonly db: SqlClient) {}

  /** The feed has read up to `head`. */
  tick(head: bigint, now = Date.now()): void {
    if (this.running || !this.schedule.due(head, now)) return;
    this.running = refreshStaleStatistics(this.db).finally(() => {
      this.running = undefined;
    });
  }
}

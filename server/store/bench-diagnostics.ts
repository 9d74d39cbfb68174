// What the benches do to the database between their setup and their measurement, and what
// they can print about its statements.
import pg from 'pg';

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/**
 * Pays the setup's write debt before a measurement: a vacuum (the dead row versions and
 * unset hint bits a pool made Available by the hundred thousand leaves behind, which
 * autovacuum clears within its next minute), an analyze (what autovacuum's own analyze
 * would then find), and a checkpoint (the setup's dirty pages written out, so the next
 * checkpoint is not due in the middle of the measurement). Without it the figure depends
 * on where that background work happens to fall.
 */
export async function settleDatabase(url: string): Promise<void> {
  await withClient(url, async (c) => {
    await c.query('VACUUM (ANALYZE) objects, change_log, history');
    await c.query('CHECKPOINT');
  });
}

/** The server settings `StatementStats` needs (startEmbeddedPostgres's `settings`). */
export const STATEMENT_STATS_SETTINGS = ['shared_preload_libraries=pg_stat_statements'];

/** The top statements by time between `start` and `stop` (pg_stat_statements). */
export class StatementStats {
  private constructor(private readonly url: string) {}

  static async start(url: string): Promise<StatementStats> {
    await withClient(url, async (c) => {
      await c.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
      await c.query('SELECT pg_stat_statements_reset()');
    });
    return new StatementStats(url);
  }

  /** Statements executed since `start`, all of them (BEGIN and COMMIT included: each is a round trip). */
  calls(): Promise<number> {
    return withClient(this.url, async (c) => Number((await c.query('SELECT coalesce(sum(calls), 0)::bigint AS n FROM pg_stat_statements')).rows[0].n));
  }

  /**
   * calls, total and mean ms, buffers read/hit, dirtied and written by the backend, the
   * statement's start; the top `limit` by total time, or by calls (`by: 'calls'`: what each
   * round trip costs the caller, whatever Postgres spends on it).
   */
  stop(limit = 12, by: 'time' | 'calls' = 'time'): Promise<Record<string, unknown>[]> {
    return withClient(this.url, async (c) => {
      const r = await c.query(
        `SELECT calls, round(total_exec_time::numeric, 1) AS ms, round(mean_exec_time::numeric, 2) AS mean,
                shared_blks_hit + shared_blks_read AS buffers, shared_blks_dirtied AS dirtied, shared_blks_written AS written,
                left(regexp_replace(query, '\\s+', ' ', 'g'), 160) AS statement
           FROM pg_stat_statements ORDER BY ${by === 'calls' ? 'calls' : 'total_exec_time'} DESC LIMIT $1`,
        [limit],
      );
      return r.rows;
    });
  }
}

/**
 * Runs a bench's own statements one after another on one connection of their own (a bulk
 * load of generated rows, read-backs of it), no statement timeout: each one's rows and
 * time. The SQL is the bench's (bench/million.ts); this only gives it a connection.
 */
export function runStatements(url: string, statements: { sql: string; params?: unknown[] }[]): Promise<{ rows: Record<string, unknown>[]; ms: number }[]> {
  return withClient(url, async (c) => {
    await c.query('SET statement_timeout = 0');
    const out: { rows: Record<string, unknown>[]; ms: number }[] = [];
    for (const s of statements) {
      const t0 = performance.now();
      const r = await c.query(s.sql, s.params);
      out.push({ rows: r.rows, ms: performance.now() - t0 });
    }
    return out;
  });
}

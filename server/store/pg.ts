// The process's one database client: a node-postgres pool, used only by the store.
//
// Prisma is the schema and migration tool (prisma/schema.prisma, prisma/migrations,
// migrate.ts) and nothing at run time. Why one pg stack and no Prisma client beside it:
// - Prisma's interactive transactions cost several milliseconds each, and every object
//   write is a transaction; the hot paths (writes, get, list, the change feed, the
//   controllers' queries) were on this pool already.
// - One stack is one kind of pool to size and one failure mode (connection errors, timeouts,
//   error codes) to handle, instead of two clients' pools competing for Postgres's
//   connections. (The store does keep two pools of this kind: requests' and background
//   work's, connection-lanes.ts.)
import pg from 'pg';

/** What the store's SQL needs from a connection or transaction. */
export interface SqlClient {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
  $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number>;
}

const INT8 = 20;
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8) return (v: string) => BigInt(v);
    return pg.types.getTypeParser(oid, format);
  },
};

/**
 * Bounds on every wait, so a request never hangs on a database that restarts, fails over
 * or vanishes from the network: it fails within about half a minute with an error that
 * domain/database-unavailable.ts classifies, and the transports answer 503 + Retry-After.
 */
export const POOL_TIMEOUTS = {
  /** Establishing a connection, or waiting for a free one in the pool. */
  connectionTimeoutMillis: 10_000,
  /** Server side: one statement (including lock waits) runs at most this long. */
  statement_timeout: 25_000,
  /** Client side: no answer at all (a dead network) by then fails the query. */
  query_timeout: 28_000,
} as const;

/**
 * A pool of at most `max` connections, made as they are needed. `applicationName` names
 * its connections in Postgres (pg_stat_activity.application_name).
 */
export function createPool(connectionString: string, max = 10, applicationName?: string): pg.Pool {
  // pipeline: a statement is sent without waiting for the answer to the one before it on the
  // same connection; only inTransaction makes use of it (a BEGIN travels with the first read).
  const named = applicationName ? { application_name: applicationName } : {};
  const pool = new pg.Pool({ connectionString, max, types, idleTimeoutMillis: 30_000, keepAlive: true, pipeline: true, ...named, ...POOL_TIMEOUTS });
  pool.on('error', () => {}); // an idle client died; the pool replaces it
  return pool;
}

const param = (v: unknown) => (typeof v === 'bigint' ? v.toString() : v);

// Parameterised statements are prepared once per connection and then only bound and run:
// the store sends the same few statements (get, the write statement, matching, the log
// reads) thousands of times a second, and parsing and planning them each time cost
// Postgres more CPU than running them. Query texts are the program's own (values always
// travel as parameters), so their number is small; past a bound, texts are sent unnamed.
const MAX_PREPARED = 512;
const statementNames = new Map<string, string>();

function statementName(text: string): string | undefined {
  const known = statementNames.get(text);
  if (known || statementNames.size >= MAX_PREPARED) return known;
  const name = `stowage_${statementNames.size}`;
  statementNames.set(text, name);
  return name;
}

function queryConfig(text: string, values: unknown[]): pg.QueryConfig {
  const params = values.map(param);
  const name = values.length > 0 ? statementName(text) : undefined;
  return name ? { name, text, values: params } : { text, values: params };
}

class PgSql implements SqlClient {
  constructor(private readonly q: pg.Pool | pg.PoolClient) {}
  async $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T> {
    return (await this.q.query(queryConfig(query, values))).rows as T;
  }
  async $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number> {
    return (await this.q.query(queryConfig(query, values))).rowCount ?? 0;
  }
}

export function poolSql(pool: pg.Pool): SqlClient {
  return new PgSql(pool);
}

export type Isolation = 'READ COMMITTED' | 'REPEATABLE READ' | 'SERIALIZABLE';

/** Data changes: such a statement is never sent before the transaction is known to have begun. */
const WRITES = /\b(INSERT\s+INTO|DELETE\s+FROM|MERGE\s+INTO|UPDATE\s+[\w".]+(\s+(AS\s+)?\w+)?\s+SET|TRUNCATE|COPY)\b/i;

/**
 * A transaction's connection that saves a round trip (docs/write-path.md, "Round trips"):
 * BEGIN is sent with the transaction's first statement, not before it, and a first
 * statement that reads (a lock, a lookup) travels right behind it without waiting for its
 * answer. One that writes waits for BEGIN's answer first, so that a failed BEGIN can never
 * leave a write committed on its own. A transaction that sends nothing costs nothing.
 *
 * Every write stays inside BEGIN ... COMMIT, even a transaction's only statement: the
 * store's write statement is checked after it ran (an AlreadyExists, the order of its
 * versions) and rolled back when a check fails, so it must not commit by itself.
 */
class TxSql extends PgSql {
  /** BEGIN's answer, once sent. */
  private begun: Promise<unknown> | undefined;
  constructor(
    private readonly client: pg.PoolClient,
    private readonly isolation: Isolation | undefined,
  ) {
    super(client);
  }

  /** Whether a transaction was begun (then it must end with COMMIT or ROLLBACK). */
  get open(): boolean {
    return this.begun !== undefined;
  }

  /** BEGIN's answer, when one was sent. */
  async ready(): Promise<void> {
    if (this.begun) await this.begun;
  }

  private async before(query: string): Promise<void> {
    if (this.begun === undefined) {
      const begun = this.client.query(this.isolation ? `BEGIN ISOLATION LEVEL ${this.isolation}` : 'BEGIN');
      // Observed by ready() or by the statement after it; never an unhandled rejection.
      begun.catch(() => {});
      this.begun = begun;
      if (!WRITES.test(query)) return;
    }
    await this.begun;
  }

  override async $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T> {
    await this.before(query);
    return super.$queryRawUnsafe<T>(query, ...values);
  }

  override async $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number> {
    await this.before(query);
    return super.$executeRawUnsafe(query, ...values);
  }
}

export async function inTransaction<T>(pool: pg.Pool, fn: (sql: SqlClient) => Promise<T>, isolation?: Isolation): Promise<T> {
  const client = await pool.connect();
  // A checked-out client has no error listener of the pool's: a connection lost mid-
  // transaction (Postgres restarting, failing over) would otherwise be an uncaught 'error'
  // event that ends the process. The query in flight rejects; the client is discarded.
  let broken: Error | undefined;
  const onError = (e: Error) => {
    broken = e;
  };
  client.on('error', onError);
  const sql = new TxSql(client, isolation);
  try {
    const result = await fn(sql);
    if (sql.open) {
      await sql.ready();
      await client.query('COMMIT');
    }
    return result;
  } catch (e) {
    if (!broken && sql.open) await client.query('ROLLBACK').catch(() => {});
    throw e;
  } finally {
    client.removeListener('error', onError);
    client.release(broken);
  }
}

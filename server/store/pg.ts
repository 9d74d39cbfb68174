// The store's direct Postgres access (node-postgres). Prisma's interactive transactions
// cost several milliseconds each; the store's hot paths (every object write, get, list
// and the change feed) use a pool of its own with the same raw-query surface.
import pg from 'pg';

/** What the store's SQL needs from a connection or transaction (Prisma's tx fits too). */
export interface SqlClient {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
  $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number>;
}

const INT8 = 20;
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8) return (v: string) => BigInt(v);
    return pg.types.getTypeParser(oid, format as 'text');
  },
} as pg.CustomTypesConfig;

export function createPool(connectionString: string, max = 10): pg.Pool {
  const pool = new pg.Pool({ connectionString, max, types, idleTimeoutMillis: 30_000 });
  pool.on('error', () => {}); // an idle client died; the pool replaces it
  return pool;
}

const param = (v: unknown) => (typeof v === 'bigint' ? v.toString() : v);

class PgSql implements SqlClient {
  constructor(private readonly q: pg.Pool | pg.PoolClient) {}
  async $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T> {
    return (await this.q.query(query, values.map(param))).rows as T;
  }
  async $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number> {
    return (await this.q.query(query, values.map(param))).rowCount ?? 0;
  }
}

export function sqlOf(pool: pg.Pool): SqlClient {
  return new PgSql(pool);
}

export type Isolation = 'READ COMMITTED' | 'REPEATABLE READ' | 'SERIALIZABLE';

export async function inTransaction<T>(pool: pg.Pool, fn: (sql: SqlClient) => Promise<T>, isolation?: Isolation): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(isolation ? `BEGIN ISOLATION LEVEL ${isolation}` : 'BEGIN');
    const result = await fn(new PgSql(client));
    await client.query('COMMIT');
    return result;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {});
    throw e;
  } finally {
    client.release();
  }
}

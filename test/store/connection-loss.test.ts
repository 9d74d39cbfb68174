// Postgres restarting or failing over ends connections in the middle of transactions. The
// transaction must fail with an error the transports answer as a retryable 503, and the
// process must live on (a checked-out pg client with no 'error' listener would emit an
// uncaught 'error' event and end it), with the pool working again at once.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPool, inTransaction } from '../../server/store/pg';
import { databaseUnavailableReason } from '../../server/domain/database-unavailable';
import { createTestDatabase, rawQuery } from '../db';

let url: string;
let pool: ReturnType<typeof createPool>;

beforeAll(async () => {
  url = await createTestDatabase();
  pool = createPool(url, 4);
});
afterAll(async () => {
  await pool.end();
});

it('a transaction whose connection is killed fails as "database unavailable", and the pool goes on', async () => {
  const uncaught: unknown[] = [];
  const onUncaught = (e: unknown) => uncaught.push(e);
  process.on('uncaughtException', onUncaught);
  try {
    let pid = 0;
    const failed = inTransaction(pool, async (sql) => {
      pid = Number((await sql.$queryRawUnsafe<{ pid: number }[]>('SELECT pg_backend_pid() AS pid'))[0].pid);
      await sql.$queryRawUnsafe('SELECT pg_sleep(30)');
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    const deadline = Date.now() + 10_000;
    while (!pid && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await rawQuery(url, 'SELECT pg_terminate_backend($1)', [pid]);
    const err = await failed;
    expect(err).toBeInstanceOf(Error);
    expect(databaseUnavailableReason(err)).toBeDefined();
    // The broken client was discarded, not handed out again.
    const rows = await inTransaction(pool, (sql) => sql.$queryRawUnsafe<{ one: number }[]>('SELECT 1 AS one'));
    expect(rows[0].one).toBe(1);
    await new Promise((r) => setImmediate(r));
    expect(uncaught).toEqual([]);
  } finally {
    process.off('uncaughtException', onUncaught);
  }
}, 30_000);

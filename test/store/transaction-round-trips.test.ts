// inTransaction's round trips, seen from what is sent to a real Postgres: BEGIN travels
// with a first statement that reads (sent before BEGIN is answered); a first statement that
// writes waits for BEGIN's answer; a write is never outside BEGIN ... COMMIT; a failed BEGIN
// fails the transaction without committing anything.
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createPool, inTransaction, type Isolation } from '../../server/store/pg';
import { createTestDatabase } from '../db';

interface Sent {
  text: string;
  /** How many statements sent before it on its connection were still unanswered when it was sent. */
  inFlight: number;
}

let pool: pg.Pool;
let sent: Sent[] = [];

beforeAll(async () => {
  pool = createPool(await createTestDatabase(), 2);
  await pool.query('CREATE TABLE rt_probe (id int PRIMARY KEY)');
  // Records each statement a checked-out client sends, and how many before it were answered.
  // pool.query checks out with a callback: left as it is (those are the test's own reads).
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => Promise<pg.PoolClient> | void;
  (pool as { connect: unknown }).connect = async (...args: unknown[]) => {
    if (args.length > 0) return connect(...args);
    const client = (await connect())!;
    if ((client as { recorded?: boolean }).recorded) return client;
    (client as { recorded?: boolean }).recorded = true;
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    let answered = 0;
    let issued = 0;
    (client as { query: unknown }).query = (...args: unknown[]) => {
      // pool.query's own statements (the test's reads) come with a callback: not recorded.
      if (typeof args.at(-1) === 'function') return query(...args);
      const config = args[0];
      const text = typeof config === 'string' ? config : (config as { text: string }).text;
      sent.push({ text, inFlight: issued++ - answered });
      const p = query(...args);
      if (p instanceof Promise) {
        p.then(
          () => answered++,
          () => answered++,
        );
      }
      return p;
    };
    return client;
  };
});
afterAll(async () => {
  await pool?.end();
});

const texts = () => sent.map((s) => s.text.split(' ').slice(0, 2).join(' '));
const rows = async () => (await pool.query<{ id: number }>('SELECT id FROM rt_probe ORDER BY id')).rows.map((r) => r.id);

describe('inTransaction round trips', () => {
  test('a first statement that reads goes out behind BEGIN before BEGIN is answered', async () => {
    sent = [];
    await inTransaction(pool, async (sql) => {
      await sql.$queryRawUnsafe('SELECT id FROM rt_probe WHERE id = $1 FOR UPDATE', 1);
      await sql.$executeRawUnsafe('INSERT INTO rt_probe (id) VALUES ($1)', 1);
    });
    expect(texts()).toEqual(['BEGIN', 'SELECT id', 'INSERT INTO', 'COMMIT']);
    expect(sent[1].inFlight).toBe(1);
    expect(await rows()).toEqual([1]);
  });

  test('a first statement that writes waits for BEGIN to be answered', async () => {
    sent = [];
    await inTransaction(pool, async (sql) => {
      await sql.$executeRawUnsafe('INSERT INTO rt_probe (id) VALUES ($1)', 2);
      await sql.$queryRawUnsafe('SELECT 1');
    });
    expect(texts()).toEqual(['BEGIN', 'INSERT INTO', 'SELECT 1', 'COMMIT']);
    expect(sent[1].inFlight).toBe(0);
  });

  test('a transaction of one write still runs it inside BEGIN ... COMMIT, so a check after it can roll it back', async () => {
    sent = [];
    await expect(
      inTransaction(pool, async (sql) => {
        await sql.$executeRawUnsafe('INSERT INTO rt_probe (id) VALUES ($1)', 40);
        // What the store does when its write statement's result fails a check (an AlreadyExists).
        throw new Error('the write did not do what it had to');
      }),
    ).rejects.toThrow('the write did not do what it had to');
    expect(texts()).toEqual(['BEGIN', 'INSERT INTO', 'ROLLBACK']);
    expect(await rows()).not.toContain(40);
  });

  test('a failure of a later statement rolls back the earlier ones', async () => {
    sent = [];
    await expect(
      inTransaction(pool, async (sql) => {
        await sql.$executeRawUnsafe('INSERT INTO rt_probe (id) VALUES ($1)', 10);
        await sql.$executeRawUnsafe('INSERT INTO rt_probe (id) VALUES ($1)', 1); // a duplicate key
      }),
    ).rejects.toThrow(/duplicate key/);
    expect(texts()).toEqual(['BEGIN', 'INSERT INTO', 'INSERT INTO', 'ROLLBACK']);
    expect(await rows()).not.toContain(10);
  });

  test('nothing sent, nothing begun: a transaction that reads and writes nothing costs no round trip', async () => {
    sent = [];
    expect(await inTransaction(pool, async () => 'nothing')).toBe('nothing');
    expect(sent).toEqual([]);
  });

  test('a failed BEGIN fails the transaction, and a write never goes out behind it', async () => {
    const broken = 'NO SUCH LEVEL' as Isolation;
    await expect(
      inTransaction(
        pool,
        async (sql) => {
          await sql.$queryRawUnsafe('SELECT 1');
          return 'read';
        },
        broken,
      ),
    ).rejects.toThrow(/syntax error/);
    sent = [];
    await expect(inTransaction(pool, (sql) => sql.$executeRawUnsafe('INSERT INTO rt_probe (id) VALUES ($1)', 20), broken)).rejects.toThrow(/syntax error/);
    expect(texts()).not.toContain('INSERT INTO');
    expect(await rows()).not.toContain(20);
  });

  test('a function that throws after a pipelined read rolls back', async () => {
    sent = [];
    await expect(
      inTransaction(pool, async (sql) => {
        await sql.$queryRawUnsafe('SELECT id FROM rt_probe WHERE id = $1', 1);
        await sql.$executeRawUnsafe('INSERT INTO rt_probe (id) VALUES ($1)', 30);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(texts().at(-1)).toBe('ROLLBACK');
    expect(await rows()).not.toContain(30);
  });
});

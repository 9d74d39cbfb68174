// The raw single-row transaction rate of a Postgres server: pgbench -N ("simple update":
// one UPDATE, one SELECT, one INSERT per transaction) when pgbench is on PATH, otherwise
// the same transactions from a `pg` loop.
import { spawnSync } from 'node:child_process';
import pg from 'pg';
import { ensureDatabase } from './database';

export interface RawRate {
  tps: number;
  how: string;
}

function onPath(cmd: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).status === 0;
}

function pgEnv(baseUrl: string, database: string): NodeJS.ProcessEnv {
  const u = new URL(baseUrl);
  return {
    ...process.env,
    PGHOST: decodeURIComponent(u.hostname), // a socket directory or 127.0.0.1
    PGPORT: u.port,
    PGUSER: decodeURIComponent(u.username),
    PGPASSWORD: decodeURIComponent(u.password),
    PGDATABASE: database,
  };
}

async function withPgbench(baseUrl: string, clients: number, seconds: number): Promise<RawRate> {
  await ensureDatabase(baseUrl, 'pgbench');
  const env = pgEnv(baseUrl, 'pgbench');
  const init = spawnSync('pgbench', ['-i', '-s', '10', '-q'], { env, encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`pgbench -i failed: ${init.stderr}`);
  const run = spawnSync('pgbench', ['-N', '-c', String(clients), '-j', '2', '-T', String(seconds)], { env, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`pgbench -N failed: ${run.stderr}`);
  const m = /tps = ([\d.]+) \(without initial connection time\)/.exec(run.stdout) ?? /tps = ([\d.]+)/.exec(run.stdout);
  if (!m) throw new Error(`cannot read pgbench output: ${run.stdout}`);
  return { tps: Number(m[1]), how: `pgbench -N -c ${clients} -j 2 -T ${seconds} (scale 10)` };
}

async function withPgLoop(baseUrl: string, clients: number, seconds: number): Promise<RawRate> {
  const url = await ensureDatabase(baseUrl, 'rawloop');
  const setup = new pg.Client({ connectionString: url });
  await setup.connect();
  await setup.query('CREATE TABLE IF NOT EXISTS accounts (aid int PRIMARY KEY, abalance int NOT NULL DEFAULT 0)');
  await setup.query('CREATE TABLE IF NOT EXISTS history (aid int, delta int, mtime timestamptz)');
  await setup.query('INSERT INTO accounts (aid) SELECT g FROM generate_series(1, 100000) g ON CONFLICT DO NOTHING');
  await setup.end();
  const until = Date.now() + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      while (Date.now() < until) {
        const aid = 1 + Math.floor(Math.random() * 100000);
        const delta = Math.floor(Math.random() * 10000) - 5000;
        await c.query('BEGIN');
        await c.query('UPDATE accounts SET abalance = abalance + $1 WHERE aid = $2', [delta, aid]);
        await c.query('SELECT abalance FROM accounts WHERE aid = $1', [aid]);
        await c.query('INSERT INTO history (aid, delta, mtime) VALUES ($1, $2, now())', [aid, delta]);
        await c.query('COMMIT');
        done++;
      }
      await c.end();
    }),
  );
  return { tps: done / seconds, how: `pg loop, ${clients} clients, ${seconds} s (UPDATE+SELECT+INSERT per transaction)` };
}

export async function rawTransactionRate(baseUrl: string, clients = 8, seconds = 10): Promise<RawRate> {
  if (onPath('pgbench')) {
    try {
      return await withPgbench(baseUrl, clients, seconds);
    } catch (e) {
      console.error(`pgbench failed (${(e as Error).message.split('\n')[0]}); using a pg loop`);
    }
  }
  return withPgLoop(baseUrl, clients, seconds);
}

// A Postgres primary with a streaming standby, from the distribution's PostgreSQL
// binaries (initdb, pg_ctl, pg_basebackup; Debian's postgresql package). Run as the
// `postgres` user when we are root (Postgres refuses to run as root). For a test cluster
// on loopback only: trust authentication on 127.0.0.1.
import { existsSync, mkdirSync, readdirSync, writeFileSync, appendFileSync, chownSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import { run, waitUntil } from './processes';

/** The directory of the newest distribution PostgreSQL's binaries, or undefined (then PATH). */
export function pgBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
  for (const v of versions) if (existsSync(path.join(root, v, 'bin', 'pg_ctl'))) return path.join(root, v, 'bin');
  return undefined;
}

export function postgresBinaries(): { available: boolean; why?: string } {
  const dir = pgBinDir();
  const have = (b: string) => (dir ? existsSync(path.join(dir, b)) : whichSync(b));
  for (const b of ['initdb', 'pg_ctl', 'pg_basebackup']) if (!have(b)) return { available: false, why: `${b} not found (install the postgresql package)` };
  if (process.getuid?.() === 0 && !userExists('postgres')) return { available: false, why: 'running as root, and there is no postgres user to run Postgres as' };
  return { available: true };
}

function whichSync(b: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${b}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function userExists(name: string): boolean {
  try {
    execFileSync('id', ['-u', name], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const asRoot = () => process.getuid?.() === 0;

/** Runs a PostgreSQL binary as the postgres user (when root) or as ourselves. */
function pgRun(bin: string, args: string[], opts: { allowFail?: boolean; timeoutMs?: number } = {}): Promise<string> {
  const dir = pgBinDir();
  const exe = dir ? path.join(dir, bin) : bin;
  return asRoot() ? run('runuser', ['-u', 'postgres', '--', exe, ...args], opts) : run(exe, args, opts);
}

function ownByPostgres(p: string): void {
  if (!asRoot()) return;
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  chownSync(p, uid, gid);
}

export interface PgServer {
  name: string;
  dataDir: string;
  port: number;
}

export const urlOf = (port: number, db = 'postgres') => `postgresql://postgres@127.0.0.1:${port}/${db}`;

/** Whether the server at `port` answers and is a primary (not in recovery). */
export async function isPrimary(port: number): Promise<boolean> {
  const c = new pg.Client({ connectionString: urlOf(port), connectionTimeoutMillis: 2000 });
  c.on('error', () => {});
  try {
    await c.connect();
    const r = await c.query<{ r: boolean }>('SELECT pg_is_in_recovery() AS r');
    return r.rows[0]?.r === false;
  } finally {
    await c.end().catch(() => {});
  }
}

export async function answers(port: number): Promise<boolean> {
  const c = new pg.Client({ connectionString: urlOf(port), connectionTimeoutMillis: 2000 });
  c.on('error', () => {});
  try {
    await c.connect();
    await c.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await c.end().catch(() => {});
  }
}

function conf(s: PgServer, extra: string[]): string {
  return [
    `port = ${s.port}`,
    `listen_addresses = '127.0.0.1'`,
    `unix_socket_directories = '${s.dataDir}'`,
    'max_connections = 300',
    'wal_level = replica',
    'max_wal_senders = 10',
    'wal_keep_size = 256MB',
    'hot_standby = on',
    'fsync = on',
    `logging_collector = off`,
    ...extra,
  ].join('\n');
}

/** initdb + the primary's settings (synchronous commit to `standbyName` when given). */
export async function initPrimary(s: PgServer, standbyName?: string): Promise<void> {
  rmSync(s.dataDir, { recursive: true, force: true });
  mkdirSync(s.dataDir, { recursive: true, mode: 0o700 });
  ownByPostgres(s.dataDir);
  await pgRun('initdb', ['-D', s.dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  appendFileSync(
    path.join(s.dataDir, 'postgresql.conf'),
    `\n${conf(s, standbyName ? [`synchronous_standby_names = '${standbyName}'`, 'synchronous_commit = on'] : [])}\n`,
  );
  writeFileSync(
    path.join(s.dataDir, 'pg_hba.conf'),
    ['local all all trust', 'host all all 127.0.0.1/32 trust', 'host replication all 127.0.0.1/32 trust', ''].join('\n'),
  );
}

/** A streaming standby of `primary`, named `name` (its application_name), asynchronous itself. */
export async function initStandby(s: PgServer, primary: PgServer): Promise<void> {
  rmSync(s.dataDir, { recursive: true, force: true });
  mkdirSync(path.dirname(s.dataDir), { recursive: true });
  await pgRun('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-D', s.dataDir, '-X', 'stream', '-R', '--no-sync']);
  // Its own port and socket; once promoted it must not wait for a standby of its own.
  appendFileSync(
    path.join(s.dataDir, 'postgresql.auto.conf'),
    `\n${conf(s, [`synchronous_standby_names = ''`, `primary_conninfo = 'host=127.0.0.1 port=${primary.port} user=postgres application_name=${s.name}'`])}\n`,
  );
}

export async function startPg(s: PgServer): Promise<void> {
  await pgRun('pg_ctl', ['-D', s.dataDir, '-l', path.join(s.dataDir, 'server.log'), '-w', '-t', '60', 'start']);
}

export async function stopPg(s: PgServer, mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
  if (!existsSync(path.join(s.dataDir, 'postmaster.pid'))) return;
  await pgRun('pg_ctl', ['-D', s.dataDir, '-m', mode, '-w', '-t', '60', 'stop'], { allowFail: true });
}

export async function promote(s: PgServer): Promise<void> {
  await pgRun('pg_ctl', ['-D', s.dataDir, '-w', '-t', '60', 'promote']);
  await waitUntil(`${s.name} to leave recovery`, () => isPrimary(s.port), 30_000);
}

/** Creates database `db` on the server at `port` when it is missing. */
export async function ensureDb(port: number, db: string): Promise<void> {
  const c = new pg.Client({ connectionString: urlOf(port) });
  await c.connect();
  try {
    const r = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [db]);
    if (r.rowCount === 0) await c.query(`CREATE DATABASE "${db}"`);
  } finally {
    await c.end();
  }
}

/** Waits until the standby named `name` streams synchronously from the primary at `port`. */
export async function waitSyncStandby(port: number, name: string): Promise<void> {
  await waitUntil(`standby ${name} to stream synchronously`, async () => {
    const c = new pg.Client({ connectionString: urlOf(port), connectionTimeoutMillis: 2000 });
    c.on('error', () => {});
    try {
      await c.connect();
      const r = await c.query<{ sync_state: string }>(`SELECT sync_state FROM pg_stat_replication WHERE application_name = $1 AND state = 'streaming'`, [name]);
      return r.rows[0]?.sync_state === 'sync';
    } finally {
      await c.end().catch(() => {});
    }
  }, 60_000);
}

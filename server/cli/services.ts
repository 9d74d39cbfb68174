// The long-running parts besides the web server, started by `stowage start`: the
// Kubernetes-compatible API (HTTPS), change-log compaction, and the controllers.
import type { Config } from '../wiring/config';
import type { AppContext } from '../wiring/context';
import { logger } from '../services/logger';
import { startControllers, type RunningControllers } from '../controllers/start';
import { inBackground } from '../store/connection-lanes';
import { startApiServer } from '../kube/api-server';
import { startApiWorkers, type RunningApiWorkers } from '../wiring/api-workers';
import { startLocalAgent } from './agent';

export interface RunningServices {
  apiUrl?: string;
  /** The controllers, when this process runs them (for the health endpoint). */
  controllers?: RunningControllers;
  /** The API worker processes, when the API runs in workers (docs/perf/cores.md). */
  apiWorkers?: RunningApiWorkers;
  add(stop: () => Promise<void>): void;
  stop(): Promise<void>;
}

export async function startServices(
  app: AppContext,
  cfg: Config,
  opts: {
    api: boolean;
    controllers: boolean;
    agent: boolean;
    connectionString: string;
    /** API worker processes beside this one (0: this process serves the API). */
    apiWorkers?: number;
    /** How a worker is started: this program with the `api-worker` command. */
    workerCommand?: { script: string; args: string[]; execArgv: string[] };
  },
): Promise<RunningServices> {
  // Stopped in this order: the listeners (no new requests; the web server is added by the
  // caller), then the rest in the reverse of their start: the agent (it unmounts what it
  // published), the controllers, compaction.
  const listeners: (() => Promise<void>)[] = [];
  const stops: (() => Promise<void>)[] = [];
  let apiUrl: string | undefined;
  let caPem: string | undefined;
  let controllers: RunningControllers | undefined;
  let apiWorkers: RunningApiWorkers | undefined;
  if (opts.api) {
    const workers = opts.workerCommand ? (opts.apiWorkers ?? 0) : 0;
    const api = await startApiServer({
      app,
      dataDir: cfg.dataDir,
      host: cfg.apiHost,
      port: cfg.apiPort,
      extraNames: cfg.apiExtraNames,
      // With workers, this process's own API server serves only while no worker does.
      listen: workers === 0,
    });
    caPem = api.caPem;
    if (workers > 0 && opts.workerCommand) {
      apiWorkers = await startApiWorkers({
        count: workers,
        host: cfg.apiHost,
        port: cfg.apiPort,
        local: api,
        command: opts.workerCommand,
        init: { connectionString: opts.connectionString, dataDir: cfg.dataDir, host: cfg.apiHost, extraNames: cfg.apiExtraNames, nodeName: cfg.nodeName },
      });
      listeners.push(apiWorkers.close);
      apiUrl = apiWorkers.url;
    } else {
      listeners.push(api.close);
      apiUrl = api.url;
    }
  }
  if (opts.controllers) {
    controllers = await startControllers({
      app,
      connectionString: opts.connectionString,
      provisioning: { nodeName: cfg.nodeName },
      nodeLifecycle: { graceMs: cfg.nodeGraceMs },
      cacheObjects: cfg.controllerCacheObjects,
    });
    stops.push(controllers.stop);
  }
  if (opts.agent && apiUrl && caPem) {
    const agent = await startLocalAgent(app, cfg, apiUrl, caPem);
    stops.push(() => agent.stop());
  }
  // Housekeeping: on the background pool, like the controllers (store/connection-lanes.ts).
  const compaction = inBackground(() =>
    setInterval(() => {
      app.store.compact(cfg.watchRetentionMs).catch((err) => logger.warn({ err }, 'change-log compaction failed'));
    }, 60_000),
  );
  compaction.unref();
  stops.push(async () => clearInterval(compaction));
  return {
    apiUrl,
    controllers,
    apiWorkers,
    add: (s) => listeners.push(s),
    stop: async () => {
      await Promise.all(listeners.splice(0).map((s) => s().catch((err) => logger.warn({ err }, 'error while stopping'))));
      for (const s of stops.splice(0).reverse()) await s().catch((err) => logger.warn({ err }, 'error while stopping'));
    },
  };
}

// The long-running parts besides the web server, started by `stowage start`: the
// Kubernetes-compatible API (HTTPS), change-log compaction, and the controllers.
import type { Config } from '../wiring/config';
import type { AppContext } from '../wiring/context';
import { logger } from '../services/logger';
import { startControllers, type RunningControllers } from '../controllers/start';
import { startApiServer } from '../kube/api-server';
import { startLocalAgent } from './agent';

export interface RunningServices {
  apiUrl?: string;
  /** The controllers, when this process runs them (for the health endpoint). */
  controllers?: RunningControllers;
  add(stop: () => Promise<void>): void;
  stop(): Promise<void>;
}

export async function startServices(
  app: AppContext,
  cfg: Config,
  opts: { api: boolean; controllers: boolean; agent: boolean; connectionString: string },
): Promise<RunningServices> {
  // Stopped in this order: the listeners (no new requests; the web server is added by the
  // caller), then the rest in the reverse of their start: the agent (it unmounts what it
  // published), the controllers, compaction.
  const listeners: (() => Promise<void>)[] = [];
  const stops: (() => Promise<void>)[] = [];
  let apiUrl: string | undefined;
  let caPem: string | undefined;
  let controllers: RunningControllers | undefined;
  if (opts.api) {
    const api = await startApiServer({
      app,
      dataDir: cfg.dataDir,
      host: cfg.apiHost,
      port: cfg.apiPort,
      extraNames: cfg.apiExtraNames,
    });
    listeners.push(api.close);
    apiUrl = api.url;
    caPem = api.caPem;
  }
  if (opts.controllers) {
    controllers = await startControllers({
      app,
      connectionString: opts.connectionString,
      provisioning: { nodeName: cfg.nodeName },
      nodeLifecycle: { graceMs: cfg.nodeGraceMs },
    });
    stops.push(controllers.stop);
  }
  if (opts.agent && apiUrl && caPem) {
    const agent = await startLocalAgent(app, cfg, apiUrl, caPem);
    stops.push(() => agent.stop());
  }
  const compaction = setInterval(() => {
    app.store.compact(cfg.watchRetentionMs).catch((err) => logger.warn({ err }, 'change-log compaction failed'));
  }, 60_000);
  compaction.unref();
  stops.push(async () => clearInterval(compaction));
  return {
    apiUrl,
    controllers,
    add: (s) => listeners.push(s),
    stop: async () => {
      await Promise.all(listeners.splice(0).map((s) => s().catch((err) => logger.warn({ err }, 'error while stopping'))));
      for (const s of stops.splice(0).reverse()) await s().catch((err) => logger.warn({ err }, 'error while stopping'));
    },
  };
}

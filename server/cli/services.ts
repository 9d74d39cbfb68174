// The long-running parts besides the web server, started by `stowage start`: change-log
// compaction now; the Kubernetes API, controllers and the node agent plug in here.
import type { Config } from '../app/config';
import type { AppContext } from '../app/context';
import { logger } from '../app/logger';

export interface RunningServices {
  apiUrl?: string;
  add(stop: () => Promise<void>): void;
  stop(): Promise<void>;
}

export async function startServices(
  app: AppContext,
  cfg: Config,
  _opts: { controllers: boolean; agent: boolean },
): Promise<RunningServices> {
  const stops: (() => Promise<void>)[] = [];
  const compaction = setInterval(() => {
    app.store.compact(cfg.watchRetentionMs).catch((err) => logger.warn({ err }, 'change-log compaction failed'));
  }, 60_000);
  compaction.unref();
  stops.push(async () => clearInterval(compaction));
  return {
    add: (s) => stops.push(s),
    stop: async () => {
      for (const s of stops.reverse()) await s().catch((err) => logger.warn({ err }, 'error while stopping'));
    },
  };
}

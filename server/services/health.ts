// The health checks behind /livez, /readyz and /healthz, run the same for both listeners
// (the Kubernetes API and the dashboard's server); domain/health.ts shapes the answer.
//
//   ping         the process answers (the only check of /livez: a replica is not
//                restarted because Postgres is down)
//   database     `SELECT 1` through the store within DATABASE_TIMEOUT_MS
//   change-feed  the store's change feed is listening for commits (watches, live lists)
//   startup      the process has finished starting (everything it serves is up)
//   shutdown     no graceful stop has begun (readyz only, as upstream's)
//
// A failed check's reason is logged here and never sent.
import { checksToRun, formatHealth, type CheckResult, type HealthAnswer, type HealthEndpoint, type HealthRequest } from '../domain/health';
import type { ObjectStore } from '../store/object-store';
import { logger } from './logger';

export const DATABASE_TIMEOUT_MS = 2000;

type Check = () => Promise<void> | void;

export interface HealthServiceOptions {
  /** Until `markStarted()`, the `startup` check fails (default: started). */
  starting?: boolean;
  databaseTimeoutMs?: number;
}

export class HealthService {
  private started: boolean;
  private stopping = false;
  private readonly checks: Record<string, Check>;

  constructor(
    store: Pick<ObjectStore, 'ping' | 'feed'>,
    opts: HealthServiceOptions = {},
  ) {
    this.started = !opts.starting;
    const timeout = opts.databaseTimeoutMs ?? DATABASE_TIMEOUT_MS;
    this.checks = {
      ping: () => {},
      database: () => store.ping(timeout),
      'change-feed': () => {
        if (!store.feed.isLive) throw new Error('the change feed is not listening for commits');
      },
      startup: () => {
        if (!this.started) throw new Error('the process is still starting');
      },
      shutdown: () => {
        if (this.stopping) throw new Error('process is shutting down');
      },
    };
  }

  /** The process serves everything it will: `startup` passes. */
  markStarted(): void {
    this.started = true;
  }

  /** A graceful stop began: `shutdown` fails from now on, so load balancers take this replica out. */
  markStopping(): void {
    this.stopping = true;
  }

  /** The checks of an endpoint, in the order the answer lists them. */
  installed(endpoint: HealthEndpoint): string[] {
    switch (endpoint) {
      case 'livez':
        return ['ping'];
      case 'readyz':
        return ['ping', 'database', 'change-feed', 'startup', 'shutdown'];
      case 'healthz':
        return ['ping', 'database', 'change-feed', 'startup'];
    }
  }

  async answer(req: HealthRequest): Promise<HealthAnswer> {
    const installed = this.installed(req.endpoint);
    const names = checksToRun(req, installed) ?? [];
    const results = await Promise.all(names.map((name) => this.run(req.endpoint, name)));
    return formatHealth(req, installed, results);
  }

  private async run(endpoint: HealthEndpoint, name: string): Promise<CheckResult> {
    try {
      await this.checks[name]();
      return { name, ok: true };
    } catch (err) {
      logger.warn({ err, check: name, endpoint }, `${endpoint} check ${name} failed`);
      return { name, ok: false };
    }
  }
}

// The health endpoint of `stowage controllers` (a process with no web server of its own):
// plain HTTP on STOWAGE_HEALTH_HOST (default 127.0.0.1) : STOWAGE_HEALTH_PORT (default 8081;
// 0 turns it off; `--health-port` overrides), for liveness and readiness probes.
//
//   GET /livez    ping, election-loop (the leader-election loop went round recently:
//                 a hung process is restarted; a database outage alone does not fail it)
//   GET /readyz   ping, database (SELECT 1), controllers (started and not stopping,
//                 leading or standing by alike, and the election loop going round)
//   GET /healthz  the same as /readyz
//
// Answers as the server's (domain/health.ts): `ok`, `?verbose` lists the checks,
// `/readyz/<check>` one check, `?exclude=` skips one; a failure is 503 with the list.
import http from 'node:http';
import { checksToRun, formatHealth, HEALTH_HEADERS, parseHealthRequest, type CheckResult, type HealthEndpoint } from '../domain/health';
import type { Manager } from '../controllers/runtime/manager';
import type { ObjectStore } from '../store/object-store';
import { logger } from '../services/logger';

export const DEFAULT_HEALTH_HOST = '127.0.0.1';
export const DEFAULT_HEALTH_PORT = 8081;
const DATABASE_TIMEOUT_MS = 2000;

export interface HealthListen {
  host: string;
  port: number;
}

/** Where to serve, from the environment and `--health-port`; undefined when turned off (port 0). Throws a clear error on a bad port. */
export function healthListen(env: Readonly<Record<string, string | undefined>>, flagPort?: string): HealthListen | undefined {
  const raw = flagPort ?? env.STOWAGE_HEALTH_PORT;
  const what = flagPort !== undefined ? '--health-port' : 'STOWAGE_HEALTH_PORT';
  let port = DEFAULT_HEALTH_PORT;
  if (raw !== undefined && raw.trim() !== '') {
    const s = raw.trim();
    if (!/^\d{1,5}$/.test(s) || Number(s) > 65535) throw new Error(`${what} must be a port number from 0 (off) to 65535, got "${raw}"`);
    port = Number(s);
  }
  if (port === 0) return undefined;
  const host = env.STOWAGE_HEALTH_HOST?.trim() || DEFAULT_HEALTH_HOST;
  return { host, port };
}

export interface ControllerHealthOptions {
  manager: Pick<Manager, 'isRunning' | 'leaderStatus'>;
  store: Pick<ObjectStore, 'ping'>;
  host: string;
  /** 0: any free port (tests); turning the endpoint off is the caller's (healthListen). */
  port: number;
  databaseTimeoutMs?: number;
}

export interface ControllerHealthServer {
  url: string;
  close(): Promise<void>;
}

type Check = () => Promise<void> | void;

const INSTALLED: Record<HealthEndpoint, string[]> = {
  livez: ['ping', 'election-loop'],
  readyz: ['ping', 'database', 'controllers'],
  healthz: ['ping', 'database', 'controllers'],
};

function checks(o: ControllerHealthOptions): Record<string, Check> {
  const loopGoing = () => {
    const s = o.manager.leaderStatus;
    // Without leader election there is no loop: the controllers simply run.
    if (s && !s.stopped && Date.now() - s.lastTickAt > s.maxTickGapMs) throw new Error(`the leader-election loop has not gone round for ${Date.now() - s.lastTickAt} ms`);
  };
  return {
    ping: () => {},
    'election-loop': loopGoing,
    database: () => o.store.ping(o.databaseTimeoutMs ?? DATABASE_TIMEOUT_MS),
    controllers: () => {
      if (!o.manager.isRunning) throw new Error('the controllers are not running (starting or stopping)');
      loopGoing();
    },
  };
}

/** Starts the health listener; rejects with a clear error when the address cannot be used. */
export async function startControllerHealth(o: ControllerHealthOptions): Promise<ControllerHealthServer> {
  const all = checks(o);
  const log = logger.child({ component: 'controllers-health' });
  const server = http.createServer((req, res) => {
    const send = (status: number, body: string) => {
      res.writeHead(status, HEALTH_HEADERS);
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://health.invalid');
    } catch {
      return send(400, 'bad request\n');
    }
    const hr = parseHealthRequest(url.pathname, url.searchParams);
    if (!hr) return send(404, '404 page not found\n');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return send(405, 'method not allowed\n');
    }
    const installed = INSTALLED[hr.endpoint];
    const run = checksToRun(hr, installed) ?? [];
    void Promise.all(
      run.map(async (name): Promise<CheckResult> => {
        try {
          await all[name]();
          return { name, ok: true };
        } catch (err) {
          log.warn({ check: name, err: (err as Error)?.message }, `health check ${name} failed`);
          return { name, ok: false };
        }
      }),
    ).then(
      (results) => {
        const answer = formatHealth(hr, installed, results);
        // A probe reads a failure as "not ready / not live": 503, as the body says why.
        send(answer.status === 500 ? 503 : answer.status, answer.body);
      },
      () => send(503, 'internal error\n'),
    );
  });
  server.on('clientError', (_err, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    const fail = (err: NodeJS.ErrnoException) => {
      const why = err.code === 'EADDRINUSE' ? 'the address is in use' : err.code === 'EADDRNOTAVAIL' ? 'no such address on this machine' : err.message;
      reject(new Error(`cannot serve the health endpoint on ${o.host}:${o.port}: ${why} (set STOWAGE_HEALTH_HOST / STOWAGE_HEALTH_PORT or --health-port; 0 turns it off)`));
    };
    server.once('error', fail);
    server.listen(o.port, o.host, () => {
      server.off('error', fail);
      resolve();
    });
  });
  server.on('error', (err) => log.warn({ err }, 'health endpoint error'));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : o.port;
  const host = o.host.includes(':') ? `[${o.host}]` : o.host;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

// The dashboard's HTTP server: tRPC at /api/trpc, health and metrics, and the Next.js
// pages for everything else. One process, one port.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import { register } from 'prom-client';
import { mayReadMetrics } from '../domain/authorization';
import { HEALTH_HEADERS, parseHealthRequest, type HealthRequest } from '../domain/health';
import type { Services } from '../services/services';
import type { KubeApiEndpoint } from '../services/user-admin';
import { logger } from '../services/logger';
import { appRouter } from '../trpc/root';
import { answerClientError, badRequestResponse, HEADERS_TIMEOUT_MS, MAX_HEADER_BYTES, REQUEST_TIMEOUT_MS, requestProblem } from './client-error';
import { bearerToken, readCookie, SESSION_COOKIE, sessionCookie } from './cookies';
import { crossOriginProblem, dashboardOrigins } from './origin';

export interface WebServerOptions {
  app: Services;
  host: string;
  port: number;
  /** Project root holding the built Next.js app (.next). */
  dir: string;
  /** Serve pages with Next.js (false in API-only tests). */
  pages?: boolean;
  /** Most calls in one tRPC batch (default 20; more is answered 400). */
  trpcMaxBatch?: number;
  /**
   * The dashboard's public origins (STOWAGE_ALLOWED_ORIGINS) besides the address it listens
   * on: with those, the only origins that may send state-changing requests.
   */
  allowedOrigins?: string[];
  /** The Kubernetes-compatible API, for the kubeconfigs the dashboard hands out. */
  kubeApi?: KubeApiEndpoint;
}

/** Whether the client reached us over https (directly, or through a proxy that says so). */
function isSecure(req: http.IncomingMessage): boolean {
  return Boolean((req.socket as { encrypted?: boolean }).encrypted) || String(req.headers['x-forwarded-proto'] ?? '').split(',')[0]?.trim() === 'https';
}

/** /livez, /readyz, /healthz (and /readyz/<check>) with their query; undefined for any other path. */
function healthRequest(target: string): HealthRequest | undefined {
  if (!/^\/(livez|readyz|healthz)(\/|\?|$)/.test(target)) return undefined;
  const u = new URL(target, 'http://localhost');
  return parseHealthRequest(u.pathname, u.searchParams);
}

export interface WebServer {
  url: string;
  server: http.Server;
  close(): Promise<void>;
}

export async function startWebServer(opts: WebServerOptions): Promise<WebServer> {
  const { app } = opts;
  const trpc = createHTTPHandler({
    router: appRouter,
    basePath: '/api/trpc/',
    maxBatchSize: opts.trpcMaxBatch ?? 20,
    createContext: async ({ req, res }) => {
      const cookieToken = readCookie(req, SESSION_COOKIE);
      const token = bearerToken(req) ?? cookieToken;
      const principal = await app.users.authenticate(token);
      // A node token is known but may use nothing here (403, not 401).
      const nodeToken = !principal && !!(await app.nodeAgent.authenticate(token));
      const secure = isSecure(req);
      return {
        app,
        principal,
        nodeToken,
        sessionToken: cookieToken,
        clientAddress: req.socket.remoteAddress,
        kubeApi: opts.kubeApi,
        setSessionCookie: (t: string | null) => res.appendHeader('Set-Cookie', sessionCookie(t, secure)),
      };
    },
    responseMeta: ({ errors }) => {
      // 429s say when to come back (the longest wait among the batch's refusals).
      const waits = errors.map((e) => retryAfterOf(e.cause)).filter((n): n is number => n !== undefined);
      return waits.length ? { headers: { 'Retry-After': String(Math.max(...waits)) } } : {};
    },
    onError: ({ error, path }) => {
      if (error.code === 'INTERNAL_SERVER_ERROR') logger.error({ err: error.cause ?? error, path }, 'tRPC error');
    },
  });

  let nextHandle: ((req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>) | undefined;
  let nextApp: { close?: () => Promise<void> } | undefined;
  if (opts.pages !== false) {
    const { default: next } = await import('next');
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Next's default export is not typed as callable under this module setting; its handler is used as documented
    const n = (next as unknown as (o: object) => any)({ dev: false, dir: opts.dir, hostname: opts.host, port: opts.port });
    await n.prepare();
    nextHandle = n.getRequestHandler();
    nextApp = n;
  }

  // Known once the port is bound (port 0 picks one); nothing is served before.
  let origins: ReadonlySet<string> = new Set();
  const options = { maxHeaderSize: MAX_HEADER_BYTES, requestTimeout: REQUEST_TIMEOUT_MS, headersTimeout: HEADERS_TIMEOUT_MS, requireHostHeader: false };
  // eslint-disable-next-line @typescript-eslint/no-misused-promises -- the handler catches its own errors (a 500 and a log line), see the catch below
  const server = http.createServer(options, async (req, res) => {
    const url = req.url ?? '/';
    const problem = requestProblem(req, true);
    if (problem) {
      const answer = badRequestResponse(problem);
      res.writeHead(400, answer.headers);
      return res.end(answer.body);
    }
    try {
      const crossOrigin = crossOriginProblem(req.method ?? 'GET', req.headers, origins);
      if (crossOrigin) {
        res.writeHead(403, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ error: { message: `Forbidden: ${crossOrigin}`, code: 'FORBIDDEN' } }));
      }
      if (url.startsWith('/api/trpc/')) return trpc(req, res);
      const health = healthRequest(url);
      if (health) {
        const answer = await app.health.answer(health);
        res.writeHead(answer.status, HEALTH_HEADERS);
        return res.end(answer.body);
      }
      if (url.split('?')[0] === '/metrics') return await serveMetrics(app, req, res);
      if (nextHandle) return await nextHandle(req, res);
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    } catch (err) {
      logger.error({ err, url }, 'request failed');
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('Internal error');
    }
  });
  server.keepAliveTimeout = 65_000;
  server.on('clientError', answerClientError);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  origins = dashboardOrigins({ host: opts.host, port: addr.port, allowedOrigins: opts.allowedOrigins, machineNames: machineNames() });
  const shownHost = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    url: `http://${shownHost}:${addr.port}`,
    server,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await nextApp?.close?.().catch(() => {});
    },
  };
}

/**
 * `/metrics` for an admin or viewer only (a bearer token, as a scraper sends, or a
 * dashboard session): 401 without one, 403 for anyone else, each a Status as
 * kube-apiserver answers for its own /metrics.
 */
async function serveMetrics(app: Services, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const token = bearerToken(req) ?? readCookie(req, SESSION_COOKIE);
  const principal = await app.users.authenticate(token);
  if (mayReadMetrics(principal)) {
    res.writeHead(200, { 'content-type': register.contentType });
    return void res.end(await register.metrics());
  }
  const node = principal ? undefined : await app.nodeAgent.authenticate(token);
  const who = principal?.name ?? (node ? `system:node:${node.nodeName}` : undefined);
  const status = who === undefined ? 401 : 403;
  const body = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: who === undefined ? 'Unauthorized' : `forbidden: User "${who}" cannot get path "/metrics"`,
    reason: who === undefined ? 'Unauthorized' : 'Forbidden',
    details: {},
    code: status,
  };
  res.writeHead(status, { 'content-type': 'application/json', ...(status === 401 ? { 'www-authenticate': 'Bearer realm="stowage"' } : {}) });
  res.end(JSON.stringify(body));
}

/** This machine's addresses and host name: the names a dashboard listening on every address is reached by. */
function machineNames(): string[] {
  const addresses = Object.values(os.networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address.split('%')[0]));
  return [...addresses, os.hostname()];
}

function retryAfterOf(cause: unknown): number | undefined {
  const d = (cause as { code?: string; details?: { retryAfterSeconds?: number } } | undefined);
  return d?.code === 'TooManyRequests' ? d.details?.retryAfterSeconds : undefined;
}

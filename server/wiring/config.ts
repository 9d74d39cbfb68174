// Configuration from the environment, with defaults that work on a fresh clone.
import os from 'node:os';
import path from 'node:path';
import { parseLabelList } from '../domain/node-lifecycle';
import { DEFAULT_SIGN_IN_LIMITS, type SignInLimits } from '../domain/sign-in-limits';
import { DEFAULT_NEARLY_FULL_PERCENT, parseNearlyFullPercent } from '../domain/nearly-full';
import { normalOrigin } from '../http/origin';
import { parseApiWorkers, type ApiWorkersSetting } from '../domain/api-workers';
import { DEFAULT_CACHE_OBJECTS } from '../controllers/start';

export interface Config {
  host: string;
  port: number;
  apiHost: string;
  apiPort: number;
  dataDir: string;
  databaseUrl?: string;
  /** Extra subjectAltNames for the API's serving certificate. */
  apiExtraNames: string[];
  /** How long the change log keeps entries for watches (ms). */
  watchRetentionMs: number;
  /** This machine's node name: node affinity of the volumes its provisioners make. */
  nodeName: string;
  /** Extra labels of this machine's Node (STOWAGE_NODE_LABELS, `k=v,k2=v2`). */
  nodeLabels: Record<string, string>;
  /** Most calls one tRPC batch request may carry (more: 400). */
  trpcMaxBatch: number;
  /** Origins besides the dashboard's own that may send state-changing requests. */
  allowedOrigins: string[];
  /**
   * On SIGTERM, how long a server keeps serving with /readyz failing before it stops, so a
   * load balancer takes it out of rotation first (kube-apiserver's --shutdown-delay-duration).
   */
  shutdownDelayMs: number;
  /** Serve the dashboard's pages (STOWAGE_DASHBOARD=off: the API, tRPC and health only, no build). */
  dashboard: boolean;
  /**
   * A node whose agent posts no heartbeat for this long is NotReady (ms;
   * STOWAGE_NODE_MONITOR_GRACE_SECONDS, default 40 as upstream's node-monitor-grace-period).
   * Replicated volumes fail over only after it.
   */
  nodeGraceMs: number;
  /** Where the agent inside `stowage start` takes replication transfers (STOWAGE_REPLICATION_LISTEN, host:port; default 127.0.0.1 on a free port). */
  replicationListen?: string;
  /** The address other nodes send this machine's replicas to (STOWAGE_REPLICATION_ADVERTISE, host:port). */
  replicationAdvertise?: string;
  /**
   * API worker processes beside the main one (STOWAGE_API_WORKERS or `--api-workers`; `auto`:
   * one from four CPUs up): they serve the REST API and its watches while the controllers
   * and the dashboard stay in the main process (docs/perf/cores.md).
   */
  apiWorkers: ApiWorkersSetting;
  /**
   * The most claims, volumes and pods (each) the controllers keep whole in memory
   * (STOWAGE_CONTROLLER_CACHE_OBJECTS); the others by name, read from the database when needed.
   */
  controllerCacheObjects: number;
}

function int(name: string, fallback: number, env: NodeJS.ProcessEnv = process.env): number {
  const v = env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535 * 1_000_000) {
    throw new Error(`${name} must be a whole number, got "${v}"`);
  }
  return n;
}

function onOff(name: string, fallback: boolean, env: NodeJS.ProcessEnv): boolean {
  const v = env[name];
  if (v === undefined || v === '') return fallback;
  if (v === 'on' || v === 'off') return v === 'on';
  throw new Error(`${name} must be on or off, got "${v}"`);
}

/** host:port (an IPv6 address in brackets), or undefined when unset. */
function hostPort(name: string, env: NodeJS.ProcessEnv): string | undefined {
  const v = env[name];
  if (v === undefined || v === '') return undefined;
  const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(v);
  if (!m || v.length > 300 || Number(m[2]) > 65535) throw new Error(`${name} must be host:port (an IPv6 address in brackets), got "${v}"`);
  return v;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const labels = parseLabelList(env.STOWAGE_NODE_LABELS);
  if (labels.errors.length) throw new Error(`STOWAGE_NODE_LABELS: ${labels.errors.join('; ')}`);
  return {
    host: env.HOST || '127.0.0.1',
    port: int('PORT', 3000),
    apiHost: env.STOWAGE_API_HOST || env.HOST || '127.0.0.1',
    apiPort: int('STOWAGE_API_PORT', 6443),
    dataDir: path.resolve(env.STOWAGE_DATA_DIR || '.stowage'),
    databaseUrl: env.DATABASE_URL || undefined,
    apiExtraNames: (env.STOWAGE_API_EXTRA_NAMES ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    watchRetentionMs: int('STOWAGE_WATCH_RETENTION_SECONDS', 900) * 1000,
    nodeName: env.STOWAGE_NODE_NAME || os.hostname(),
    nodeLabels: labels.labels,
    trpcMaxBatch: Math.max(1, int('STOWAGE_TRPC_MAX_BATCH', 20, env)),
    shutdownDelayMs: Math.min(300, int('STOWAGE_SHUTDOWN_DELAY_SECONDS', 0, env)) * 1000,
    dashboard: onOff('STOWAGE_DASHBOARD', true, env),
    nodeGraceMs: nodeGraceSeconds(env) * 1000,
    allowedOrigins: allowedOrigins(env.STOWAGE_ALLOWED_ORIGINS),
    replicationListen: hostPort('STOWAGE_REPLICATION_LISTEN', env),
    replicationAdvertise: hostPort('STOWAGE_REPLICATION_ADVERTISE', env),
    apiWorkers: apiWorkersOf('STOWAGE_API_WORKERS', env.STOWAGE_API_WORKERS),
    controllerCacheObjects: int('STOWAGE_CONTROLLER_CACHE_OBJECTS', DEFAULT_CACHE_OBJECTS, env),
  };
}

/** `auto` (also when unset) or a whole number of workers; `what` names the setting in the error. */
export function apiWorkersOf(what: string, text: string | undefined): ApiWorkersSetting {
  if (text === undefined || text === '') return 'auto';
  const v = parseApiWorkers(text);
  if (v === undefined) throw new Error(`${what} must be auto or a whole number from 0 to 16, got "${text.slice(0, 40)}"`);
  return v;
}

/** STOWAGE_ALLOWED_ORIGINS: comma-separated origins (`scheme://host[:port]`), each checked. */
function allowedOrigins(text: string | undefined): string[] {
  const entries = (text ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  return entries.map((e) => {
    const origin = normalOrigin(e);
    if (!origin || !/^https?:\/\/[^/?#]+\/*$/i.test(e)) {
      throw new Error(`STOWAGE_ALLOWED_ORIGINS: "${e}" is not an origin (http:// or https://, a host, an optional port, no path)`);
    }
    return origin;
  });
}

/** The first of the names that is set (a renamed variable keeps working under its old name). */
function intOf(names: string[], fallback: number, env: NodeJS.ProcessEnv): number {
  const name = names.find((n) => env[n] !== undefined && env[n] !== '');
  return name ? int(name, fallback, env) : fallback;
}

/**
 * The sign-in limits (STOWAGE_SIGNIN_*), defaults in domain/sign-in-limits. Renamed when
 * the per-address lockout became a backoff per name and address:
 * STOWAGE_SIGNIN_MAX_FAILURES_PER_ADDRESS is now STOWAGE_SIGNIN_ADDRESS_CEILING and
 * STOWAGE_SIGNIN_LOCKOUT_SECONDS is now STOWAGE_SIGNIN_MAX_DELAY_SECONDS; the old names
 * are still read.
 */
export function loadSignInLimits(env: NodeJS.ProcessEnv = process.env): SignInLimits {
  const d = DEFAULT_SIGN_IN_LIMITS;
  return {
    freeFailures: Math.max(1, int('STOWAGE_SIGNIN_MAX_FAILURES', d.freeFailures, env)),
    firstDelayMs: Math.max(1, int('STOWAGE_SIGNIN_FIRST_DELAY_SECONDS', d.firstDelayMs / 1000, env)) * 1000,
    maxDelayMs: Math.max(1, intOf(['STOWAGE_SIGNIN_MAX_DELAY_SECONDS', 'STOWAGE_SIGNIN_LOCKOUT_SECONDS'], d.maxDelayMs / 1000, env)) * 1000,
    addressCeiling: Math.max(1, intOf(['STOWAGE_SIGNIN_ADDRESS_CEILING', 'STOWAGE_SIGNIN_MAX_FAILURES_PER_ADDRESS'], d.addressCeiling, env)),
    windowMs: Math.max(1, int('STOWAGE_SIGNIN_WINDOW_SECONDS', d.windowMs / 1000, env)) * 1000,
    concurrency: Math.max(1, int('STOWAGE_SIGNIN_CONCURRENCY', d.concurrency, env)),
    queue: int('STOWAGE_SIGNIN_QUEUE', d.queue, env),
  };
}

/** STOWAGE_NEARLY_FULL_PERCENT: the "claim nearly full" threshold until an administrator sets one. */
export function loadNearlyFullPercent(env: NodeJS.ProcessEnv = process.env): number {
  const v = env.STOWAGE_NEARLY_FULL_PERCENT;
  if (v === undefined || v === '') return DEFAULT_NEARLY_FULL_PERCENT;
  const n = parseNearlyFullPercent(v);
  if (n === undefined) throw new Error(`STOWAGE_NEARLY_FULL_PERCENT must be a whole number from 1 to 100, got "${v}"`);
  return n;
}

/**
 * STOWAGE_NODE_MONITOR_GRACE_SECONDS: 20 to 3600, default 40. Agents post a heartbeat every
 * 10 s: a grace under two of them would mark a healthy node NotReady between two beats.
 */
function nodeGraceSeconds(env: NodeJS.ProcessEnv): number {
  const n = int('STOWAGE_NODE_MONITOR_GRACE_SECONDS', 40, env);
  if (n < 20 || n > 3600) throw new Error(`STOWAGE_NODE_MONITOR_GRACE_SECONDS must be from 20 to 3600 (agents post a heartbeat every 10 s), got "${env.STOWAGE_NODE_MONITOR_GRACE_SECONDS}"`);
  return n;
}

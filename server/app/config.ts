// Configuration from the environment, with defaults that work on a fresh clone.
import os from 'node:os';
import path from 'node:path';
import { parseLabelList } from '../domain/node-lifecycle';

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
}

function int(name: string, fallback: number): number {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535 * 1_000_000) {
    throw new Error(`${name} must be a whole number, got "${v}"`);
  }
  return n;
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
  };
}

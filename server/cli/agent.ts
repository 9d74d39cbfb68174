// Starting a node agent: inside `stowage start` for this machine (with a node token it
// makes for itself, kept in the data dir), or alone with `stowage agent` on any machine.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { agentHttpClient } from '../agent/agent-client';
import { AgentLoop } from '../agent/agent-loop';
import { realAgentOs } from '../agent/os';
import type { Config } from '../wiring/config';
import type { AppContext } from '../wiring/context';
import { logger } from '../services/logger';
import { dataMover } from '../agent/data-mover';

export interface StandaloneAgentOptions {
  server: string;
  tokenFile: string;
  node?: string;
  caFile?: string;
  insecureSkipTlsVerify?: boolean;
  labels?: Record<string, string>;
  maxParallel?: number;
  /** Where pods' volumes are published (default /var/lib/stowage/pods). */
  podsDir?: string;
  /** The agent's state (its running cleanup commands; default /var/lib/stowage/agent). */
  stateDir?: string;
  /** Where this agent sees the host's `/` for btrfs pool paths (an agent in a container). */
  poolRoot?: string;
  /** Replication: listen on host:port for this node's replicas; advertise host:port to senders. */
  replication?: { listen: string; advertise?: string };
}

export function readTokenFile(file: string): string {
  const token = readFileSync(file, 'utf8').trim();
  if (!token) throw new Error(`${file} is empty; it should hold the node token that \`stowage node add NAME\` printed`);
  return token;
}

export async function startStandaloneAgent(o: StandaloneAgentOptions): Promise<AgentLoop> {
  const api = agentHttpClient({
    server: o.server,
    token: readTokenFile(o.tokenFile),
    caPem: o.caFile ? readFileSync(o.caFile, 'utf8') : undefined,
    insecureSkipTlsVerify: o.insecureSkipTlsVerify,
  });
  const who = await api.whoami();
  if (o.node && o.node !== who.nodeName) throw new Error(`the token is for node "${who.nodeName}", not "${o.node}"`);
  const podsDir = o.podsDir ?? '/var/lib/stowage/pods';
  mkdirSync(podsDir, { recursive: true, mode: 0o750 });
  const stateDir = o.stateDir ?? '/var/lib/stowage/agent';
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const loop = new AgentLoop({ api, os: realAgentOs, nodeName: who.nodeName, labels: o.labels, maxParallel: o.maxParallel, podsDir, stateDir, poolRoot: o.poolRoot, replication: o.replication, dataMover, log: logger.child({ component: 'agent' }) });
  await loop.start();
  return loop;
}

/** This machine's agent inside `stowage start`: a node token of its own, reused across starts. */
export async function startLocalAgent(app: AppContext, cfg: Config, apiUrl: string, caPem: string): Promise<AgentLoop> {
  const dir = path.join(cfg.dataDir, 'agent');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, `${cfg.nodeName.replace(/[^A-Za-z0-9._-]/g, '_')}.token`);
  let token = existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
  const who = token ? await app.nodeAgent.authenticate(token) : undefined;
  if (!who || who.nodeName !== cfg.nodeName) {
    token = await app.nodeAgent.createToken(cfg.nodeName, 'stowage start');
    writeFileSync(file, `${token}\n`, { mode: 0o600 });
  }
  const api = agentHttpClient({ server: apiUrl, token, caPem });
  const podsDir = path.join(cfg.dataDir, 'pods');
  mkdirSync(podsDir, { recursive: true, mode: 0o750 });
  // Replication: this machine's replicas come in on loopback, a free port, unless configured.
  const replication = { listen: cfg.replicationListen ?? '127.0.0.1:0', ...(cfg.replicationAdvertise ? { advertise: cfg.replicationAdvertise } : {}) };
  const loop = new AgentLoop({ api, os: realAgentOs, nodeName: cfg.nodeName, labels: cfg.nodeLabels, podsDir, stateDir: dir, unpublishOnStop: true, replication, dataMover, log: logger.child({ component: 'agent' }) });
  await loop.start();
  return loop;
}

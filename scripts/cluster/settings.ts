// A topology's settings, named by its cluster: the port base decides every port, the
// namespaces' and interfaces' names and the nodes' subnet, so two clusters (and a chaos
// run) on different bases never touch each other's. `up` records them in the state
// directory (topology.json) before it makes anything; `status` and `down` read them there.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const DEFAULT_CLUSTER_PORT_BASE = 24000;
export const DEFAULT_CHAOS_PORT_BASE = 25000;
/** Ports used: base .. base + SPAN - 1; two topologies' bases must be at least this far apart. */
export const PORT_SPAN = 100;

/** Parses a port base (an environment variable's text): a whole number the span fits above. */
export function parsePortBase(text: string | undefined, fallback: number, name = 'STOWAGE_CLUSTER_PORT_BASE'): number {
  if (text === undefined || text.trim() === '') return fallback;
  const n = Number(text.trim());
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(n) || n < 1024 || n + PORT_SPAN - 1 > 65535) {
    throw new Error(`${name} must be a whole number from 1024 to ${65536 - PORT_SPAN} (got ${JSON.stringify(text.slice(0, 40))})`);
  }
  return n;
}

/**
 * The chaos run's base: STOWAGE_CHAOS_PORT_BASE, or 1000 above STOWAGE_CLUSTER_PORT_BASE (so a
 * chaos run started in a shell set up for a cluster runs beside that cluster), or 25000.
 */
export function chaosPortBase(env: Record<string, string | undefined>): number {
  if (env.STOWAGE_CHAOS_PORT_BASE?.trim()) return parsePortBase(env.STOWAGE_CHAOS_PORT_BASE, DEFAULT_CHAOS_PORT_BASE, 'STOWAGE_CHAOS_PORT_BASE');
  const cluster = parsePortBase(env.STOWAGE_CLUSTER_PORT_BASE, DEFAULT_CLUSTER_PORT_BASE);
  return parsePortBase(String(cluster + 1000 + PORT_SPAN - 1 > 65535 ? cluster - 1000 : cluster + 1000), DEFAULT_CHAOS_PORT_BASE);
}

export interface Addressing {
  /** The cluster's name: names its nodes, namespaces, interfaces and Postgres directory. */
  tag: string;
  /** Network namespace of node i (1-based). */
  namespace: (i: number) => string;
  hostIf: (i: number) => string;
  nodeIf: (i: number) => string;
  hostAddress: (i: number) => string;
  nodeAddress: (i: number) => string;
  /** The Postgres nodes' bridge (host side 10.X.T.1/24) and node i's link onto it. */
  pgBridge: string;
  pgSubnet: string;
  pgHostAddress: string;
  pgNamespace: (i: number) => string;
  pgHostIf: (i: number) => string;
  pgNodeIf: (i: number) => string;
  pgNodeAddress: (i: number) => string;
}

/**
 * Names and addresses of a topology: `kind` is 'c' for `npm run cluster`, 'x' for the chaos
 * run. Node i's link is 10.X.Y.1 (host) / 10.X.Y.2 (node), /30, with X and Y from the port
 * base's hundred, so bases at least PORT_SPAN apart never share a subnet (X stays in
 * 66..229: 10.254.* is the netns probe's).
 */
export function addressing(kind: 'c' | 'x', portBase: number): Addressing {
  const tag = `${kind}${portBase}`;
  const hundred = Math.floor(portBase / 100);
  const x = 66 + Math.floor(hundred / 4);
  const y = (i: number) => (hundred % 4) * 64 + i;
  return {
    tag,
    namespace: (i) => `stowage-${tag}-n${i}`,
    // Interface names are at most 15 characters: "sw" + tag (at most 6) + h/n + index.
    hostIf: (i) => `sw${tag}h${i}`,
    nodeIf: (i) => `sw${tag}n${i}`,
    hostAddress: (i) => `10.${x}.${y(i)}.1`,
    nodeAddress: (i) => `10.${x}.${y(i)}.2`,
    pgBridge: `sw${tag}b`,
    pgSubnet: `10.${x}.${y(32)}.0/24`,
    pgHostAddress: `10.${x}.${y(32)}.1`,
    pgNamespace: (i) => `stowage-${tag}-p${i}`,
    pgHostIf: (i) => `sw${tag}p${i}h`,
    pgNodeIf: (i) => `sw${tag}p${i}n`,
    pgNodeAddress: (i) => `10.${x}.${y(32)}.${10 + i}`,
  };
}

export interface Ports {
  dashboard: number;
  api: number;
  /** HAProxy's Postgres address (the primary, whichever node that is). */
  pg: number;
  serverDashboard: (i: number) => number;
  serverApi: (i: number) => number;
  /** Postgres node i (0-based). */
  postgres: (i: number) => number;
  /** Patroni's REST API of Postgres node i (0-based). */
  patroni: (i: number) => number;
  /** etcd member i (0-based): client and peer ports. */
  etcdClient: (i: number) => number;
  etcdPeer: (i: number) => number;
  /** The health endpoint of `stowage controllers` i (0-based): each its own port on one host. */
  controllersHealth: (i: number) => number;
  /** Where other nodes send a node's replicas: HAProxy on the host's end of each node's link, to the agent in its namespace. */
  replication: number;
}

/** The port each node's agent takes replicas on inside its own namespace. */
export const AGENT_REPLICATION_PORT = 7443;

export function ports(base: number): Ports {
  return {
    dashboard: base,
    api: base + 1,
    pg: base + 2,
    serverDashboard: (i) => base + 10 + i,
    serverApi: (i) => base + 20 + i,
    postgres: (i) => base + 30 + i,
    patroni: (i) => base + 40 + i,
    etcdClient: (i) => base + 50 + i,
    etcdPeer: (i) => base + 60 + i,
    controllersHealth: (i) => base + 70 + i,
    replication: base + 80,
  };
}

/** What topology.json records: enough for `status` and `down` without any environment. */
export interface RecordedSettings {
  kind: 'c' | 'x';
  portBase: number;
  tag: string;
  servers: number;
  controllers: number;
  agents: number;
  disksPerNode: number;
  patroni: boolean;
}

export const settingsFile = (dir: string) => path.join(dir, 'topology.json');

export function writeSettings(dir: string, s: RecordedSettings): void {
  writeFileSync(settingsFile(dir), `${JSON.stringify(s, null, 2)}\n`, { mode: 0o600 });
}

/** The recorded settings, or undefined when there are none; throws when the file is damaged. */
export function readSettings(dir: string): RecordedSettings | undefined {
  let text: string;
  try {
    text = readFileSync(settingsFile(dir), 'utf8');
  } catch {
    return undefined;
  }
  return validSettings(JSON.parse(text));
}

export function validSettings(v: any): RecordedSettings {
  const whole = (x: unknown, lo: number, hi: number) => Number.isSafeInteger(x) && (x as number) >= lo && (x as number) <= hi;
  if (
    !v ||
    (v.kind !== 'c' && v.kind !== 'x') ||
    !whole(v.portBase, 1024, 65536 - PORT_SPAN) ||
    v.tag !== `${v.kind}${v.portBase}` ||
    !whole(v.servers, 1, 9) ||
    !whole(v.controllers, 1, 9) ||
    !whole(v.agents, 1, 9) ||
    !whole(v.disksPerNode, 1, 9) ||
    typeof v.patroni !== 'boolean'
  ) {
    throw new Error('topology.json is not a topology this version wrote (remove the directory, or run `down` with the version that made it)');
  }
  return { kind: v.kind, portBase: v.portBase, tag: v.tag, servers: v.servers, controllers: v.controllers, agents: v.agents, disksPerNode: v.disksPerNode, patroni: v.patroni };
}

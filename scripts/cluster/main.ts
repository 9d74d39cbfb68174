// `npm run cluster -- up | down | status`: a real high-availability topology on this
// machine (see topology.ts). `up` starts a supervisor in the background and returns once
// everything is ready; `down` stops it and removes what it made.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readyz } from './kube';
import { waitUntil } from './processes';
import { DEFAULT_CLUSTER_PORT_BASE, parsePortBase, ports, readSettings } from './settings';
import { teardown, Topology, type TopologyOptions } from './topology';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const say = (m: string) => process.stdout.write(`${m}\n`);

function options(argv: string[]): TopologyOptions {
  const flag = (name: string, fallback: number) => {
    const i = argv.indexOf(`--${name}`);
    if (i < 0) return fallback;
    const n = Number(argv[i + 1]);
    if (!Number.isInteger(n) || n < 1 || n > 9) throw new Error(`--${name} must be a whole number from 1 to 9`);
    return n;
  };
  return {
    dir: path.resolve(process.env.STOWAGE_CLUSTER_DIR ?? '.stowage-cluster'),
    kind: 'c',
    portBase: parsePortBase(process.env.STOWAGE_CLUSTER_PORT_BASE, DEFAULT_CLUSTER_PORT_BASE),
    servers: flag('servers', 3),
    controllers: flag('controllers', 2),
    agents: flag('agents', 3),
    disksPerNode: flag('disks', 2),
    // A btrfs pool per node, the classes cluster-pooled and cluster-replicated (two copies).
    pools: argv.includes('--pools'),
    root,
    log: say,
  };
}

interface State {
  supervisor: number;
  dashboard: string;
  adminPassword?: string;
  api: string;
  database: string;
  kubeconfig: string;
  processes: { name: string; pid?: number; starts: number }[];
  nodes: { name: string; namespace: string; address: string }[];
  postgres: { nodes: { name: string; namespace: string; address: string; patroni: string }[]; etcd: string[] };
}

/**
 * The options of the cluster recorded in `o.dir` (its port base, size, name), which win over
 * the environment: `status` and `down` act on the cluster that is there, whatever
 * STOWAGE_CLUSTER_PORT_BASE says now.
 */
function recorded(o: TopologyOptions): TopologyOptions {
  const s = readSettings(o.dir);
  if (!s) return o;
  if (s.kind !== 'c') throw new Error(`${o.dir} holds a topology of another kind (${s.tag})`);
  return { ...o, portBase: s.portBase, servers: s.servers, controllers: s.controllers, agents: s.agents, disksPerNode: s.disksPerNode };
}

function readState(o: TopologyOptions): State | undefined {
  try {
    return JSON.parse(readFileSync(path.join(o.dir, 'state.json'), 'utf8')) as State;
  } catch {
    return undefined;
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function up(o: TopologyOptions): Promise<void> {
  const running = readState(o);
  if (running && alive(running.supervisor)) {
    say(`The cluster in ${o.dir} is already up (supervisor pid ${running.supervisor}).`);
    return;
  }
  const missing = await Topology.missing();
  if (missing) throw new Error(`this machine cannot run the cluster: ${missing}`);
  // Leftovers of a cluster in this directory whose supervisor was killed: its own namespaces,
  // devices and data, as its topology.json recorded them (nothing of other clusters).
  const before = readSettings(o.dir);
  if (before) await teardown(recorded(o));
  rmSync(o.dir, { recursive: true, force: true });
  mkdirSync(o.dir, { recursive: true });
  const logFile = path.join(o.dir, 'supervisor.log');
  const out = openSync(logFile, 'a');
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), 'supervise', ...process.argv.slice(3)], {
    cwd: process.cwd(),
    detached: true,
    stdio: ['ignore', out, out],
    env: process.env,
  });
  child.unref();
  say(`Starting (progress in ${path.relative(process.cwd(), logFile)}) ...`);
  let shown = 0;
  const state = await waitUntil(
    'the cluster to come up',
    async () => {
      const lines = readFileSync(logFile, 'utf8').split('\n').filter(Boolean);
      for (; shown < lines.length; shown++) say(`  ${lines[shown]}`);
      if (!alive(child.pid!)) throw new Error(`the supervisor exited; see ${logFile}`);
      return readState(o);
    },
    900_000,
    500,
  );
  status(state);
}

function status(s: State): void {
  say('');
  say(`Dashboard (HAProxy):   ${s.dashboard}   (sign in as admin, password ${s.adminPassword ?? 'in logs/server1.log'})`);
  say(`API (HAProxy):         ${s.api}`);
  say(`Postgres (HAProxy):    ${s.database}   (the node whose Patroni answers /primary)`);
  for (const n of s.postgres?.nodes ?? []) say(`  ${n.name.padEnd(14)} ${n.address} in namespace ${n.namespace}, Patroni ${n.patroni}`);
  say(`etcd:                  ${(s.postgres?.etcd ?? []).join(' ')}`);
  say(`Admin kubeconfig:      ${s.kubeconfig}`);
  say(`Supervisor:            pid ${s.supervisor} (restarts any process below that dies)`);
  for (const p of s.processes) say(`  ${p.name.padEnd(14)} pid ${p.pid ?? '-'}`);
  for (const n of s.nodes) say(`  node ${n.name.padEnd(9)} namespace ${n.namespace}, address ${n.address}`);
  say('');
  say(`Try: KUBECONFIG=${path.relative(process.cwd(), s.kubeconfig)} kubectl get nodes,pv`);
}

async function supervise(o: TopologyOptions): Promise<void> {
  const t = new Topology(o);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    say('Stopping the cluster ...');
    rmSync(path.join(o.dir, 'state.json'), { force: true });
    await t.down();
    say('Stopped.');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  try {
    await t.up();
    // Keep the pids in state.json current as the supervisor restarts processes.
    setInterval(() => t.writeState(), 2000);
    say('Ready.');
  } catch (e) {
    say(`The cluster could not start: ${(e as Error).message}`);
    await t.down().catch(() => {});
    process.exit(1);
  }
}

async function down(given: TopologyOptions): Promise<void> {
  const o = recorded(given);
  if (!readSettings(o.dir) && !readState(o)) {
    say(`No cluster in ${o.dir}; nothing to remove.`);
    return;
  }
  const s = readState(o);
  if (s && alive(s.supervisor)) {
    process.kill(s.supervisor, 'SIGTERM');
    await waitUntil('the supervisor to stop', async () => !alive(s.supervisor), 120_000, 500);
  }
  await teardown(o);
  rmSync(o.dir, { recursive: true, force: true });
  say('The cluster is down; its namespaces, loop devices and data are removed.');
}

async function main(): Promise<void> {
  const [cmd] = process.argv.slice(2);
  const given = options(process.argv);
  const o = cmd === 'up' ? given : recorded(given);
  switch (cmd) {
    case 'up':
      return up(o);
    case 'supervise':
      return supervise(o);
    case 'down':
      return down(o);
    case 'status': {
      const s = readState(o);
      if (!s || !alive(s.supervisor)) {
        say(`No cluster is running in ${o.dir}.`);
        process.exitCode = 1;
        return;
      }
      status(s);
      for (const n of s.postgres?.nodes ?? []) {
        const role = await fetch(`${n.patroni}/patroni`, { signal: AbortSignal.timeout(2000) }).then((r) => r.json()).then((j: any) => `${j.role} (${j.state})`).catch(() => 'not answering');
        say(`${n.name} (Patroni): ${role}`);
      }
      for (let i = 0; i < s.processes.filter((p) => p.name.startsWith('server')).length; i++) {
        say(`server${i + 1} /readyz: ${(await readyz(`https://127.0.0.1:${ports(o.portBase).serverApi(i)}`)) ? 'ok' : 'failing'}`);
      }
      return;
    }
    default:
      say('usage: npm run cluster -- up [--servers N] [--controllers N] [--agents N] [--pools] | status | down');
      process.exitCode = existsSync(o.dir) ? 0 : 2;
  }
}

main().catch((e) => {
  process.stderr.write(`error: ${(e as Error).message}\n`);
  process.exit(1);
});

// A real `stowage start --api-workers 1` (docs/perf/cores.md): the API is served by a worker
// process beside the main one, creates and watches work through it (in resourceVersion
// order), a worker killed is started again with a log line while the API keeps answering,
// and a Ctrl-C stops the workers and then the rest: exit 0, `Stopped.` last, no process of
// the run left (workers, the embedded Postgres).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { freePort } from '../../server/store/free-port';
import { killQuietly, mountsUnder, processesIn, waitFor } from './start-helpers';

const root = path.resolve(import.meta.dirname, '..', '..');
const dir = mkdtempSync(path.join(os.tmpdir(), 'stowage-api-workers-'));
chmodSync(dir, 0o755); // the embedded Postgres runs as its own user
const pgDir = path.join(dir, 'postgres');
let current: ChildProcess | undefined;
/** Every process seen under the main one during the test. */
const seen = new Set<number>();

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** The live processes whose parent is `pid`, with their command lines. */
function childrenOf(pid: number): { pid: number; cmd: string }[] {
  const found: { pid: number; cmd: string }[] = [];
  for (const p of readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === pid && fields[0] !== 'Z') found.push({ pid: Number(p), cmd: readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').join(' ') });
    } catch {
      // gone
    }
  }
  return found;
}

const postgresProcesses = () => processesIn(pgDir);

afterAll(() => {
  if (current?.pid && current.exitCode === null && current.signalCode === null) killQuietly(-current.pid);
  for (const pid of [...seen, ...postgresProcesses()]) killQuietly(pid);
  for (const m of mountsUnder(dir).reverse()) spawnSync('umount', ['-l', m]);
  rmSync(dir, { recursive: true, force: true });
});

function kubeconfig(): { server: string; ca: Buffer; token: string } {
  const cfg = parse(readFileSync(path.join(dir, 'admin.kubeconfig'), 'utf8'));
  const cluster = cfg.clusters[0].cluster;
  return { server: cluster.server, ca: Buffer.from(cluster['certificate-authority-data'], 'base64'), token: cfg.users[0].user.token };
}

/** A request to the API as the data dir's admin: status and body. */
function kube(method: string, urlPath: string, body?: object): Promise<{ status: number; text: string }> {
  const k = kubeconfig();
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(urlPath, k.server), { method, ca: k.ca, agent: false, headers: { Authorization: `Bearer ${k.token}`, 'Content-Type': 'application/json' } });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body ? JSON.stringify(body) : undefined);
  });
}

/** A namespace watch from `rv`: the names and resourceVersions of its ADDED events as they come. */
function watchNamespaces(rv: string): { added: { name: string; rv: number }[]; stop(): void } {
  const k = kubeconfig();
  const added: { name: string; rv: number }[] = [];
  const req = https.request(new URL(`/api/v1/namespaces?watch=true&resourceVersion=${rv}`, k.server), { ca: k.ca, agent: false, headers: { Authorization: `Bearer ${k.token}` } });
  req.on('response', (res) => {
    let buf = '';
    res.setEncoding('utf8');
    res.on('data', (c: string) => {
      buf += c;
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        const ev = JSON.parse(buf.slice(0, nl)) as { type: string; object: { metadata: { name: string; resourceVersion: string } } };
        buf = buf.slice(nl + 1);
        if (ev.type === 'ADDED') added.push({ name: ev.object.metadata.name, rv: Number(ev.object.metadata.resourceVersion) });
      }
    });
    res.on('error', () => {});
  });
  req.on('error', () => {});
  req.end();
  return { added, stop: () => req.destroy() };
}

const namespace = (name: string) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });

describe('`stowage start --api-workers 1`', () => {
  it('refuses a count that is not auto or 0 to 16, naming the option', () => {
    const r = spawnSync(process.execPath, ['bin/stowage.mjs', 'start', '--api-workers', 'many'], { cwd: root, env: { ...process.env, STOWAGE_DATA_DIR: dir }, encoding: 'utf8', timeout: 60_000 });
    expect(r.status, r.stdout + r.stderr).toBe(1);
    expect(r.stderr).toContain('--api-workers must be auto or a whole number from 0 to 16, got "many"');
  }, 70_000);

  it('serves creates and watches through a worker, restarts a killed worker, and stops with no process left', async () => {
    const [port, apiPort] = [await freePort(), await freePort()];
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      STOWAGE_DATA_DIR: dir,
      STOWAGE_DASHBOARD: 'off',
      STOWAGE_NODE_NAME: `api-workers-${process.pid}`,
      HOST: '127.0.0.1',
      PORT: String(port),
      STOWAGE_API_PORT: String(apiPort),
      STOWAGE_LOG_LEVEL: 'warn',
      STOWAGE_API_WORKERS: '0', // the option wins over the variable
    };
    delete env.DATABASE_URL;
    const child = spawn(process.execPath, ['bin/stowage.mjs', 'start', '--api-workers', '1'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    current = child;
    let text = '';
    child.stdout.on('data', (d) => (text += d));
    child.stderr.on('data', (d) => (text += d));
    const out = () => text;
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const main = child.pid!;
    await waitFor('Stowage to start', () => text.includes('Press Ctrl-C') || child.exitCode !== null, 90_000, out);
    expect(child.exitCode, out()).toBeNull();

    // The worker is a child of the main process, running the `api-worker` command, and was
    // serving before the start said so.
    const announced = /served by 1 API worker process: pid (\d+)\)/.exec(out());
    expect(announced, out()).not.toBeNull();
    const worker = Number(announced![1]);
    const workers = () => childrenOf(main).filter((c) => / api-worker $/.test(c.cmd));
    expect(workers().map((w) => w.pid), JSON.stringify(childrenOf(main))).toEqual([worker]);
    for (const c of childrenOf(main)) seen.add(c.pid);
    const ready = await kube('GET', '/readyz');
    expect(ready.status, ready.text).toBe(200);

    // Creates through the API, seen by a watch in resourceVersion order.
    const rv = JSON.parse((await kube('GET', '/api/v1/namespaces?limit=1')).text).metadata.resourceVersion as string;
    const watch = watchNamespaces(rv);
    try {
      const names = ['w-1', 'w-2', 'w-3'];
      for (const n of names) expect((await kube('POST', '/api/v1/namespaces', namespace(n))).status).toBe(201);
      await waitFor('the watch to see the creates', () => names.every((n) => watch.added.some((a) => a.name === n)), 20_000, out);
      const mine = watch.added.filter((a) => names.includes(a.name));
      expect(mine.map((a) => a.name)).toEqual(names);
      expect(mine.map((a) => a.rv)).toEqual([...mine.map((a) => a.rv)].sort((a, b) => a - b));
    } finally {
      watch.stop();
    }

    // A worker that dies is started again, with a log line; the API answers meanwhile.
    process.kill(worker, 'SIGKILL');
    await waitFor('the death to be seen', () => out().includes(`API worker 1 (pid ${worker}) exited (killed by SIGKILL); starting it again in 1 s`), 10_000, out);
    expect((await kube('POST', '/api/v1/namespaces', namespace('while-restarting'))).status).toBe(201);
    await waitFor('the worker to serve again', () => /API worker 1 serves again \(pid \d+\)/.test(out()), 60_000, out);
    const again = Number(/API worker 1 serves again \(pid (\d+)\)/.exec(out())![1]);
    expect(again).not.toBe(worker);
    expect(workers().map((w) => w.pid)).toEqual([again]);
    for (const c of childrenOf(main)) seen.add(c.pid);
    expect((await kube('POST', '/api/v1/namespaces', namespace('after-restart'))).status).toBe(201);
    expect(child.exitCode, out()).toBeNull();

    // Ctrl-C (SIGINT to the whole group, the worker included): the whole stop, exit 0.
    process.kill(-main, 'SIGINT');
    const code = await Promise.race([exited, new Promise<string>((r) => setTimeout(() => r('still running after 45 s'), 45_000))]);
    expect(code, out()).toBe(0);
    expect(out().trim().split('\n').at(-1)).toBe('Stopped.');
    expect(out()).not.toContain('did not stop within');
    expect([...seen].filter(alive), out()).toEqual([]);
    expect(postgresProcesses(), out()).toEqual([]);
    expect(existsSync(path.join(dir, 'runtime.json'))).toBe(false);
  }, 180_000);
});

// A real `stowage start` (through npm, and node alone) with a pod's volume published,
// stopped by each signal a terminal, npm, systemd or a container runtime sends: the stop
// runs to its end (exit status 0, `Stopped.` last), unmounts what the agent published,
// stops Postgres and removes runtime.json and postgres.owner. On the way, the embedded
// postmaster is killed with SIGKILL: Stowage says so, restarts it in place and serves
// again; when it cannot be restarted, Stowage stops with status 1. Two of the starts run an
// API worker process (STOWAGE_API_WORKERS=1), which must stop with the rest.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { freePort } from '../../server/store/free-port';
import { killQuietly, mountsUnder, processesIn, waitFor } from './start-helpers';

const root = path.resolve(import.meta.dirname, '..', '..');
const dir = mkdtempSync(path.join(os.tmpdir(), 'stowage-clean-stop-'));
chmodSync(dir, 0o755); // the embedded Postgres runs as its own user
const pgDir = path.join(dir, 'postgres');
const node = `clean-stop-${process.pid}`;
let current: ChildProcess | undefined;

const postgresProcesses = () => processesIn(pgDir);
const mountsUnderDir = () => mountsUnder(dir);

afterAll(async () => {
  // Whatever failed: nothing of this test outlives it.
  if (current?.pid && current.exitCode === null && current.signalCode === null) killQuietly(-current.pid);
  for (const pid of postgresProcesses()) killQuietly(pid);
  for (const m of mountsUnderDir().reverse()) spawnSync('umount', ['-l', m]);
  rmSync(dir, { recursive: true, force: true });
});

interface Running {
  child: ChildProcess;
  out: () => string;
  exited: Promise<number | null>;
  port: number;
}

/** `npm start` or `node bin/stowage.mjs start` on the test's data dir, in a process group of its own. */
async function start(via: 'npm' | 'node', more: Record<string, string> = {}): Promise<Running> {
  const [port, apiPort] = [await freePort(), await freePort()];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    STOWAGE_DATA_DIR: dir,
    STOWAGE_DASHBOARD: 'off',
    STOWAGE_NODE_NAME: node,
    HOST: '127.0.0.1',
    PORT: String(port),
    STOWAGE_API_PORT: String(apiPort),
    STOWAGE_LOG_LEVEL: 'warn',
    ...more,
  };
  delete env.DATABASE_URL;
  const [cmd, args] = via === 'npm' ? ['npm', ['start']] : [process.execPath, ['bin/stowage.mjs', 'start']];
  const child = spawn(cmd, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  current = child;
  let text = '';
  child.stdout.on('data', (d) => (text += d));
  child.stderr.on('data', (d) => (text += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const out = () => text;
  await waitFor('Stowage to start', () => text.includes('Press Ctrl-C') || child.exitCode !== null, 90_000, out);
  expect(child.exitCode, out()).toBeNull();
  return { child, out, exited, port };
}

/** A request to the Kubernetes-compatible API as the admin of the data dir's kubeconfig. */
function kube(method: string, urlPath: string, body?: object): Promise<number> {
  const cfg = parse(readFileSync(path.join(dir, 'admin.kubeconfig'), 'utf8'));
  const cluster = cfg.clusters[0].cluster;
  const url = new URL(urlPath, cluster.server);
  return new Promise((resolve, reject) => {
    const req = https.request(url, {
      method,
      ca: Buffer.from(cluster['certificate-authority-data'], 'base64'),
      headers: { Authorization: `Bearer ${cfg.users[0].user.token}`, 'Content-Type': 'application/json' },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body ? JSON.stringify(body) : undefined);
  });
}

async function publishPod(): Promise<void> {
  const made = [
    await kube('POST', '/apis/storage.k8s.io/v1/storageclasses', {
      apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'dirs' },
      provisioner: 'stowage.io/host-path', volumeBindingMode: 'WaitForFirstConsumer', parameters: { basePath: path.join(dir, 'volumes') },
    }),
    await kube('POST', '/api/v1/namespaces/default/persistentvolumeclaims', {
      apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data' },
      spec: { storageClassName: 'dirs', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    }),
    await kube('POST', '/api/v1/namespaces/default/pods', {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'app' },
      spec: { containers: [{ name: 'app', image: 'busybox', volumeMounts: [{ name: 'data', mountPath: '/data' }] }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }] },
    }),
  ];
  expect(made).toEqual([201, 201, 201]);
}

async function readyz(port: number): Promise<number> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(5000) })).status;
  } catch {
    return 0;
  }
}

/**
 * Sends `signal` (to the group: a terminal's Ctrl-C), and `second` once the stop began,
 * and checks that the stop ran to its end.
 */
async function stopsCleanly(s: Running, signal: NodeJS.Signals, to: 'process' | 'group', second?: NodeJS.Signals): Promise<void> {
  await waitFor('the pod volume to be mounted', () => mountsUnderDir().some((m) => m.startsWith(path.join(dir, 'pods'))), 30_000, s.out);
  process.kill(to === 'group' ? -s.child.pid! : s.child.pid!, signal);
  if (second) {
    await waitFor('the stop to begin', () => s.out().includes(`${signal}: stopping Stowage`), 10_000, s.out);
    process.kill(s.child.pid!, second);
  }
  const code = await Promise.race([s.exited, new Promise<string>((r) => setTimeout(() => r('still running after 45 s'), 45_000))]);
  expect(code, s.out()).toBe(0);
  expect(s.out()).toContain(`${signal}: stopping Stowage ...`);
  expect(s.out().trim().split('\n').at(-1)).toBe('Stopped.');
  expect(existsSync(path.join(dir, 'runtime.json'))).toBe(false);
  expect(existsSync(path.join(dir, 'postgres.owner'))).toBe(false);
  expect(mountsUnderDir(), s.out()).toEqual([]);
  expect(postgresProcesses(), s.out()).toEqual([]);
}

describe('stopping `stowage start`', () => {
  it('SIGTERM to npm, after Postgres was killed and restarted: the whole stop, exit 0', async () => {
    // With an API worker (docs/perf/cores.md): it rides out the restart too, and stops first.
    const s = await start('npm', { STOWAGE_API_WORKERS: '1' });
    await publishPod();
    const postmaster = Number(readFileSync(path.join(pgDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(postmaster, 'SIGKILL');
    await waitFor('Postgres to be restarted', () => s.out().includes('Postgres is running again'), 30_000, s.out);
    expect(s.out()).toContain(`Postgres (pid ${postmaster}) exited unexpectedly (killed by SIGKILL); restarting it in place`);
    await waitFor('/readyz to pass again', async () => (await readyz(s.port)) === 200, 30_000, s.out);
    await stopsCleanly(s, 'SIGTERM', 'process');
  }, 150_000);

  it('Ctrl-C through npm (SIGINT to the whole process group: npm, Stowage, not Postgres): exit 0', async () => {
    const s = await start('npm');
    await stopsCleanly(s, 'SIGINT', 'group');
    // Postgres, in a session of its own, was stopped by Stowage last, not by the Ctrl-C.
    expect(s.out()).not.toContain('exited unexpectedly');
  }, 120_000);

  it('a second signal during the stop (its shutdown delay) does not cut it short: exit 0', async () => {
    const s = await start('node', { STOWAGE_SHUTDOWN_DELAY_SECONDS: '2', STOWAGE_API_WORKERS: '1' });
    await stopsCleanly(s, 'SIGTERM', 'process', 'SIGINT');
    expect(s.out()).toContain('Serving 2 s more with /readyz failing');
    expect(s.out()).toContain('SIGINT: already stopping (SIGTERM); the stop goes on to its end.');
  }, 120_000);

  it('a standalone `stowage agent` stops on SIGHUP too: exit 0, `Stopped.`', async () => {
    const s = await start('node');
    const env: NodeJS.ProcessEnv = { ...process.env, STOWAGE_DATA_DIR: dir };
    delete env.DATABASE_URL;
    const tokenFile = path.join(dir, 'other.token');
    const added = spawnSync(process.execPath, ['bin/stowage.mjs', 'node', 'add', 'other', '-o', tokenFile], { cwd: root, env, encoding: 'utf8' });
    expect(added.status, added.stderr).toBe(0);
    const apiUrl = JSON.parse(readFileSync(path.join(dir, 'runtime.json'), 'utf8')).apiUrl as string;
    const args = ['bin/stowage.mjs', 'agent', '--server', apiUrl, '--token-file', tokenFile, '--ca-file', path.join(dir, 'pki', 'ca.crt'), '--pods-dir', path.join(dir, 'other-pods'), '--state-dir', path.join(dir, 'other-state')];
    const agent = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    agent.stdout.on('data', (d) => (out += d));
    agent.stderr.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => agent.on('exit', (code) => resolve(code)));
    try {
      await waitFor('the agent to run', () => out.includes('press Ctrl-C to stop') || agent.exitCode !== null, 60_000, () => out);
      agent.kill('SIGHUP');
      expect(await exited, out).toBe(0);
      expect(out).toContain('SIGHUP: stopping the agent ...');
      expect(out.trim().split('\n').at(-1)).toBe('Stopped.');
    } finally {
      agent.kill('SIGKILL');
    }
    await stopsCleanly(s, 'SIGTERM', 'process');
  }, 120_000);

  it.each(['SIGTERM', 'SIGHUP', 'SIGQUIT'] as const)('%s to node directly: exit 0', async (signal) => {
    const s = await start('node');
    await stopsCleanly(s, signal, 'process');
  }, 120_000);

  it('a Postgres that cannot be restarted stops Stowage with status 1, /readyz failing meanwhile', async () => {
    const s = await start('node');
    // Its files made unusable, the postmaster cannot come back.
    renameSync(path.join(pgDir, 'PG_VERSION'), path.join(pgDir, 'PG_VERSION.aside'));
    try {
      const postmaster = Number(readFileSync(path.join(pgDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      process.kill(postmaster, 'SIGKILL');
      await waitFor('a failed restart', () => s.out().includes('Postgres restart 1 of'), 30_000, s.out);
      expect(await readyz(s.port)).not.toBe(200);
      const code = await Promise.race([s.exited, new Promise<string>((r) => setTimeout(() => r('still running after 45 s'), 45_000))]);
      expect(code, s.out()).toBe(1);
      expect(s.out()).toMatch(/Postgres could not be restarted \(4 tries; last: .+\); stopping with status 1/);
      expect(s.out().trim().split('\n').at(-1)).toBe('Stopped (status 1).');
      expect(mountsUnderDir()).toEqual([]);
      expect(postgresProcesses()).toEqual([]);
      expect(existsSync(path.join(dir, 'runtime.json'))).toBe(false);
    } finally {
      renameSync(path.join(pgDir, 'PG_VERSION.aside'), path.join(pgDir, 'PG_VERSION'));
    }
  }, 120_000);
});

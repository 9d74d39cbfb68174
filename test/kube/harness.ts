// A real Kubernetes-compatible API server in-process on a free port, over this test file's
// own database: an admin and a developer (namespace team-a) with tokens and kubeconfigs,
// and helpers to run kubectl against it.
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { renderKubeconfig } from '../../server/services/kubeconfig';
import { logger } from '../../server/services/logger';
import { pvProtectionSpec } from '../../server/controllers/deleter/pv-protection';
import { pvcProtectionSpec } from '../../server/controllers/pvc-protection/pvc-protection';
import { namespaceControllerSpec } from '../../server/controllers/namespace/namespace';
import { Manager } from '../../server/controllers/runtime/manager';
import { startApiServer, type RunningApiServer } from '../../server/kube/api-server';
import type { KubeApp } from '../../server/kube/handler';
import { HealthService } from '../../server/services/health';
import { ObjectService } from '../../server/services/objects';
import { UserService } from '../../server/services/users';
import { openTestStore, type TestStore } from '../db';

export interface KubeHarness {
  ts: TestStore;
  app: KubeApp & { objects: ObjectService; users: UserService };
  dir: string;
  url: string;
  caPem: string;
  adminToken: string;
  devToken: string;
  kubeconfig: { admin: string; dev: string };
  restart(): Promise<void>;
  /** Stops the server only (the database stays): for restart tests. */
  stopServer(): Promise<void>;
  startServer(): Promise<void>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  watchKeepAliveMs?: number;
  maxBodyBytes?: number;
  /**
   * Run the pvc-protection, pv-protection and namespace controllers (default true), as a cluster does.
   * Tests that count writes exactly turn them off: they add finalizers in the background.
   */
  protection?: boolean;
}

export const DEV_NAMESPACE = 'team-a';

export async function startKubeHarness(opts: HarnessOptions = {}): Promise<KubeHarness> {
  const ts = await openTestStore();
  const app = { store: ts.store, objects: new ObjectService(ts.store), users: new UserService(ts.store), health: new HealthService(ts.store) };
  for (const ns of ['default', DEV_NAMESPACE, 'other']) {
    await ts.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  }
  await app.users.create({ name: 'admin', role: 'admin' });
  await app.users.create({ name: 'dev', role: 'developer', namespaces: [DEV_NAMESPACE] });
  // As in a cluster, deleting a claim (a volume) completes once pvc-protection (pv-protection) sees it unused.
  const { protection: withProtection = true, ...serverOpts } = opts;
  const protection = new Manager({
    store: ts.store,
    log: logger,
    specs: () => (withProtection ? [pvcProtectionSpec({ store: ts.store }), pvProtectionSpec({ store: ts.store }), namespaceControllerSpec({ store: ts.store })] : []),
    leaderElection: false,
  });
  await protection.start();
  const adminToken = await app.users.createToken('admin');
  const devToken = await app.users.createToken('dev');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'stowage-kube-'));
  let server: RunningApiServer | undefined = await startApiServer({ app, dataDir: dir, host: '127.0.0.1', port: 0, ...serverOpts });
  const port = server.port;
  const kubeconfig = { admin: path.join(dir, 'admin.kubeconfig'), dev: path.join(dir, 'dev.kubeconfig') };
  writeFileSync(kubeconfig.admin, renderKubeconfig({ server: server.url, user: 'admin', token: adminToken, caPem: server.caPem }));
  writeFileSync(
    kubeconfig.dev,
    renderKubeconfig({ server: server.url, user: 'dev', token: devToken, caPem: server.caPem, namespace: DEV_NAMESPACE }),
  );
  const h: KubeHarness = {
    ts,
    app,
    dir,
    url: server.url,
    caPem: server.caPem,
    adminToken,
    devToken,
    kubeconfig,
    async stopServer() {
      await server?.close();
      server = undefined;
    },
    async startServer() {
      server = await startApiServer({ app, dataDir: dir, host: '127.0.0.1', port, ...serverOpts });
    },
    async restart() {
      await h.stopServer();
      await h.startServer();
    },
    async close() {
      await server?.close();
      await protection.stop();
      await ts.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return h;
}

/** Polls `check` until it returns a truthy value or the deadline passes. */
export async function waitFor<T>(check: () => T | Promise<T>, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export function findKubectl(): string | undefined {
  if (process.env.KUBECTL) return process.env.KUBECTL;
  try {
    return execFileSync('sh', ['-c', 'command -v kubectl'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

export function pythonHasKubernetes(python = '/usr/bin/python3'): boolean {
  try {
    execFileSync(python, ['-c', 'import kubernetes'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface Kubectl {
  (args: string[], o?: { user?: 'admin' | 'dev'; input?: string; env?: Record<string, string> }): Promise<RunResult>;
  spawn(args: string[], user?: 'admin' | 'dev'): ChildProcess;
}

/** kubectl with this harness's kubeconfig and a cache dir of its own. */
export function kubectlFor(h: KubeHarness, bin: string): Kubectl {
  const cacheDir = path.join(h.dir, 'kube-cache');
  mkdirSync(cacheDir, { recursive: true });
  const full = (args: string[], user: 'admin' | 'dev') => ['--kubeconfig', h.kubeconfig[user], '--cache-dir', cacheDir, ...args];
  const run: Kubectl = ((args, o = {}) =>
    new Promise<RunResult>((resolve) => {
      const child = execFile(
        bin,
        full(args, o.user ?? 'admin'),
        { env: { ...process.env, HOME: h.dir, ...o.env }, timeout: 30_000, maxBuffer: 64 * 1024 * 1024 },
        (err, stdout, stderr) => {
          const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : 1) : 0;
          resolve({ code, stdout, stderr });
        },
      );
      if (o.input !== undefined) child.stdin?.end(o.input);
      else child.stdin?.end();
    })) as Kubectl;
  run.spawn = (args, user = 'admin') =>
    spawn(bin, full(args, user), { env: { ...process.env, HOME: h.dir }, stdio: ['ignore', 'pipe', 'pipe'] });
  return run;
}

/** kubectl that must succeed quietly: its stdout; the test fails on any stderr (but `ignore`) or a non-zero exit. */
export function kubectlOk(kubectl: Kubectl, ignore?: string | RegExp): (args: string[], o?: Parameters<Kubectl>[1]) => Promise<string> {
  return async (args, o = {}) => {
    const r = await kubectl(args, o);
    expect(ignore === undefined ? r.stderr : r.stderr.replace(ignore, ''), `kubectl ${args.join(' ')}`).toBe('');
    expect(r.code, `kubectl ${args.join(' ')}: ${r.stderr}`).toBe(0);
    return r.stdout;
  };
}

export interface KubectlSuite {
  /** The harness (started before the suite's tests). */
  h(): KubeHarness;
  kubectl: Kubectl;
  /** kubectlOk of `kubectl`. */
  ok: ReturnType<typeof kubectlOk>;
}

/** Inside a describe: a harness started before its tests and closed after them, and kubectl `bin` with its kubeconfigs. */
export function kubectlSuite(bin: string, o: { ignoreStderr?: string | RegExp } = {}): KubectlSuite {
  let h: KubeHarness | undefined;
  let run: Kubectl | undefined;
  beforeAll(async () => {
    h = await startKubeHarness();
    run = kubectlFor(h, bin);
  });
  afterAll(async () => {
    await h?.close();
  });
  const kubectl = ((args, opts) => run!(args, opts)) as Kubectl;
  kubectl.spawn = (args, user) => run!.spawn(args, user);
  return { h: () => h!, kubectl, ok: kubectlOk(kubectl, o.ignoreStderr) };
}

// `npm run cluster -- status | down` act on the cluster recorded in the state directory
// (its port base and namespaces), not on whatever STOWAGE_CLUSTER_PORT_BASE says now.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { addressing, writeSettings } from '../../scripts/cluster/settings';

const root = path.resolve(__dirname, '..', '..');
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

/** Runs the command without blocking this process (a replica here must answer it). */
function cli(args: string[], dir: string, env: Record<string, string | undefined> = {}): Promise<{ status: number | null; out: string }> {
  const e: Record<string, string | undefined> = { ...process.env, STOWAGE_CLUSTER_DIR: dir, ...env };
  if (!('STOWAGE_CLUSTER_PORT_BASE' in env)) delete e.STOWAGE_CLUSTER_PORT_BASE;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'scripts', 'cluster', 'main.ts'), ...args], { cwd: root, env: e as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 50_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, out });
    });
  });
}

function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'stowage-cluster-cli-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** An HTTPS /readyz answering 200 on a free port (a self-signed certificate made here). */
async function readyReplica(dir: string): Promise<number> {
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-days', '1', '-keyout', path.join(dir, 'k.pem'), '-out', path.join(dir, 'c.pem')], { stdio: 'ignore' });
  const server = https.createServer({ key: readFileSync(path.join(dir, 'k.pem')), cert: readFileSync(path.join(dir, 'c.pem')) }, (_req, res) => res.end('ok'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => server.close());
  return (server.address() as AddressInfo).port;
}

describe('npm run cluster with a recorded port base', () => {
  it('status probes the replicas on the recorded base, with no variable set', async () => {
    const dir = tempDir();
    const port = await readyReplica(dir);
    const base = port - 20; // server1's API is base + 20
    writeSettings(dir, { kind: 'c', portBase: base, tag: `c${base}`, servers: 1, controllers: 1, agents: 1, disksPerNode: 1, patroni: false });
    writeFileSync(
      path.join(dir, 'state.json'),
      JSON.stringify({ supervisor: process.pid, dashboard: '-', api: '-', database: '-', kubeconfig: path.join(dir, 'k'), processes: [{ name: 'server1', pid: process.pid, starts: 1 }], nodes: [], postgres: { nodes: [], etcd: [] } }),
    );
    const r = await cli(['status'], dir);
    expect(r.out).toContain('server1 /readyz: ok');
    expect(r.status).toBe(0);
  }, 60_000);

  it('down removes only its own namespaces, whatever the variable says', async (ctx) => {
    if (process.getuid?.() !== 0) ctx.skip(); // network namespaces need root
    const dir = tempDir();
    const mine = addressing('c', 64100).namespace(1);
    const other = addressing('c', 24000 + 100 * (process.pid % 50)).namespace(1);
    const others = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout;
    if (others.includes(other)) ctx.skip(); // someone's real cluster: not ours to touch
    for (const ns of [mine, other]) {
      execFileSync('ip', ['netns', 'add', ns]);
      cleanups.push(() => spawnSync('ip', ['netns', 'del', ns]));
    }
    writeSettings(dir, { kind: 'c', portBase: 64100, tag: 'c64100', servers: 1, controllers: 1, agents: 1, disksPerNode: 1, patroni: false });
    const r = await cli(['down'], dir, { STOWAGE_CLUSTER_PORT_BASE: other.replace(/^stowage-c(\d+)-n1$/, '$1') });
    expect(r.status, r.out).toBe(0);
    const after = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout;
    expect(after).not.toMatch(new RegExp(`^${mine}\\b`, 'm'));
    expect(after).toMatch(new RegExp(`^${other}\\b`, 'm'));
  }, 60_000);

  it('refuses a bad port base with a message, not a stack trace', async () => {
    const r = await cli(['status'], tempDir(), { STOWAGE_CLUSTER_PORT_BASE: 'lots' });
    expect(r.status).toBe(1);
    expect(r.out).toMatch(/^error: STOWAGE_CLUSTER_PORT_BASE must be a whole number/);
    expect(r.out).not.toMatch(/\n\s+at /);
  }, 60_000);
});

// An idle installation's claim latency, measured from outside as a user sees it (figures
// printed, nothing asserted): `stowage start` in a temp data dir (its embedded Postgres, the
// API, the dashboard and the controllers, as `npm start` runs them), one static volume made
// Available per claim beforehand, then claims created one at a time through the HTTPS REST
// API while a claim watch runs. For each claim: the create's response time, and the time from
// sending the create to the watch showing the claim Bound, with where that time went (the
// watch's ADDED event, then the event that set spec.volumeName, then Bound).
//
//   npx tsx bench/idle-bind.ts [--claims 100] [--gap-ms 50]
// STOWAGE_BENCH_CPU_PROF=DIR writes a CPU profile of the `stowage start` process there
// (STOWAGE_BENCH_CPU_PROF_INTERVAL_US: its sampling interval, default 1000 µs)
// (summarise it with bench/profile-summary.ts).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { freePort } from '../server/store/free-port';
import { httpsRequest } from './https-request';

const { values: args } = parseArgs({ options: { claims: { type: 'string', default: '100' }, 'gap-ms': { type: 'string', default: '50' } } });
const CLAIMS = Math.max(1, Number(args.claims));
const GAP_MS = Math.max(0, Number(args['gap-ms']));
const root = path.resolve(import.meta.dirname, '..');
const dir = mkdtempSync(path.join(os.tmpdir(), 'stowage-idle-bind-'));
const now = () => performance.now();
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const fmt = (xs: number[]) => `p50 ${pct(xs, 50).toFixed(1)} ms, p90 ${pct(xs, 90).toFixed(1)} ms, p99 ${pct(xs, 99).toFixed(1)} ms`;

const [port, apiPort] = [await freePort(), await freePort()];
const prof = process.env.STOWAGE_BENCH_CPU_PROF;
const child = spawn(process.execPath, [...(prof ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(prof)}`, `--cpu-prof-interval=${Number(process.env.STOWAGE_BENCH_CPU_PROF_INTERVAL_US) || 1000}`] : []), path.join(root, 'bin', 'stowage.mjs'), 'start'], {
  cwd: root,
  env: { ...process.env, STOWAGE_DATA_DIR: dir, HOST: '127.0.0.1', PORT: String(port), STOWAGE_API_PORT: String(apiPort), STOWAGE_HEALTH_PORT: '0', STOWAGE_LOG_LEVEL: 'warn' },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let out = '';
child.stdout.on('data', (d: Buffer) => (out += d.toString()));
child.stderr.on('data', (d: Buffer) => (out += d.toString()));
const stop = async () => {
  if (child.exitCode === null) {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
  rmSync(dir, { recursive: true, force: true });
};

try {
  const deadline = Date.now() + 600_000;
  while (!out.includes('Press Ctrl-C')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`stowage start did not come up:\n${out.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const kubeconfig = readFileSync(path.join(dir, 'admin.kubeconfig'), 'utf8');
  const token = /token:\s*(\S+)/.exec(kubeconfig)?.[1] ?? '';
  const ca = Buffer.from(/certificate-authority-data:\s*(\S+)/.exec(kubeconfig)?.[1] ?? '', 'base64').toString();
  const server = new URL(`https://127.0.0.1:${apiPort}`);
  const agent = new https.Agent({ keepAlive: true, ca });
  const request = (method: string, p: string, body?: unknown) => httpsRequest(agent, server, token, method, p, body);
  const ns = 'idle';
  await request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await request('POST', '/apis/storage.k8s.io/v1/storageclasses', { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'idle' }, provisioner: 'kubernetes.io/no-provisioner' });
  for (let i = 0; i < CLAIMS; i++) {
    const r = await request('POST', '/api/v1/persistentvolumes', {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: `idle-${i}` },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], storageClassName: 'idle', hostPath: { path: `/tmp/idle-${i}` } },
    });
    if (r.status !== 201) throw new Error(`PV create answered ${r.status}: ${r.text}`);
  }
  // Every volume Available before the first claim: the controllers are idle then.
  for (;;) {
    const list = JSON.parse((await request('GET', '/api/v1/persistentvolumes')).text) as { items: { status?: { phase?: string } }[] };
    if (list.items.filter((v) => v.status?.phase === 'Available').length >= CLAIMS) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const startRv = (JSON.parse((await request('GET', `/api/v1/namespaces/${ns}/persistentvolumeclaims`)).text) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;

  // The watch: when each claim was first seen added, given its volume, and Bound.
  const seen = new Map<string, { added?: number; named?: number; bound?: number }>();
  const waiters = new Map<string, () => void>();
  const watch = https.request({ host: server.hostname, port: server.port, agent: new https.Agent({ ca }), path: `/api/v1/namespaces/${ns}/persistentvolumeclaims?watch=1&resourceVersion=${startRv}`, headers: { Authorization: `Bearer ${token}` } }, (res) => {
    let buf = '';
    res.on('data', (chunk: Buffer) => {
      const at = now();
      buf += chunk.toString();
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (!line.trim()) continue;
        const ev = JSON.parse(line) as { object: { metadata: { name: string }; spec?: { volumeName?: string }; status?: { phase?: string } } };
        const name = ev.object.metadata.name;
        const s = seen.get(name) ?? {};
        s.added ??= at;
        if (ev.object.spec?.volumeName) s.named ??= at;
        if (ev.object.status?.phase === 'Bound' && s.bound === undefined) {
          s.bound = at;
          waiters.get(name)?.();
        }
        seen.set(name, s);
      }
    });
  });
  watch.end();
  await new Promise((r) => setTimeout(r, 500));

  // Where the create's own time goes: the same HTTPS path for a read (TLS, HTTP, auth, one
  // indexed row), and a dry-run create (every check a create runs, without its write).
  const getMs: number[] = [];
  const dryRunMs: number[] = [];
  for (let i = 0; i < CLAIMS; i++) {
    const g0 = now();
    const g = await request('GET', `/api/v1/namespaces/${ns}`);
    getMs.push(now() - g0);
    if (g.status !== 200) throw new Error(`namespace GET answered ${g.status}: ${g.text}`);
    const d0 = now();
    const d = await request('POST', `/api/v1/namespaces/${ns}/persistentvolumeclaims?dryRun=All`, {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: `dry-${i}`, namespace: ns },
      spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'idle', resources: { requests: { storage: '1Gi' } } },
    });
    dryRunMs.push(now() - d0);
    if (d.status !== 201) throw new Error(`dry-run create answered ${d.status}: ${d.text}`);
    await new Promise((res) => setTimeout(res, GAP_MS / 5));
  }

  const createMs: number[] = [];
  const boundMs: number[] = [];
  const toAdded: number[] = [];
  const addedToNamed: number[] = [];
  const namedToBound: number[] = [];
  for (let i = 0; i < CLAIMS; i++) {
    const name = `c-${i}`;
    const bound = new Promise<void>((r) => waiters.set(name, r));
    const t0 = now();
    const r = await request('POST', `/api/v1/namespaces/${ns}/persistentvolumeclaims`, {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name, namespace: ns },
      spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'idle', resources: { requests: { storage: '1Gi' } } },
    });
    const t1 = now();
    if (r.status !== 201) throw new Error(`claim create answered ${r.status}: ${r.text}`);
    await Promise.race([bound, new Promise((_, rej) => setTimeout(() => rej(new Error(`claim ${name} not Bound within 30 s`)), 30_000))]);
    const s = seen.get(name)!;
    createMs.push(t1 - t0);
    boundMs.push(s.bound! - t0);
    toAdded.push(s.added! - t0);
    addedToNamed.push((s.named ?? s.bound!) - s.added!);
    namedToBound.push(s.bound! - (s.named ?? s.bound!));
    await new Promise((res) => setTimeout(res, GAP_MS));
  }
  watch.destroy();
  console.log(`Idle claim latency through \`stowage start\` (${CLAIMS} claims one at a time, ${GAP_MS} ms apart; ${os.cpus().length} CPUs, load ${os.loadavg()[0].toFixed(1)}):`);
  console.log(`  a GET of the namespace (TLS, HTTP, auth, one row): ${fmt(getMs)}`);
  console.log(`  a dry-run claim create (every check, no write):   ${fmt(dryRunMs)}`);
  console.log(`  create answered:                 ${fmt(createMs)}`);
  console.log(`  create sent → watch shows Bound: ${fmt(boundMs)}  (target p50 5 ms)`);
  console.log(`    of which: create sent → ADDED on the watch ${fmt(toAdded)}`);
  console.log(`              ADDED → spec.volumeName set       ${fmt(addedToNamed)}`);
  console.log(`              volumeName set → Bound           ${fmt(namedToBound)}`);
} finally {
  await stop();
}

// Soak test of dynamic provisioning and deletion: N claims of an in-tree class are
// provisioned, bound and deleted through the real controllers (binder, provisioner,
// deleter, pv-protection) on a real Postgres, while the OS layer fails at random (half of
// the failures after the operation took effect), and the provisioning controllers are
// restarted once half way (a crash between asset and PV). Reports leaked assets (must be
// 0) and the time per volume.
//
//   npx tsx bench/provisioning.ts [--count 1000] [--fail-rate 0.1] [--plugin host-path|loop]
//                                 [--os real|fake] [--concurrency 8] [--seed 1] [--no-restart]
//
// Uses DATABASE_URL's server (a fresh database in it) or an embedded Postgres.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { createAppContext } from '../server/wiring/context';
import { binderSpec } from '../server/controllers/binder/binder';
import { provisioningDeps, provisioningSpecs } from '../server/controllers/provisioning-start';
import { Manager } from '../server/controllers/runtime/manager';
import { createRealOs, type HostOs } from '../server/provisioners/os';
import { FakeOs, FaultyOs } from '../server/provisioners/os-fake';
import { hostPathProvisioner, loopProvisioner } from '../server/domain/well-known/provisioners';
import { inTreeProvisionerNames } from '../server/domain/provisioner-capabilities';
import { releaseEverythingUnder } from '../server/provisioners/testing';
import { ensureDatabase, startEmbeddedPostgres } from '../server/store/database';
import { migrate } from '../server/store/migrate';
import { countEventOccurrences, countObjects } from '../server/store/bench-queries';

const { values: args } = parseArgs({
  options: {
    count: { type: 'string', default: '1000' },
    'fail-rate': { type: 'string', default: '0.1' },
    plugin: { type: 'string', default: 'host-path' },
    os: { type: 'string', default: 'real' },
    concurrency: { type: 'string', default: '8' },
    seed: { type: 'string', default: '1' },
    'no-restart': { type: 'boolean', default: false },
    'timeout-seconds': { type: 'string', default: '600' },
  },
});
const count = Number(args.count);
const failRate = Number(args['fail-rate']);
const plugin = args.plugin === 'loop' ? loopProvisioner : hostPathProvisioner;
const concurrency = Number(args.concurrency);
const deadline = Date.now() + Number(args['timeout-seconds']) * 1000;

/** mulberry32: repeatable random numbers for the failure injector. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function until(what: string, probe: () => Promise<boolean>, onTick?: () => Promise<void>): Promise<void> {
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await onTick?.();
    await new Promise((r) => setTimeout(r, 100));
  }
}

const work = await fs.mkdtemp(path.join(os.tmpdir(), 'stowage-bench-prov-'));
const base = path.join(work, 'volumes');
let stopPg = async () => {};
let url: string;
if (process.env.DATABASE_URL) {
  const u = new URL(process.env.DATABASE_URL);
  u.pathname = '';
  url = await ensureDatabase(u.toString().replace(/\/$/, ''), `stowage_bench_prov_${Date.now()}`);
} else {
  const pg = await startEmbeddedPostgres(path.join(work, 'pg'));
  stopPg = pg.stop;
  url = await ensureDatabase(pg.baseUrl, 'stowage');
}
// Whatever happens, the embedded Postgres and every mount/loop/dir are released at exit.
async function cleanup(): Promise<void> {
  await stopPg().catch(() => {});
  await releaseEverythingUnder(work);
}
process.on('uncaughtException', (err) => {
  console.error(err);
  void cleanup().finally(() => process.exit(1));
});
process.on('unhandledRejection', (err) => {
  console.error(err);
  void cleanup().finally(() => process.exit(1));
});
await migrate(url);
const app = await createAppContext(url);
const log = pino({ level: process.env.STOWAGE_LOG_LEVEL ?? 'silent' });

const inner: HostOs = args.os === 'fake' ? new FakeOs({ hostname: 'bench-node' }) : createRealOs('bench-node');
if (plugin === loopProvisioner && args.os !== 'fake') {
  const s = await inner.loopSupport();
  if (!s.ok) throw new Error(`--plugin loop with the real OS needs loop devices: ${s.reason}`);
}
const faulty = new FaultyOs(inner, { rate: failRate, random: seeded(Number(args.seed)) });
const deps = provisioningDeps({ app, os: faulty, nodeName: 'bench-node', log, saveAttempts: 5, saveIntervalMs: 10, sweepGraceMs: 1000 });
const manager = () =>
  new Manager({
    store: app.store,
    log,
    leaderElection: false,
    shutdownTimeoutMs: 30_000,
    specs: () => [
      binderSpec({ store: app.store, log, events: deps.events, concurrency, pendingGraceMs: 0, resyncMs: 2000, inTreeProvisioners: inTreeProvisionerNames }),
      ...provisioningSpecs(deps, { retryBaseMs: 20, retryMaxMs: 2000, resyncMs: 1000, concurrency }),
    ],
  });

const boundClaims = () => countObjects(app.store, 'PersistentVolumeClaim', { phase: 'Bound' });
const volumes = () => countObjects(app.store, 'PersistentVolume');
const events = (reason: string) => countEventOccurrences(app.store, reason);

async function assetsOnDisk(): Promise<number> {
  if (inner instanceof FakeOs) {
    const dirs = [...inner.dirs].filter((d) => d.startsWith(`${base}/`) && !d.endsWith('/mounts'));
    return dirs.length + inner.files.size + inner.loops.size + inner.mounts.size;
  }
  const entries = await fs.readdir(base).catch(() => [] as string[]);
  const mounts = await fs.readdir(path.join(base, 'mounts')).catch(() => [] as string[]);
  return entries.filter((e) => e !== 'mounts').length + mounts.length;
}

console.log(`provisioning soak: ${count} volumes, ${plugin} on the ${args.os} OS, failure rate ${failRate}, concurrency ${concurrency}`);
await app.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } });
await app.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
const parameters: Record<string, string> = { basePath: base };
await app.store.create({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'bench' }, provisioner: plugin, parameters });

let running = manager();
await running.start();
const size = plugin === loopProvisioner ? '2Mi' : '1Gi';
const t0 = performance.now();
for (let i = 0; i < count; i += 50) {
  await Promise.all(
    Array.from({ length: Math.min(50, count - i) }, (_, j) =>
      app.store.create({
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: `claim-${i + j}`, namespace: 'bench' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: size } }, storageClassName: 'bench' },
      }),
    ),
  );
}
let restarted = args['no-restart'];
await until(`${count} claims to be Bound`, async () => (await boundClaims()) === count, async () => {
  if (!restarted && (await boundClaims()) >= count / 2) {
    restarted = true;
    await running.stop(); // a "crash": in-flight provisioning is cut off between asset and PV
    running = manager();
    await running.start();
  }
});
const t1 = performance.now();

for (let i = 0; i < count; i += 50) {
  await Promise.all(
    Array.from({ length: Math.min(50, count - i) }, (_, j) => app.store.delete('PersistentVolumeClaim', 'bench', `claim-${i + j}`)),
  );
}
const settled = async () => (await volumes()) === 0 && (await deps.assets.count()) === 0 && (await assetsOnDisk()) === 0;
let timedOut = false;
await until('every volume and asset to be gone', settled).catch(() => (timedOut = true));
const t2 = performance.now();

const report = {
  volumes: count,
  'injected OS failures': faulty.injected,
  'ProvisioningFailed events': await events('ProvisioningFailed'),
  'VolumeFailedDelete events': await events('VolumeFailedDelete'),
  'provision+bind total (s)': ((t1 - t0) / 1000).toFixed(1),
  'provision+bind per volume (ms)': ((t1 - t0) / count).toFixed(1),
  'delete total (s)': ((t2 - t1) / 1000).toFixed(1),
  'delete per volume (ms)': ((t2 - t1) / count).toFixed(1),
  'PVs left': await volumes(),
  'intent records left': await deps.assets.count(),
  'leaked assets (on disk, no PV)': await assetsOnDisk(),
};
console.table(report);

await running.stop();
await app.close();
await cleanup();
const leaked = report['leaked assets (on disk, no PV)'] + report['intent records left'] + report['PVs left'];
if (leaked > 0 || timedOut) {
  console.error(timedOut ? 'FAILED: did not settle in time' : `FAILED: ${leaked} leaked`);
  process.exit(1);
}
console.log('OK: 0 leaked');

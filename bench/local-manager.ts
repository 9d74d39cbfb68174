// The local-volume manager at scale: 10 simulated node agents each report 100 discovered
// disks through the real agent API (HTTPS, node tokens); the controllers (manager, binder,
// node lifecycle) turn them into Available PVs. Prints the time from the first report to
// the last PV Available (target < 10 s), and the same for a second wave after all 1,000
// were released, wiped (simulated agents report success) and re-created.
//
//   npx tsx bench/local-manager.ts [--nodes 10] [--disks 100]
//
// Uses DATABASE_URL's server (a fresh database in it) or an embedded Postgres.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { agentHttpClient, type AgentApi } from '../server/agent/agent-client';
import type { DiscoveredEntry } from '../server/contracts/agent';
import { createAppContext } from '../server/wiring/context';
import { logger } from '../server/services/logger';
import { startControllers } from '../server/controllers/start';
import { startApiServer } from '../server/kube/api-server';
import { ensureDatabase, startEmbeddedPostgres } from '../server/store/database';
import { migrate } from '../server/store/migrate';
import { countObjects } from '../server/store/bench-queries';
import type { PersistentVolume } from '../server/resources/persistent-volume/schema';

logger.level = process.env.STOWAGE_LOG_LEVEL ?? 'warn';
const { values: args } = parseArgs({ options: { nodes: { type: 'string', default: '10' }, disks: { type: 'string', default: '100' } } });
const NODES = Number(args.nodes);
const DISKS = Number(args.disks);
const TOTAL = NODES * DISKS;
const CLASS = 'bench-local';
const HOST_DIR = '/mnt/bench-disks';

const work = await fs.mkdtemp(path.join(os.tmpdir(), 'stowage-bench-local-'));
let stopPg: () => Promise<void> = async () => {};
let url: string;
if (process.env.DATABASE_URL) {
  const u = new URL(process.env.DATABASE_URL);
  u.pathname = '';
  url = await ensureDatabase(u.toString().replace(/\/$/, ''), `stowage_bench_local_${Date.now()}`);
} else {
  const pg = await startEmbeddedPostgres(path.join(work, 'pg'));
  stopPg = pg.stop;
  url = await ensureDatabase(pg.baseUrl, 'stowage');
}
await migrate(url);
const app = await createAppContext(url);
const api = await startApiServer({ app, dataDir: work, host: '127.0.0.1', port: 0 });
for (const ns of ['kube-system', 'default']) await app.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
await app.store.create({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'local-volume-config', namespace: 'kube-system' },
  data: { storageClassMap: `${CLASS}:\n  hostDir: ${HOST_DIR}\n  requireMountPoints: false\n` },
});
const controllers = await startControllers({ app, connectionString: url, leaderElection: false });

const agents: { node: string; api: AgentApi }[] = [];
for (let n = 0; n < NODES; n++) {
  const node = `bench-node-${n}`;
  agents.push({ node, api: agentHttpClient({ server: api.url, token: await app.nodeAgent.createToken(node), caPem: api.caPem }) });
}
const entries = (node: string): DiscoveredEntry[] =>
  Array.from({ length: DISKS }, (_, i) => ({
    className: CLASS,
    entryName: `disk-${i}`,
    hostPath: `${HOST_DIR}/disk-${i}`,
    volumeMode: i % 4 === 0 ? 'Block' : 'Filesystem',
    capacityBytes: String((10 + (i % 7)) * 1024 ** 3),
    eligible: true,
    deviceId: `${node}:${i}`,
  }));

function availableCount(): Promise<number> {
  return countObjects(app.store, 'PersistentVolume', { phase: 'Available', withLabel: 'local.stowage.io/node' });
}

async function waitAvailable(n: number, timeoutMs = 120_000): Promise<number> {
  const start = performance.now();
  while ((await availableCount()) < n) {
    if (performance.now() - start > timeoutMs) throw new Error(`only ${await availableCount()} of ${n} Available after ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 25));
  }
  return performance.now() - start;
}

// The simulated agents heartbeat as real ones do (every 10 s).
const beats = setInterval(() => {
  for (const a of agents) a.api.heartbeat(a.node, {}).catch(() => {});
}, 10_000);

// Wave 1: discovery reports -> Available PVs.
const t0 = performance.now();
await Promise.all(agents.map(async (a) => {
  await a.api.heartbeat(a.node, {});
  await a.api.discoveries(a.node, entries(a.node));
}));
const reported = performance.now() - t0;
await waitAvailable(TOTAL);
const wave1 = performance.now() - t0;
console.log(`${TOTAL} disks on ${NODES} agents -> ${TOTAL} Available PVs: ${(wave1 / 1000).toFixed(2)} s (reports sent in ${(reported / 1000).toFixed(2)} s; target < 10 s)`);

// Wave 2: every PV Released (claimRef to a claim that is gone), cleanup jobs, simulated wipes, re-created.
const t1 = performance.now();
const pvs = (await app.store.list('PersistentVolume', { labelSelector: 'local.stowage.io/node' })).items;
for (const listed of pvs) {
  for (let attempt = 0; ; attempt++) {
    try {
      const pv = await app.store.get('PersistentVolume', undefined, listed.metadata.name!);
      pv.spec!.claimRef = { kind: 'PersistentVolumeClaim', namespace: 'default', name: `gone-${pv.metadata.name}`, uid: `uid-${pv.metadata.name}` };
      const saved = (await app.store.update(pv)) as PersistentVolume; // update returns the volume it stored
      saved.status = { ...saved.status, phase: 'Released' };
      await app.store.update(saved, { subresource: 'status' });
      break;
    } catch (e) {
      if ((e as { code?: string }).code !== 'Conflict' || attempt > 10) throw e;
    }
  }
}
const instance = 'bench-agent';
let wiped = 0;
while (wiped < TOTAL) {
  const rounds = await Promise.all(agents.map(async (a) => {
    const { jobs } = await a.api.claim(a.node, { instance, running: [], max: 64 });
    await Promise.all(jobs.map((j) => a.api.result(a.node, j.jobId, { instance, result: { jobId: j.jobId, ok: true, durationMs: 1 } })));
    return jobs.length;
  }));
  wiped += rounds.reduce((x, y) => x + y, 0);
  if (rounds.every((r) => r === 0)) await new Promise((r) => setTimeout(r, 50));
}
const recreated = await waitAvailable(TOTAL);
const wave2 = performance.now() - t1;
console.log(`${TOTAL} Released -> cleanup jobs -> wiped -> re-created Available: ${(wave2 / 1000).toFixed(2)} s (last re-creation wait ${(recreated / 1000).toFixed(2)} s)`);

clearInterval(beats);
await controllers.stop();
await api.close();
await app.close();
await stopPg();
await fs.rm(work, { recursive: true, force: true });
process.exit(0);

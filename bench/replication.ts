// Replicated pool volumes, the whole way (controllers, two agents each with its own btrfs
// pool on a loop device and its own replication listener, the API, Postgres): a volume of
// --mib MiB of random data with --replicas 2 and a --interval; then
//   steady replication  each interval 1% of the volume rewritten; per acknowledged
//                       transfer: bytes sent (the receive job's count) against bytes changed
//                       (goal: within 2x), and the CPU this process (both agents, the
//                       controllers, the API) used per interval;
//   failover            the active node's agent stops; node NotReady (after the grace) ->
//                       the claim's new pod Running on the replica (goal: <= 10 s after the
//                       grace), and the data-loss window: how old the replica's data was
//                       when the node stopped (goal: <= one interval).
// The raw `btrfs send | btrfs receive` comparison of a rebuild is bench/replication-agent.ts.
// Root needed; everything is released at the end. Prints figures; never fails on speed.
//
//   npx tsx bench/replication.ts [--mib 1024] [--interval 10] [--rounds 3] [--grace 5]
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { AgentLoop } from '../server/agent/agent-loop';
import { dataMover } from '../server/agent/data-mover';
import { startControllers } from '../server/controllers/start';
import { readReplication } from '../server/domain/replication';
import { annPoolTotal, annReplicationEndpoint } from '../server/domain/well-known/annotations';
import { poolCapacityName } from '../server/domain/btrfs-pool';
import { createPool } from '../server/agent/pool-setup';
import type { Pod } from '../server/resources/pod/schema';
import { releaseAndWarn } from '../server/provisioners/testing';
import { logger } from '../server/services/logger';
import { VolumeReplicaStore } from '../server/store/volume-replicas';
import { poolBenchDir, startBenchAgent, startStack, untilWith } from './stack';

const { values: args } = parseArgs({ options: { mib: { type: 'string', default: '1024' }, interval: { type: 'string', default: '10' }, rounds: { type: 'string', default: '3' }, grace: { type: 'string', default: '5' } } });
const MIB = Number(args.mib);
const INTERVAL = Number(args.interval);
const ROUNDS = Number(args.rounds);
const GRACE = Number(args.grace);
const POOL = '/pools/fast';
const NS = 'bench';
const MiB = 1 << 20;
logger.level = process.env.STOWAGE_LOG_LEVEL ?? 'warn';

const work = await poolBenchDir('stowage-bench-replication-');
const until = untilWith({ everyMs: 50, timeoutMs: 600_000 });
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

try {
  const s = await startStack(work, [NS]);
  const replicas = new VolumeReplicaStore(s.app.store);
  const agents = new Map<string, AgentLoop>();
  const root = (node: string) => path.join(work, node);
  const poolBytes = BigInt(Math.max(3 * MIB, 1024)) * BigInt(MiB);
  for (const node of ['node-a', 'node-b']) {
    await createPool({ source: path.join(work, `${node}.img`), mount: path.join(root(node), POOL), sizeBytes: poolBytes });
    await fs.mkdir(path.join(root(node), 'pods'), { recursive: true });
  }
  await s.app.store.create({
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: 'replicated' },
    provisioner: 'stowage.io/btrfs',
    parameters: { pool: POOL, replicas: '2', replicationInterval: `${INTERVAL}s` },
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'WaitForFirstConsumer',
  });
  const controllers = await startControllers({ app: s.app, connectionString: s.url, leaderElection: false, pendingGraceMs: 0, nodeLifecycle: { graceMs: GRACE * 1000, resyncMs: 250 } });
  const start = async (node: string) => agents.set(node, await startBenchAgent(s, node, { poolRoot: root(node), podsDir: path.join(root(node), 'pods'), dataMover, replication: { listen: '127.0.0.1:0' }, heartbeatMs: 1000, publishMs: 200, poolMs: 200, claimMs: 200, progressIntervalMs: 500 }));
  for (const node of ['node-a', 'node-b']) await start(node);
  for (const node of ['node-a', 'node-b']) {
    await until(`${node} pool and endpoint`, async () => !!(await s.app.store.tryGet('CSIStorageCapacity', 'kube-system', poolCapacityName(node, 'replicated')))?.metadata.annotations?.[annPoolTotal] && !!(await s.app.store.tryGet('Node', undefined, node))?.metadata.annotations?.[annReplicationEndpoint]);
  }
  const pod = (name: string, node?: string): Pod => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: NS }, spec: { ...(node ? { nodeSelector: { 'kubernetes.io/hostname': node } } : {}), containers: [{ name: 'app', image: 'app:1' }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }] } });
  await s.app.store.create({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data', namespace: NS }, spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'replicated', resources: { requests: { storage: `${MIB + 64}Mi` } } } });
  await s.app.store.create(pod('app', 'node-a'));
  let pvName = '';
  await until('claim Bound', async () => {
    const c = (await s.app.store.tryGet('PersistentVolumeClaim', NS, 'data'));
    pvName = c?.status?.phase === 'Bound' ? (c.spec?.volumeName ?? '') : '';
    return !!pvName;
  });
  const dir = path.join(root('node-a'), POOL, pvName);
  const file = path.join(dir, 'data.bin');
  const fh = await fs.open(file, 'w');
  for (let i = 0; i < MIB; i++) await fh.write(randomBytes(MiB));
  await fh.sync();
  await fh.close();
  const replica = async () => readReplication(((await s.app.store.get('PersistentVolume', undefined, pvName))).metadata.annotations)?.replicas.find((r) => r.node === 'node-b');
  const syncedAfter = async (t: number) => {
    const r = await replica();
    return r?.state === 'InSync' && !!r.lastSyncTime && Date.parse(r.lastSyncTime) >= Math.floor(t / 1000) * 1000;
  };
  const rebuildStart = performance.now();
  await until('the first (full) transfer', () => syncedAfter(0));
  console.log(`rebuild (full transfer of ${MIB} MiB, through the controllers and both agents): ${((performance.now() - rebuildStart) / 1000).toFixed(1)} s (${(MIB / ((performance.now() - rebuildStart) / 1000)).toFixed(0)} MiB/s)`);

  // Steady: each interval 1% rewritten in place, the next transfer waited for.
  const changeMiB = Math.max(1, Math.round(MIB / 100));
  console.log(`steady: ${ROUNDS} intervals of ${INTERVAL} s, ${changeMiB} MiB (1%) rewritten in each`);
  console.log('interval  changed  sent (receive job)  sent/changed  CPU of this process in the interval');
  for (let i = 0; i < ROUNDS; i++) {
    const h = await fs.open(file, 'r+');
    const at = Math.floor(Math.random() * (MIB - changeMiB));
    for (let j = 0; j < changeMiB; j++) await h.write(randomBytes(MiB), 0, MiB, (at + j) * MiB);
    await h.sync();
    await h.close();
    const t0 = Date.now();
    const c0 = cpu();
    await until(`transfer ${i + 1}`, () => syncedAfter(t0));
    const sent = (await replicas.list(pvName)).find((r) => r.node === 'node-b')?.lastBytes ?? 0n;
    const c1 = cpu();
    console.log(`${String(i + 1).padStart(8)}  ${String(changeMiB).padStart(4)} MiB  ${(Number(sent) / MiB).toFixed(1).padStart(8)} MiB      ${sent > 0n ? (Number(sent) / (changeMiB * MiB)).toFixed(2).padStart(5) + 'x' : '    -'}      ${(c1 - c0).toFixed(2)} s over ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }

  // Failover.
  const last = await replica();
  const stoppedAt = Date.now();
  await agents.get('node-a')!.stop();
  await until('node-a NotReady', async () => !!(await s.app.store.tryGet('Node', undefined, 'node-a'))?.status?.conditions?.some((c) => c.type === 'Ready' && c.status !== 'True'));
  const notReadyAt = Date.now();
  await s.app.store.delete('Pod', NS, 'app', { gracePeriodSeconds: 0 });
  await s.app.store.create(pod('app2'));
  await until('pod app2 Running on node-b', async () => {
    const p = (await s.app.store.tryGet('Pod', NS, 'app2'));
    return p?.status?.phase === 'Running' && p.spec?.nodeName === 'node-b';
  });
  const runningAt = Date.now();
  const window = last?.lastSyncTime ? (stoppedAt - Date.parse(last.lastSyncTime)) / 1000 : NaN;
  console.log(`failover: node stopped -> NotReady ${((notReadyAt - stoppedAt) / 1000).toFixed(1)} s (grace ${GRACE} s); NotReady -> pod Running on the replica ${((runningAt - notReadyAt) / 1000).toFixed(1)} s (goal <= 10 s)`);
  console.log(`data-loss window when the node stopped: ${window.toFixed(1)} s (interval ${INTERVAL} s; goal <= one interval, lastSyncTime has whole seconds)`);
  for (const a of agents.values()) await a.stop().catch(() => undefined);
  await controllers.stop();
  await s.stop();
} finally {
  await releaseAndWarn(work);
}

// Snapshots: (1) a btrfs volume holding 10,000 files / 1 GiB: VolumeSnapshot created ->
// readyToUse (goal <= 1 s), and a claim restored from it: created -> Bound (goal <= 2 s);
// (2) host-path: the snapshot of a directory holding the same tree (created -> readyToUse,
// a `cp -a --reflink=auto` under the controllers) against a raw `cp -a` of the same tree
// (goal >= 0.8x). Real btrfs on a file-backed loop device (root needed) and a directory
// under the temp dir; the API, the controllers (with host-path provisioning on this node)
// and one agent in this process, on its own Postgres.
//
//   npx tsx bench/snapshots.ts [--files 10000] [--mib 1024] [--runs 3] [--pool-ms 250]
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { poolSupport } from '../server/agent/pool-setup';
import { startControllers } from '../server/controllers/start';
import { btrfsProvisioner, hostPathProvisioner } from '../server/domain/well-known/provisioners';
import { releaseAndWarn } from '../server/provisioners/testing';
import { logger } from '../server/services/logger';
import { makeBenchPool, median, releaseOnEarlyExit, startBenchAgent, startStack, untilWith } from './stack';

const run = promisify(execFile);
logger.level = process.env.STOWAGE_LOG_LEVEL ?? 'warn';
const { values: args } = parseArgs({
  options: { files: { type: 'string', default: '10000' }, mib: { type: 'string', default: '1024' }, runs: { type: 'string', default: '3' }, 'pool-ms': { type: 'string', default: '250' } },
});
const FILES = Number(args.files);
const BYTES = Number(args.mib) << 20;
const RUNS = Number(args.runs);
const NODE = os.hostname();
const NS = 'bench';

const support = await poolSupport();
const work = await fs.mkdtemp(path.join(os.tmpdir(), 'stowage-bench-snapshots-'));
releaseOnEarlyExit(work);
const until = untilWith({ everyMs: 5, timeoutMs: 600_000 });

/** FILES files of BYTES/FILES bytes each, 100 to a directory. */
async function writeTree(root: string): Promise<void> {
  const block = Buffer.alloc(Math.floor(BYTES / FILES), 7);
  for (let d = 0; d * 100 < FILES; d++) {
    const sub = path.join(root, `d${d}`);
    await fs.mkdir(sub, { recursive: true });
    await Promise.all(Array.from({ length: Math.min(100, FILES - d * 100) }, (_, f) => fs.writeFile(path.join(sub, `f${f}`), block)));
  }
}

try {
  const stack = await startStack(work, ['kube-system', 'default', NS]);
  const { app, url } = stack;
  const controllers = await startControllers({ app, connectionString: url, leaderElection: false, pendingGraceMs: 0, provisioning: { nodeName: NODE } });
  const store = app.store;
  const snapshotClass = (name: string, driver: string) => store.create({ apiVersion: 'snapshot.storage.k8s.io/v1', kind: 'VolumeSnapshotClass', metadata: { name }, driver, deletionPolicy: 'Delete' });
  const claim = (name: string, cls: string, size: string, snapshot?: string) =>
    store.create({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name, namespace: NS },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: size } }, storageClassName: cls, ...(snapshot ? { dataSource: { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: snapshot } } : {}) },
    });
  const bound = async (name: string) => ((await store.tryGet('PersistentVolumeClaim', NS, name)))?.status?.phase === 'Bound';
  const volumeOf = async (name: string) => store.get('PersistentVolume', undefined, (await store.get('PersistentVolumeClaim', NS, name)).spec!.volumeName!);
  /** ms from creating a VolumeSnapshot of `source` to readyToUse. */
  const snapshot = async (name: string, source: string, cls: string) => {
    const t0 = Date.now();
    await store.create({ apiVersion: 'snapshot.storage.k8s.io/v1', kind: 'VolumeSnapshot', metadata: { name, namespace: NS }, spec: { source: { persistentVolumeClaimName: source }, volumeSnapshotClassName: cls } });
    await until(`snapshot ${name} ready`, async () => ((await store.tryGet('VolumeSnapshot', NS, name)))?.status?.readyToUse === true);
    return Date.now() - t0;
  };
  const deleteSnapshot = async (name: string) => {
    await store.delete('VolumeSnapshot', NS, name);
    await until(`snapshot ${name} gone`, async () => !(await store.tryGet('VolumeSnapshot', NS, name)));
  };

  // (1) btrfs.
  if (!support.ok) {
    console.log(`btrfs part skipped: ${support.reason}`);
  } else {
    const pool = await makeBenchPool(work, BigInt(BYTES) * 4n + (1n << 30n));
    await store.create({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'pooled' }, provisioner: btrfsProvisioner, parameters: { pool }, reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' });
    await snapshotClass('pooled-snap', btrfsProvisioner);
    const agent = await startBenchAgent(stack, NODE, { poolMs: Number(args['pool-ms']), heartbeatMs: 1000 });
    await until('the pool reported', async () => (await store.list('CSIStorageCapacity')).items.some((c) => c.storageClassName === 'pooled'));
    const size = `${Math.ceil((BYTES * 1.25) / (1 << 20))}Mi`;
    await claim('src', 'pooled', size);
    await until('the source claim Bound', () => bound('src'));
    const dir = (await volumeOf('src')).spec!.local!.path!;
    await writeTree(dir);
    await run('btrfs', ['filesystem', 'sync', pool]);
    const ready: number[] = [];
    const restored: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      ready.push(await snapshot(`bs${i}`, 'src', 'pooled-snap'));
      const t0 = Date.now();
      await claim(`br${i}`, 'pooled', size, `bs${i}`);
      await until(`restore ${i} Bound`, () => bound(`br${i}`));
      restored.push(Date.now() - t0);
    }
    const restoredDir = (await volumeOf('br0')).spec!.local!.path!;
    const { stdout } = await run('find', [restoredDir, '-type', 'f']);
    console.log(`btrfs volume with ${FILES} files / ${BYTES >> 20} MiB, agent pool pass every ${args['pool-ms']} ms, ${RUNS} runs:`);
    console.log(`  snapshot created -> readyToUse:  ${ready.join(', ')} ms (median ${median(ready)} ms; goal <= 1000 ms)`);
    console.log(`  restore created -> claim Bound:  ${restored.join(', ')} ms (median ${median(restored)} ms; goal <= 2000 ms)`);
    console.log(`  the restored volume holds ${stdout.trim().split('\n').length} files`);
    await agent.stop();
  }

  // (2) host-path copy vs cp -a.
  const base = path.join(work, 'dirs');
  await store.create({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'dirs' }, provisioner: hostPathProvisioner, parameters: { basePath: base }, reclaimPolicy: 'Delete' });
  await snapshotClass('dirs-snap', hostPathProvisioner);
  await claim('hsrc', 'dirs', `${Math.ceil((BYTES * 1.25) / (1 << 20))}Mi`);
  await until('the host-path claim Bound', () => bound('hsrc'));
  const src = (await volumeOf('hsrc')).spec!.hostPath!.path!;
  await writeTree(src);
  await run('sync');
  const rawTarget = path.join(work, 'raw-copy');
  const through: number[] = [];
  const raw: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    // Taking turns, each copy removed (and the removal written out) before the next.
    const t0 = Date.now();
    await run('cp', ['-a', src, rawTarget]);
    raw.push(Date.now() - t0);
    await fs.rm(rawTarget, { recursive: true, force: true });
    await run('sync');
    through.push(await snapshot(`hs${i}`, 'hsrc', 'dirs-snap'));
    await deleteSnapshot(`hs${i}`);
    await run('sync');
  }
  console.log(`host-path directory with ${FILES} files / ${BYTES >> 20} MiB on ${(await run('stat', ['-f', '-c', '%T', base])).stdout.trim()}, ${RUNS} runs each, taking turns:`);
  console.log(`  snapshot through Stowage (created -> readyToUse): ${through.join(', ')} ms (median ${median(through)} ms)`);
  console.log(`  raw cp -a:                                        ${raw.join(', ')} ms (median ${median(raw)} ms)`);
  console.log(`  ratio ${(median(raw) / median(through)).toFixed(2)}x (raw / Stowage, medians; goal >= 0.8x)`);

  await controllers.stop();
  await stack.stop();
} finally {
  await releaseAndWarn(work);
}

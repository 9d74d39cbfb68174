// Backups of btrfs pool volumes through real agents, end to end: two nodes, each with its
// own btrfs pool on a loop device (both at the class's pool path, each under its agent's
// root), the controllers, and both agents running the real data mover. A claim on node-a
// is backed up into a BackupTarget (a temp directory); a second backup of the changed
// volume, while the previous backup's snapshot still exists, writes little new; then the
// claim is deleted and node-a's agent stopped, and a claim with `dataSourceRef` to the
// backup, placed on node-b, binds with the same data (checksums of every file).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentLoop } from '../../server/agent/agent-loop';
import { dataMover } from '../../server/agent/data-mover';
import { poolCapacityName } from '../../server/domain/btrfs-pool';
import { annPoolTotal, annSelectedNode } from '../../server/domain/well-known/annotations';
import { btrfsProvisioner } from '../../server/domain/well-known/provisioners';
import type { VolumeSnapshot } from '../../server/resources/volume-snapshot/schema';
import { waitFor } from '../controllers/fixtures';
import { boundVolume, type LocalHarness } from '../local-volumes/harness';
import { btrfsClass, checksums, closePoolHarness, makePool, openPoolHarness, qgroups, skipWithoutPools, subvolumes } from './fixture';

const skip = skipWithoutPools('btrfs backup and restore tests');

const POOL = '/pools/fast';
const NS = 'apps';
const MiB = 1 << 20;
let h: LocalHarness;
let roots: string;
let target: string;
const agents = new Map<string, AgentLoop>();
const poolOf = (node: string) => path.join(roots, node, POOL);

beforeAll(async () => {
  if (skip) return;
  ({ h, dir: roots } = await openPoolHarness('stowage-backup-pools-'));
  for (const node of ['node-a', 'node-b']) {
    await fs.mkdir(path.join(roots, node, 'pools'), { recursive: true });
    await makePool(path.join(roots, node, 'pools'), 'fast', 384);
  }
  target = path.join(roots, 'target');
  await fs.mkdir(target);
  await h.app.store.create(btrfsClass('pooled', POOL, { volumeBindingMode: 'WaitForFirstConsumer' }));
  await h.app.store.create({
    apiVersion: 'snapshot.storage.k8s.io/v1',
    kind: 'VolumeSnapshotClass',
    metadata: { name: 'pooled-snap', annotations: { 'snapshot.storage.kubernetes.io/is-default-class': 'true' } },
    driver: btrfsProvisioner,
    deletionPolicy: 'Delete',
  });
  await h.app.store.create({ apiVersion: 'stowage.io/v1', kind: 'BackupTarget', metadata: { name: 'shared' }, spec: { path: target, default: true } });
  await h.startControllers();
  for (const node of ['node-a', 'node-b']) agents.set(node, await h.startAgent(node, { poolRoot: path.join(roots, node), dataMover }));
  for (const node of ['node-a', 'node-b']) {
    await waitFor(`${node} pool reported`, async () => (await h.app.store.tryGet('CSIStorageCapacity', 'kube-system', poolCapacityName(node, 'pooled')))?.metadata.annotations?.[annPoolTotal], 20_000);
  }
}, 90_000);

afterAll(() => closePoolHarness(h, roots));

const eventsOf = async (name: string) =>
  (await h.app.store.list('Event', { namespace: NS })).items.filter((e) => (e as { involvedObject?: { name?: string } }).involvedObject?.name === name).map((e) => (e as { message?: string }).message);

type Backup = { metadata: { name?: string; uid?: string; finalizers?: string[] }; status?: Record<string, unknown> };
const backup = (name: string) => h.app.store.tryGet('VolumeBackup', NS, name) as Promise<Backup | undefined>;

async function backupDone(name: string, source: Record<string, string>): Promise<Backup> {
  await h.app.store.create({ apiVersion: 'stowage.io/v1', kind: 'VolumeBackup', metadata: { name, namespace: NS }, spec: { source, backupTargetName: 'shared' } });
  const b = await waitFor(`backup ${name} ended`, async () => {
    const b = await backup(name);
    return b?.status?.phase === 'Completed' || b?.status?.phase === 'Failed' ? b : undefined;
  }, 60_000).catch(async (e) => {
    throw new Error(`${(e as Error).message}: ${JSON.stringify((await backup(name))?.status)} ${JSON.stringify(await eventsOf(name))}`);
  });
  expect(b.status?.error).toBeUndefined();
  expect(b.status?.phase).toBe('Completed');
  return b;
}

async function snapshotReady(name: string, claimName: string): Promise<VolumeSnapshot> {
  await h.app.store.create({ apiVersion: 'snapshot.storage.k8s.io/v1', kind: 'VolumeSnapshot', metadata: { name, namespace: NS }, spec: { source: { persistentVolumeClaimName: claimName } } });
  return waitFor(`snapshot ${name} ready`, async () => {
    const s = (await h.app.store.tryGet('VolumeSnapshot', NS, name));
    return s?.status?.readyToUse ? s : undefined;
  }, 30_000);
}

const claimOn = (name: string, node: string, size: string, extra: Record<string, unknown> = {}) =>
  h.app.store.create({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: NS, annotations: { [annSelectedNode]: node } },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: size } }, storageClassName: 'pooled', ...extra },
  });

describe.skipIf(skip)('backups of btrfs pool volumes through real agents', () => {
  it('backs a claim up on node-a, backs it up again incrementally, restores it on node-b after node-a is gone', async () => {
    await claimOn('data', 'node-a', '40Mi');
    const pv = await boundVolume(h.app, 'data', 30_000, NS);
    expect(pv.spec?.local?.path).toBe(`${POOL}/${pv.metadata.name}`);
    const dir = path.join(poolOf('node-a'), pv.metadata.name!);
    await fs.mkdir(path.join(dir, 'sub'));
    await fs.writeFile(path.join(dir, 'sub', 'random.bin'), randomBytes(8 * MiB));
    await fs.writeFile(path.join(dir, 'hello.txt'), 'hello from node-a');
    const first = await checksums(dir);

    // A backup from the claim: Stowage's own snapshot read on node-a, then deleted.
    const b1 = await backupDone('b1', { persistentVolumeClaimName: 'data' });
    expect(b1.status).toMatchObject({ node: 'node-a', format: 'files', provisioner: btrfsProvisioner, sourceClaimName: 'data', backupTargetName: 'shared' });
    expect(BigInt(b1.status!.newBytes as string)).toBeGreaterThanOrEqual(BigInt(8 * MiB));
    await waitFor('the backup snapshot removed', async () => !(await h.app.store.tryGet('VolumeSnapshot', NS, b1.status!.snapshotName as string)), 30_000);
    await fs.access(path.join(target, 'stowage-backups', 'backups', `${b1.metadata.uid}.json`));

    // A backup from a snapshot the user keeps, then one of the changed volume: the second
    // reads only what changed since the kept snapshot.
    await snapshotReady('kept', 'data');
    const b2 = await backupDone('b2', { volumeSnapshotName: 'kept' });
    expect(BigInt(b2.status!.newBytes as string)).toBeLessThan(BigInt(MiB));
    const h2 = await fs.open(path.join(dir, 'sub', 'random.bin'), 'r+');
    await h2.write(randomBytes(64 * 1024), 0, 64 * 1024, 3 * MiB);
    await h2.close();
    await fs.writeFile(path.join(dir, 'new.txt'), 'written after the first backups');
    const changed = await checksums(dir);
    expect(changed).not.toEqual(first);
    const b3 = await backupDone('b3', { persistentVolumeClaimName: 'data' });
    expect(BigInt(b3.status!.totalBytes as string)).toBeGreaterThanOrEqual(BigInt(8 * MiB));
    const newBytes = BigInt(b3.status!.newBytes as string);
    expect(newBytes).toBeGreaterThan(0n);
    expect(newBytes).toBeLessThanOrEqual(BigInt(2 * MiB));

    // node-a goes away: the claim and the kept snapshot deleted, then its agent stopped.
    await h.app.store.delete('VolumeSnapshot', NS, 'kept');
    await h.app.store.delete('PersistentVolumeClaim', NS, 'data');
    await waitFor('the volume on node-a removed', async () => !(await h.app.store.tryGet('PersistentVolume', undefined, pv.metadata.name!)), 30_000);
    await waitFor('node-a pool empty', async () => (await subvolumes(poolOf('node-a'))).length === 0, 30_000);
    await agents.get('node-a')!.stop();

    // A claim from the backup on node-b binds with the data of the second backup.
    await claimOn('restored', 'node-b', '40Mi', { dataSourceRef: { apiGroup: 'stowage.io', kind: 'VolumeBackup', name: 'b3' } });
    const restored = await boundVolume(h.app, 'restored', 60_000, NS);
    expect(restored.spec?.nodeAffinity?.required?.nodeSelectorTerms?.[0]?.matchExpressions?.[0]?.values).toEqual(['node-b']);
    expect(restored.spec?.local?.path).toBe(`${POOL}/${restored.metadata.name}`);
    const rdir = path.join(poolOf('node-b'), restored.metadata.name!);
    expect(await checksums(rdir)).toEqual(changed);
    expect(await subvolumes(poolOf('node-b'))).toEqual([restored.metadata.name]);
    // The restored subvolume keeps the claim's limit (the plugin's provisioning after the job is the same volume).
    expect((await qgroups(poolOf('node-b'))).find((q) => q.path === restored.metadata.name)?.maxReferencedBytes).toBe(BigInt(40 * MiB));
    await fs.writeFile(path.join(rdir, 'after-restore.txt'), 'writable');

    // The first backup restores too, with the data as first written.
    await claimOn('first', 'node-b', '40Mi', { dataSourceRef: { apiGroup: 'stowage.io', kind: 'VolumeBackup', name: 'b1' } });
    const firstPv = await boundVolume(h.app, 'first', 60_000, NS);
    expect(await checksums(path.join(poolOf('node-b'), firstPv.metadata.name!))).toEqual(first);
  }, 300_000);
});

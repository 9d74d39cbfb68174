// stowage.io/btrfs end to end on real btrfs: a pool on a file-backed loop device, the API
// server, the controllers and a node agent over HTTPS, on a real Postgres. A claim gets a
// subvolume with a qgroup limit on the selected node; a write past it fails with "Disk
// quota exceeded"; expansion raises the limit online; deletion removes subvolume and qgroup.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { poolCapacityName } from '../../server/domain/btrfs-pool';
import { annPoolAllocated, annPoolProblem, annPoolTotal, annSelectedNode, annUsedBytes } from '../../server/domain/well-known/annotations';
import { btrfsProvisioner } from '../../server/domain/well-known/provisioners';
import { AssetStore } from '../../server/store/provisioned-assets';
import { waitFor } from '../controllers/fixtures';
import { boundVolume, type LocalHarness } from '../local-volumes/harness';
import { btrfsClass, closePoolHarness, makePool, openPoolHarness, qgroups, skipWithoutPools, subvolumes, writeUntil } from './fixture';

const skip = skipWithoutPools('btrfs pool tests');

const NODE = 'node-a';
const MiB = 1 << 20;
let h: LocalHarness;
let pool: string;
let poolDir: string;

beforeAll(async () => {
  if (skip) return;
  ({ h, dir: poolDir } = await openPoolHarness('stowage-pools-'));
  pool = await makePool(poolDir, 'pool-a');
  await h.app.store.create(btrfsClass('pooled', pool, { volumeBindingMode: 'WaitForFirstConsumer', allowVolumeExpansion: true }));
  await h.startControllers();
  await h.startAgent(NODE);
}, 60_000);

afterAll(() => closePoolHarness(h, poolDir));

const run = promisify(execFile);
const capacityOf = (cls: string, node = NODE) => h.app.store.tryGet('CSIStorageCapacity', 'kube-system', poolCapacityName(node, cls));
const classOn = (name: string, poolPath: string) => h.app.store.create(btrfsClass(name, poolPath, { volumeBindingMode: 'WaitForFirstConsumer' }));

const claim = (name: string) => h.app.store.tryGet('PersistentVolumeClaim', 'apps', name);
const volume = (name: string) => h.app.store.tryGet('PersistentVolume', undefined, name);

describe.skipIf(skip)('stowage.io/btrfs on a real pool', () => {
  it('creates a limited subvolume, refuses writes past it, expands online, deletes it all', async () => {
    await h.app.store.create({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'data', namespace: 'apps', annotations: { [annSelectedNode]: NODE } },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '40Mi' } }, storageClassName: 'pooled' },
    });
    const pv = await boundVolume(h.app, 'data');
    const subvol = path.posix.join(pool, pv.metadata.name!);
    expect(pv.spec?.local?.path).toBe(subvol);
    expect(pv.spec?.capacity?.storage).toBe('40Mi');
    expect(pv.spec?.nodeAffinity?.required?.nodeSelectorTerms?.[0]?.matchExpressions?.[0]?.values).toEqual([NODE]);
    expect(await subvolumes(pool)).toEqual([pv.metadata.name]);
    const limit = (await qgroups(pool)).find((q) => q.path === pv.metadata.name);
    expect(limit?.maxReferencedBytes).toBe(BigInt(40 * MiB));
    const total = BigInt((await capacityOf('pooled'))!.metadata.annotations![annPoolTotal]);
    await waitFor('the pool counts the volume as allocated', async () => (await capacityOf('pooled'))?.metadata.annotations?.[annPoolAllocated] === String(40 * MiB));
    expect(total).toBeGreaterThan(400n * BigInt(MiB));

    // Up to the limit, then "Disk quota exceeded".
    const first = await writeUntil(path.join(subvol, 'a'), 30 * MiB);
    expect(first).toEqual({ written: 30 * MiB });
    // Usage from the qgroup (counted at the filesystem's next commit) onto the PV.
    await run('btrfs', ['filesystem', 'sync', pool]);
    const used = await waitFor('used bytes on the PV', async () => {
      const n = (await volume(pv.metadata.name!))?.metadata.annotations?.[annUsedBytes];
      return n !== undefined && BigInt(n) >= BigInt(30 * MiB) ? BigInt(n) : undefined;
    }, 20_000);
    expect(used).toBeLessThan(BigInt(31 * MiB));
    const past = await writeUntil(path.join(subvol, 'b'), 30 * MiB);
    expect(past.code).toBe('EDQUOT');
    expect(past.written).toBeLessThan(11 * MiB);

    // Expansion raises the limit online; the claim's capacity follows.
    const c = (await claim('data'))!;
    c.spec!.resources!.requests!.storage = '80Mi';
    await h.app.store.update(c);
    await waitFor('claim capacity 80Mi', async () => (await claim('data'))?.status?.capacity?.storage === '80Mi', 30_000);
    expect((await qgroups(pool)).find((q) => q.path === pv.metadata.name)?.maxReferencedBytes).toBe(BigInt(80 * MiB));
    expect(await writeUntil(path.join(subvol, 'c'), 20 * MiB)).toEqual({ written: 20 * MiB });

    // Deletion: PV gone, subvolume gone, qgroup gone, intent record gone.
    await h.app.store.delete('PersistentVolumeClaim', 'apps', 'data');
    await waitFor('PV deleted', async () => !(await volume(pv.metadata.name!)), 30_000);
    expect(await subvolumes(pool)).toEqual([]);
    expect(await fs.stat(subvol).catch(() => undefined)).toBeUndefined();
    expect((await qgroups(pool)).filter((q) => q.path === pv.metadata.name || q.path === '<stale>')).toEqual([]);
    expect(await new AssetStore(h.app.store).list({ plugin: btrfsProvisioner })).toEqual([]);
    await waitFor('the pool has its room back', async () => (await capacityOf('pooled'))?.metadata.annotations?.[annPoolAllocated] === '0');
  }, 90_000);

  it('reports every pool of the node: its room, or why the path cannot serve', async () => {
    const plain = path.join(poolDir, 'plain');
    await fs.mkdir(plain);
    const noQuotas = await makePool(poolDir, 'pool-no-quotas', 256);
    await run('btrfs', ['quota', 'disable', noQuotas]);
    await classOn('on-plain-dir', plain);
    await classOn('on-missing-path', path.join(poolDir, 'missing'));
    await classOn('without-quotas', noQuotas);
    const problem = async (cls: string) => waitFor(`the pool of ${cls} reported`, async () => (await capacityOf(cls))?.metadata.annotations?.[annPoolProblem]);
    expect(await problem('on-plain-dir')).toMatch(/^the path is on a \S+ filesystem, not btrfs$/);
    expect(await problem('on-missing-path')).toBe('the path does not exist on this node');
    expect(await problem('without-quotas')).toMatch(/^quotas are not enabled on this btrfs filesystem/);
    for (const cls of ['on-plain-dir', 'on-missing-path', 'without-quotas']) expect((await capacityOf(cls))!.capacity).toBe('0');
    const usable = (await capacityOf('pooled'))!;
    expect(usable.metadata.annotations?.[annPoolProblem]).toBeUndefined();
    expect(usable.storageClassName).toBe('pooled');
    expect(usable.nodeTopology).toEqual({ matchLabels: { 'kubernetes.io/hostname': NODE } });
  }, 60_000);
});

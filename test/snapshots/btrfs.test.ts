// Snapshots, restores and clones on a real btrfs pool (a file-backed loop device), through
// the API's store, the controllers and a node agent over HTTPS: the snapshot is a read-only
// subvolume `<pool>/snapcontent-<uid>` made by the agent; a restore is a writable snapshot
// of it with the new claim's qgroup limit and reads back the snapshot's data exactly; a
// clone reads back the claim's data now; deleting the snapshot removes its subvolume.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { btrfsProvisioner } from '../../server/domain/well-known/provisioners';
import type { PersistentVolume } from '../../server/resources/persistent-volume/schema';
import { AssetStore } from '../../server/store/provisioned-assets';
import { claim, waitFor, type ClaimOpts } from '../controllers/fixtures';
import { boundVolume, type LocalHarness } from '../local-volumes/harness';
import { btrfsClass, closePoolHarness, makePool, openPoolHarness, qgroups, skipWithoutPools, subvolumes } from '../pools/fixture';
import { changeData, readTree, writeFirst } from './tree';

const skip = skipWithoutPools('btrfs snapshot tests');

const NODE = 'node-a';
const MiB = 1 << 20;
const NS = 'apps';
let h: LocalHarness;
let pool: string;
let poolDir: string;

beforeAll(async () => {
  if (skip) return;
  ({ h, dir: poolDir } = await openPoolHarness('stowage-snap-pool-'));
  pool = await makePool(poolDir, 'pool');
  await h.app.store.create(btrfsClass('pooled', pool));
  await h.app.store.create({
    apiVersion: 'snapshot.storage.k8s.io/v1',
    kind: 'VolumeSnapshotClass',
    metadata: { name: 'pooled-snap', annotations: { 'snapshot.storage.kubernetes.io/is-default-class': 'true' } },
    driver: btrfsProvisioner,
    deletionPolicy: 'Delete',
  });
  await h.startControllers();
  await h.startAgent(NODE);
}, 60_000);

afterAll(() => closePoolHarness(h, poolDir));

async function claimBound(name: string, size: string, dataSource?: ClaimOpts['dataSource']): Promise<PersistentVolume> {
  await h.app.store.create(claim(NS, name, size, { storageClassName: 'pooled', dataSource }));
  return boundVolume(h.app, name, 30_000, NS);
}

const limitOf = async (name: string) => (await qgroups(pool)).find((q) => q.path === name)?.maxReferencedBytes;

describe.skipIf(skip)('stowage.io/btrfs snapshots', () => {
  it('snapshot (read-only subvolume), restore (writable snapshot with its own limit), clone; deletion removes the snapshot', async () => {
    const source = await claimBound('data', '40Mi');
    const dir = source.spec!.local!.path!;
    await writeFirst(dir);
    const before = await readTree(dir);

    await h.app.store.create({ apiVersion: 'snapshot.storage.k8s.io/v1', kind: 'VolumeSnapshot', metadata: { name: 'snap', namespace: NS }, spec: { source: { persistentVolumeClaimName: 'data' } } });
    const vs = await waitFor('snapshot ready', async () => {
      const s = (await h.app.store.tryGet('VolumeSnapshot', NS, 'snap'));
      return s?.status?.readyToUse ? s : undefined;
    }, 30_000);
    const content = `snapcontent-${vs.metadata.uid}`;
    expect(vs.status).toMatchObject({ boundVolumeSnapshotContentName: content, restoreSize: '40Mi' });
    expect(vs.spec?.volumeSnapshotClassName).toBe('pooled-snap');
    const snapDir = path.join(pool, content);
    expect((await subvolumes(pool)).sort()).toEqual([source.metadata.name, content].sort());
    await expect(fs.writeFile(path.join(snapDir, 'x'), 'x')).rejects.toMatchObject({ code: 'EROFS' });
    expect(await readTree(snapDir)).toEqual(before);

    await changeData(dir);
    const after = await readTree(dir);

    const restored = await claimBound('restored', '60Mi', { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 'snap' });
    expect(restored.spec?.local?.path).toBe(path.join(pool, restored.metadata.name!));
    expect(await readTree(restored.spec!.local!.path!)).toEqual(before);
    expect(await limitOf(restored.metadata.name!)).toBe(BigInt(60 * MiB));
    await fs.writeFile(path.join(restored.spec!.local!.path!, 'written-after'), 'ok');

    const clone = await claimBound('clone', '40Mi', { kind: 'PersistentVolumeClaim', name: 'data' });
    expect(await readTree(clone.spec!.local!.path!)).toEqual(after);
    expect(await limitOf(clone.metadata.name!)).toBe(BigInt(40 * MiB));

    await h.app.store.delete('VolumeSnapshot', NS, 'snap');
    await waitFor('snapshot subvolume gone', async () => !(await subvolumes(pool)).includes(content), 30_000);
    await waitFor('content gone', async () => !(await h.app.store.tryGet('VolumeSnapshotContent', undefined, content)));
    expect((await qgroups(pool)).some((q) => q.path === content)).toBe(false);
    expect(await new AssetStore(h.app.store).get(btrfsProvisioner, content)).toBeUndefined();
    expect(await readTree(restored.spec!.local!.path!)).toMatchObject(before);
  }, 120_000);
});

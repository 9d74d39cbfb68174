// kill -9 in the middle of snapshots and restores: the controllers (host-path copies; btrfs)
// and the node agent (btrfs) run as processes of their own and are killed while an intent
// record says a snapshot or a restore is being made; after restarts every snapshot is
// ready, every restored claim Bound with the snapshot's data, and nothing is left over: no
// partial copy, no snapshot or subvolume without its object, no intent record, after
// deletion nothing but the source volume.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { btrfsProvisioner, hostPathProvisioner } from '../../server/domain/well-known/provisioners';
import { testClass } from '../../server/provisioners/testing';
import { AssetStore } from '../../server/store/provisioned-assets';
import { claim, waitFor } from '../controllers/fixtures';
import { boundVolume as bound, type LocalHarness } from '../local-volumes/harness';
import { midway, nodeProcesses, type NodeProcesses, type Which } from '../pools/crash/node-processes';
import { btrfsClass, closePoolHarness, makePool, openPoolHarness, qgroups, skipWithoutPools, subvolumes } from '../pools/fixture';
import { readTree, writeFirst } from './tree';

const skip = skipWithoutPools('btrfs snapshot restart test');

const NODE = 'node-a';
const NS = 'apps';
let h: LocalHarness;
let dir: string;
let base: string;
let pool: string;
let assets: AssetStore;
let procs: NodeProcesses;

const snapshotClass = (name: string, driver: string) =>
  h.app.store.create({ apiVersion: 'snapshot.storage.k8s.io/v1', kind: 'VolumeSnapshotClass', metadata: { name }, driver, deletionPolicy: 'Delete' });

beforeAll(async () => {
  ({ h, dir } = await openPoolHarness('stowage-snap-restart-'));
  assets = new AssetStore(h.app.store);
  base = path.join(dir, 'dirs');
  procs = await nodeProcesses(h, NODE);
  await h.app.store.create(testClass(hostPathProvisioner, { basePath: base }, { metadata: { name: 'dirs' } }));
  await snapshotClass('dirs-snap', hostPathProvisioner);
  if (!skip) {
    pool = await makePool(dir, 'pool');
    await h.app.store.create(btrfsClass('pooled', pool));
    await snapshotClass('pooled-snap', btrfsProvisioner);
    await procs.start('agent');
  }
  await procs.start('controllers');
}, 120_000);

afterAll(async () => {
  await procs?.killAll();
  await closePoolHarness(h, dir);
});

const claimOf = (name: string) => h.app.store.tryGet('PersistentVolumeClaim', NS, name);
const snapOf = (name: string) => h.app.store.tryGet('VolumeSnapshot', NS, name);
const createClaim = (name: string, cls: string, size: string, snapshot?: string) =>
  h.app.store.create(claim(NS, name, size, { storageClassName: cls, dataSource: snapshot ? { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: snapshot } : undefined }));
const createSnapshot = (name: string, claim: string, cls: string) =>
  h.app.store.create({ apiVersion: 'snapshot.storage.k8s.io/v1', kind: 'VolumeSnapshot', metadata: { name, namespace: NS }, spec: { source: { persistentVolumeClaimName: claim }, volumeSnapshotClassName: cls } });
const boundVolume = (name: string) => bound(h.app, name, 90_000, NS);

const allReady = async (names: string[]) => (await Promise.all(names.map(snapOf))).every((s) => s?.status?.readyToUse === true);
const allBound = async (names: string[]) => (await Promise.all(names.map(claimOf))).every((c) => c?.status?.phase === 'Bound');
const records = (plugin: string) => assets.list({ plugin });

/** A tree big enough for a copy to take a while: 2,000 files of 32 KiB in 20 directories. */
async function writeBigTree(root: string): Promise<void> {
  const block = Buffer.alloc(32 << 10, 3);
  for (let d = 0; d < 20; d++) {
    await fs.mkdir(path.join(root, `d${d}`));
    await Promise.all(Array.from({ length: 100 }, (_, f) => fs.writeFile(path.join(root, `d${d}`, `f${f}`), block)));
  }
  await writeFirst(root);
}

describe('host-path: kill -9 of the controllers while copying', () => {
  it('a snapshot and a restore cut short are finished after restart; no partial copy, nothing left after deletion', async () => {
    await createClaim('big', 'dirs', '1Gi');
    const source = await boundVolume('big');
    await writeBigTree(source.spec!.hostPath!.path!);
    const before = await readTree(source.spec!.hostPath!.path!);
    const creating = async () => (await records(hostPathProvisioner)).filter((r) => r.state === 'creating');

    await createSnapshot('hs', 'big', 'dirs-snap');
    const snapInFlight = await midway(creating, () => allReady(['hs']));
    await procs.crash(['controllers']);
    await waitFor('snapshot ready after the restart', () => allReady(['hs']), 90_000);

    await createClaim('big-restored', 'dirs', '1Gi', 'hs');
    const restoreInFlight = await midway(creating, () => allBound(['big-restored']));
    await procs.crash(['controllers']);
    const restored = await boundVolume('big-restored');
    console.log(`host-path copies in flight at the kills: snapshot ${snapInFlight}, restore ${restoreInFlight} (-1: it had finished)`);
    expect(await readTree(restored.spec!.hostPath!.path!)).toEqual(before);

    const vs = (await snapOf('hs'))!;
    const entries = (await fs.readdir(base)).sort();
    expect(entries).toEqual(['.snapshots', path.basename(source.spec!.hostPath!.path!), path.basename(restored.spec!.hostPath!.path!)].sort());
    expect(await fs.readdir(path.join(base, '.snapshots'))).toEqual([`snapcontent-${vs.metadata.uid}`]);
    expect((await records(hostPathProvisioner)).map((r) => `${r.pvName} ${r.state}`).sort()).toEqual([`${source.metadata.name} created`, `${restored.metadata.name} created`, `snapcontent-${vs.metadata.uid} created`].sort());

    await h.app.store.delete('VolumeSnapshot', NS, 'hs');
    await h.app.store.delete('PersistentVolumeClaim', NS, 'big-restored');
    await waitFor('snapshot and restored volume gone', async () => (await records(hostPathProvisioner)).length === 1, 60_000);
    expect(await fs.readdir(path.join(base, '.snapshots'))).toEqual([]);
    expect(await fs.readdir(base)).toEqual(expect.arrayContaining([path.basename(source.spec!.hostPath!.path!)]));
    expect((await fs.readdir(base)).filter((e) => e !== '.snapshots')).toHaveLength(1);
  }, 300_000);
});

describe.skipIf(skip)('btrfs: kill -9 of the agent and the controllers mid-snapshot and mid-restore', () => {
  it('9 snapshots and 9 restores through crashes: all ready, all Bound with the data; after deletion only the source subvolume', async () => {
    await createClaim('pdata', 'pooled', '40Mi');
    const source = await boundVolume('pdata');
    await writeFirst(source.spec!.local!.path!);
    const before = await readTree(source.spec!.local!.path!);
    const kills: Which[][] = [['agent'], ['controllers'], ['agent', 'controllers']];
    const creating = async (kind?: string) => (await records(btrfsProvisioner)).filter((r) => r.state === 'creating' && (kind === undefined || r.details.kind === kind));
    const snaps = Array.from({ length: 9 }, (_, i) => `ps${i}`);
    const inFlight: number[] = [];
    for (const [i, k] of kills.entries()) {
      const wave = snaps.slice(i * 3, i * 3 + 3);
      for (const s of wave) await createSnapshot(s, 'pdata', 'pooled-snap');
      inFlight.push(await midway(() => creating('snapshot'), () => allReady(wave)));
      await procs.crash(k);
    }
    await waitFor('every snapshot ready', () => allReady(snaps), 90_000);

    const restores = snaps.map((s) => `${s}-restored`);
    for (const [i, k] of kills.entries()) {
      const wave = restores.slice(i * 3, i * 3 + 3);
      for (const [j, r] of wave.entries()) await createClaim(r, 'pooled', '40Mi', snaps[i * 3 + j]);
      inFlight.push(await midway(() => creating(), () => allBound(wave)));
      await procs.crash(k);
    }
    await waitFor('every restore Bound', () => allBound(restores), 90_000);
    console.log(`btrfs work in flight at each kill: ${inFlight.join(', ')} (-1: the wave had finished)`);
    const volumes = await Promise.all(restores.map((r) => boundVolume(r)));
    for (const v of volumes) expect(await readTree(v.spec!.local!.path!)).toEqual(before);
    const contents = await Promise.all(snaps.map(async (s) => `snapcontent-${(await snapOf(s))!.metadata.uid}`));
    expect((await subvolumes(pool)).sort()).toEqual([source.metadata.name!, ...contents, ...volumes.map((v) => v.metadata.name!)].sort());

    for (const [i, k] of kills.entries()) {
      for (const s of snaps.slice(i * 3, i * 3 + 3)) await h.app.store.delete('VolumeSnapshot', NS, s);
      for (const r of restores.slice(i * 3, i * 3 + 3)) await h.app.store.delete('PersistentVolumeClaim', NS, r);
      await midway(async () => (await records(btrfsProvisioner)).filter((r) => r.state === 'deleting'), async () => (await records(btrfsProvisioner)).length === 1);
      await procs.crash(k);
    }
    await waitFor('only the source left', async () => (await records(btrfsProvisioner)).length === 1 && (await subvolumes(pool)).length === 1, 120_000);
    expect(await subvolumes(pool)).toEqual([source.metadata.name]);
    expect((await qgroups(pool)).map((q) => q.path).filter((p) => p !== undefined && p !== '<toplevel>')).toEqual([source.metadata.name]);
  }, 480_000);
});

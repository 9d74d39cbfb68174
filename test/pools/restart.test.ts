// kill -9 of the agent and of the controllers in the middle of 20 creates and 20 deletes on
// a real btrfs pool: after restarts, every claim is Bound to a PV whose subvolume exists with
// its limit, no subvolume is without a PV, and after the deletes nothing is left (no
// subvolume, no qgroup, no intent record, no PV). Agent and controllers run as processes of
// their own (test/pools/crash/); the API server and Postgres stay up.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { btrfsProvisioner } from '../../server/domain/well-known/provisioners';
import { AssetStore, type AssetState } from '../../server/store/provisioned-assets';
import { waitFor } from '../controllers/fixtures';
import type { LocalHarness } from '../local-volumes/harness';
import { midway as inFlightOr, nodeProcesses, type NodeProcesses, type Which } from './crash/node-processes';
import { btrfsClass, closePoolHarness, makePool, openPoolHarness, qgroups, skipWithoutPools, subvolumes } from './fixture';

const skip = skipWithoutPools('btrfs restart test');

const NODE = 'node-a';
const MiB = 1 << 20;
let h: LocalHarness;
let poolDir: string;
let pool: string;
let assets: AssetStore;
let procs: NodeProcesses | undefined;

beforeAll(async () => {
  if (skip) return;
  ({ h, dir: poolDir } = await openPoolHarness('stowage-pools-restart-'));
  assets = new AssetStore(h.app.store);
  pool = await makePool(poolDir, 'pool');
  procs = await nodeProcesses(h, NODE);
  await h.app.store.create(btrfsClass('pooled', pool, { allowVolumeExpansion: true }));
  await Promise.all([procs.start('agent'), procs.start('controllers')]);
}, 120_000);

afterAll(async () => {
  await procs?.killAll();
  await closePoolHarness(h, poolDir);
});

const names = Array.from({ length: 20 }, (_, i) => `c${String(i).padStart(2, '0')}`);
const claims = async () => ((await h.app.store.list('PersistentVolumeClaim', { namespace: 'apps' })).items);
const volumes = async () => ((await h.app.store.list('PersistentVolume')).items).filter((v) => v.spec?.storageClassName === 'pooled');
const records = async (state?: AssetState) => assets.list({ plugin: btrfsProvisioner, ...(state ? { states: [state] } : {}) });

/** Waits until the agent or the controllers are in the middle of it (a record in `state`), or it is all done; returns how many were in flight. */
const midway = (state: AssetState, done: () => Promise<boolean>) => inFlightOr(() => records(state), done, `work in flight (${state})`);

async function allBound(): Promise<boolean> {
  const cs = await claims();
  return cs.length === names.length && cs.every((c) => c.status?.phase === 'Bound');
}

describe.skipIf(skip)('kill -9 during creates and deletes on a btrfs pool', () => {
  it('20 creates through three crashes: each claim Bound, each PV with its subvolume and limit, no other subvolume', async () => {
    const waves = [names.slice(0, 7), names.slice(7, 14), names.slice(14)];
    const kills: Which[][] = [['agent'], ['controllers'], ['agent', 'controllers']];
    const inFlight: number[] = [];
    for (const [i, wave] of waves.entries()) {
      for (const name of wave) {
        await h.app.store.create({
          apiVersion: 'v1',
          kind: 'PersistentVolumeClaim',
          metadata: { name, namespace: 'apps' },
          spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '8Mi' } }, storageClassName: 'pooled' },
        });
      }
      inFlight.push(await midway('creating', allBound));
      await procs!.crash(kills[i]);
    }
    console.log(`creates in flight at each kill: ${inFlight.join(', ')} (-1: the wave had finished)`);
    await waitFor('all 20 claims Bound', allBound, 90_000);
    const pvs = await volumes();
    expect(pvs).toHaveLength(20);
    expect((await subvolumes(pool)).sort()).toEqual(pvs.map((v) => v.metadata.name).sort());
    const limits = new Map((await qgroups(pool)).map((q) => [q.path, q.maxReferencedBytes]));
    for (const pv of pvs) {
      expect(pv.spec?.local?.path).toBe(`${pool}/${pv.metadata.name}`);
      expect(limits.get(pv.metadata.name)).toBe(BigInt(8 * MiB));
    }
  }, 240_000);

  it('20 deletes through three crashes: no subvolume, qgroup, intent record or PV left', async () => {
    const waves = [names.slice(0, 7), names.slice(7, 14), names.slice(14)];
    const kills: Which[][] = [['controllers'], ['agent'], ['agent', 'controllers']];
    const inFlight: number[] = [];
    const allGone = async () => (await volumes()).length === 0 && (await records()).length === 0;
    for (const [i, wave] of waves.entries()) {
      for (const name of wave) await h.app.store.delete('PersistentVolumeClaim', 'apps', name);
      inFlight.push(await midway('deleting', allGone));
      await procs!.crash(kills[i]);
    }
    console.log(`deletes in flight at each kill: ${inFlight.join(', ')} (-1: the wave had finished)`);
    await waitFor('every PV and intent record gone', allGone, 120_000);
    expect(await subvolumes(pool)).toEqual([]);
    expect((await qgroups(pool)).map((q) => q.id)).toEqual(['5']);
    expect(await claims()).toEqual([]);
  }, 240_000);
});

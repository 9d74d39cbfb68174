// Crash recovery: whatever state a stop left between an asset and its PV, a restart adopts
// the asset (its PV exists, or its claim still wants it) or removes it. Nothing leaks.
import fs from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { buildVolume } from '../../server/controllers/provisioner/volume';
import { provisionOptionsFor } from '../../server/provisioners/plugin';
import { rawQuery } from '../db';
import { exists, NS, openHarness, waitFor, type Harness } from './harness';
import { hostPathProvisioner } from '../../server/domain/well-known/provisioners';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const dirsUnder = async (base: string) => ((await exists(base)) ? await fs.readdir(base) : []);

/** Starts with a store that refuses PVs, and stops ("crashes") while the save is retried. */
async function crashBetweenAssetAndPv(claimName: string): Promise<Harness> {
  const harness = await openHarness();
  await rawQuery(
    harness.ts.url,
    `CREATE FUNCTION refuse_pv() RETURNS trigger AS $$ BEGIN
       IF NEW.kind = 'PersistentVolume' THEN RAISE EXCEPTION 'injected: no PVs today'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`,
  );
  await rawQuery(harness.ts.url, 'CREATE TRIGGER refuse_pv BEFORE INSERT ON objects FOR EACH ROW EXECUTE FUNCTION refuse_pv()');
  await harness.start({ saveAttempts: 1_000_000, saveIntervalMs: 20 });
  await harness.createClass('hp', hostPathProvisioner, { basePath: harness.base });
  await harness.createClaim(claimName, 'hp');
  await waitFor('the asset to exist without a PV', async () => (await harness.assets.list({ states: ['created'] })).length === 1);
  await harness.stop();
  await rawQuery(harness.ts.url, 'DROP TRIGGER refuse_pv ON objects');
  expect(await dirsUnder(harness.base)).toHaveLength(1);
  expect((await harness.ts.store.list('PersistentVolume')).items).toEqual([]);
  return harness;
}

describe('restart after a crash between asset and PV', () => {
  it('the claim still waits: the restarted provisioner adopts the same asset for it', async () => {
    h = await crashBetweenAssetAndPv('c1');
    const [dir] = await dirsUnder(h.base);
    await h.start();
    const { volume } = await h.waitBound('c1');
    expect(volume.spec!.hostPath!.path!.endsWith(dir)).toBe(true);
    expect(await dirsUnder(h.base)).toEqual([dir]);
    const [record] = await h.assets.list();
    expect(record).toMatchObject({ state: 'created', details: { pvUid: volume.metadata.uid } });
  });

  it('the claim was deleted meanwhile: the restart removes the asset', async () => {
    h = await crashBetweenAssetAndPv('c2');
    await h.ts.store.delete('PersistentVolumeClaim', NS, 'c2');
    await h.start();
    await waitFor('the orphan to be removed', async () => (await h!.assets.count()) === 0);
    expect(await dirsUnder(h.base)).toEqual([]);
    expect((await h.ts.store.list('PersistentVolume')).items).toEqual([]);
  });
});

describe('recovery settles every kind of record left behind', () => {
  it('a half-made asset (record still "creating") of a deleted claim is removed', async () => {
    h = await openHarness();
    const sc = await h.createClass('hp', hostPathProvisioner, { basePath: h.base });
    const claim = await h.createClaim('c3', 'hp');
    const plugin = h.deps().plugins.get(hostPathProvisioner)!;
    h.os.failNext('mkdir', 1, (a) => String(a[0]).includes('pvc-'));
    h.os.failNext('rm', 1);
    await plugin.provision(provisionOptionsFor(claim, sc));
    expect((await h.assets.list())[0]?.state).toBe('creating');
    await h.ts.store.delete('PersistentVolumeClaim', NS, 'c3');
    await h.start();
    await waitFor('the record to be settled', async () => (await h!.assets.count()) === 0);
    expect(await dirsUnder(h.base)).toEqual([]);
  });

  it('a PV saved but not yet marked as adopting its asset is adopted; the claim binds', async () => {
    h = await openHarness();
    const sc = await h.createClass('hp', hostPathProvisioner, { basePath: h.base });
    const claim = await h.createClaim('c4', 'hp');
    const plugin = h.deps().plugins.get(hostPathProvisioner)!;
    const options = provisionOptionsFor(claim, sc);
    const { volume } = await plugin.provision(options);
    const pv = await h.ts.store.create(buildVolume(options.pvName, claim, sc, plugin.name, volume!));
    expect((await h.assets.list())[0]?.details.pvUid).toBeUndefined();
    await h.start();
    await h.waitBound('c4');
    await waitFor('the record to be adopted', async () => (await h!.assets.list())[0]?.details.pvUid === pv.metadata.uid);
    expect(await dirsUnder(h.base)).toHaveLength(1);
  });

  it('a removal that stopped half way ("deleting", PV gone) is finished', async () => {
    h = await openHarness();
    const sc = await h.createClass('hp', hostPathProvisioner, { basePath: h.base });
    const claim = await h.createClaim('c5', 'hp');
    const plugin = h.deps().plugins.get(hostPathProvisioner)!;
    await plugin.provision(provisionOptionsFor(claim, sc));
    await h.assets.markDeleting((await h.assets.list())[0]);
    await h.start();
    // Finished = the record in state "deleting" is gone (the claim's fresh volume may already have a new one).
    await waitFor('the removal to be finished', async () => !(await h!.assets.list()).some((r) => r.state === 'deleting'));
    // The claim itself still waits, and gets a fresh volume.
    await h.waitBound('c5');
    expect(await dirsUnder(h.base)).toHaveLength(1);
  });
});

// Every way provisioning and deletion can fail, on a real Postgres and real directories:
// nothing may leak, the user hears about it in Events, and the work is retried.
import fs from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createRealOs, type HostOs } from '../../server/provisioners/os';
import { rawQuery } from '../db';
import { reclaimVolume } from '../../server/controllers/deleter/deleter';
import { exists, NODE, NS, openHarness, testContext, waitFor, type Harness } from './harness';
import { hostPathProvisioner } from '../../server/domain/well-known/provisioners';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const dirsUnder = async (base: string) => ((await exists(base)) ? await fs.readdir(base) : []);

describe('provisioning failures', () => {
  it('a class whose parameters could never provision is refused when it is created, the parameter named', async () => {
    h = await openHarness();
    const err = await h.createClass('bad', hostPathProvisioner, { basePath: '/tmp/never-used', size: '10' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'Invalid', details: { causes: [expect.objectContaining({ field: 'parameters.size' })] } });
    const etc = await h.createClass('etc', hostPathProvisioner, { basePath: '/etc/stowage' }).catch((e: unknown) => e);
    expect(etc).toMatchObject({ code: 'Invalid', details: { causes: [expect.objectContaining({ field: 'parameters.basePath' })] } });
    expect((await h.ts.store.list('StorageClass')).items).toEqual([]);
  });

  it('a plugin error (a claim it cannot serve) gives ProvisioningFailed, retries, and makes no asset at all', async () => {
    h = await openHarness();
    await h.start();
    await h.createClass('dirs', hostPathProvisioner, { basePath: '/tmp/never-used' });
    await h.createClaim('c1', 'dirs', { spec: { volumeMode: 'Block' } });
    const failed = await waitFor('a repeated ProvisioningFailed event', async () => {
      const [e] = await h!.events('c1', 'ProvisioningFailed');
      return e && e.count! >= 2 ? e : undefined;
    });
    expect(failed.message).toMatch(/^Failed to provision volume with StorageClass "dirs": stowage\.io\/host-path makes directories; it cannot provision a volume with volumeMode Block/);
    expect(failed.type).toBe('Warning');
    expect((await h.claim('c1'))?.status?.phase).toBe('Pending');
    expect(await h.assets.count()).toBe(0);
    expect((await h.ts.store.list('PersistentVolume')).items).toEqual([]);
    expect(await exists('/tmp/never-used')).toBe(false);
  });

  it('a base path through a symlink is refused on the node, and nothing is made behind it', async () => {
    h = await openHarness();
    await h.start();
    const real = `${h.base}-real`;
    await fs.mkdir(real, { recursive: true });
    await fs.symlink(real, `${h.base}-link`);
    await h.createClass('linked', hostPathProvisioner, { basePath: `${h.base}-link/volumes` });
    await h.createClaim('c3', 'linked');
    const failed = await waitFor('a ProvisioningFailed event', async () => (await h!.events('c3', 'ProvisioningFailed'))[0]);
    expect(failed.message).toMatch(/must not be or pass through a symlink/);
    expect(await fs.readdir(real)).toEqual([]);
    expect(await h.assets.count()).toBe(0);
  });

  it('an OS error is reported and retried until provisioning succeeds', async () => {
    h = await openHarness();
    h.os.failNext('mkdir', 2, (args) => String(args[0]).includes('pvc-'));
    await h.start();
    await h.createClass('hp', hostPathProvisioner, { basePath: h.base });
    await h.createClaim('c2', 'hp');
    const { volume } = await h.waitBound('c2');
    const [failed] = await h.events('c2', 'ProvisioningFailed');
    expect(failed.message).toMatch(/^Failed to provision volume with StorageClass "hp": injected failure: mkdir/);
    expect(failed.count).toBe(2);
    expect(await dirsUnder(h.base)).toEqual([volume.spec!.hostPath!.path!.split('/').pop()]);
    expect(await h.assets.count()).toBe(1);
  });

  it('when the PV cannot be saved, the asset is deleted; once the store works again the claim is provisioned', async () => {
    h = await openHarness();
    const url = h.ts.url;
    await rawQuery(
      url,
      `CREATE FUNCTION refuse_pv() RETURNS trigger AS $$ BEGIN
         IF NEW.kind = 'PersistentVolume' THEN RAISE EXCEPTION 'injected: the store refuses PersistentVolumes'; END IF;
         RETURN NEW; END $$ LANGUAGE plpgsql`,
    );
    await rawQuery(url, 'CREATE TRIGGER refuse_pv BEFORE INSERT ON objects FOR EACH ROW EXECUTE FUNCTION refuse_pv()');
    // A long backoff: after the first round nothing retries until the claim changes.
    await h.start({ retryBaseMs: 60_000, retryMaxMs: 60_000 });
    await h.createClass('hp', hostPathProvisioner, { basePath: h.base });
    const claim = await h.createClaim('c3', 'hp');
    const [failed] = await waitFor('the save failure event', async () => {
      const ev = await h!.events('c3', 'ProvisioningFailed');
      return ev.length > 0 ? ev : undefined;
    });
    expect(failed.message).toMatch(
      "Error creating provisioned PV object for claim team-a/c3: injected: the store refuses PersistentVolumes. Deleting the volume.",
    );
    // The asset of every attempt is removed. (A claim change during an attempt queues one
    // more attempt right after it, as level-triggered controllers do; it ends the same way.)
    await waitFor('the unsaved asset to be removed', async () => (await h!.assets.count()) === 0 && (await dirsUnder(h!.base)).length === 0);
    expect(await h.volume(`pvc-${claim.metadata.uid}`)).toBeUndefined();

    await rawQuery(url, 'DROP TRIGGER refuse_pv ON objects');
    const c = (await h.claim('c3'))!;
    await h.ts.store.update({ ...c, metadata: { ...c.metadata, labels: { retry: 'now' } } });
    const { volume } = await h.waitBound('c3');
    expect(volume.metadata.name).toBe(`pvc-${claim.metadata.uid}`);
    expect(await dirsUnder(h.base)).toHaveLength(1);
  });

  it('a claim deleted while its volume is being made leaves nothing behind', async () => {
    const real = createRealOs(NODE);
    let deleted = false;
    let harness: Harness | undefined;
    const inner: HostOs = {
      ...real,
      async mkdir(p, mode) {
        if (p.includes('pvc-') && !deleted) {
          deleted = true;
          await harness!.ts.store.delete('PersistentVolumeClaim', NS, 'c4');
        }
        return real.mkdir(p, mode);
      },
    };
    h = harness = await openHarness(inner);
    await h.start();
    await h.createClass('hp', hostPathProvisioner, { basePath: h.base });
    const claim = await h.createClaim('c4', 'hp');
    await waitFor('the claim to be gone and its asset removed', async () => deleted && (await h!.assets.count()) === 0 && (await h!.claim('c4')) === undefined);
    expect(await dirsUnder(h.base)).toEqual([]);
    expect(await h.volume(`pvc-${claim.metadata.uid}`)).toBeUndefined();
  });
});

describe('deletion failures', () => {
  it('a failed delete marks the PV Failed with the message, records VolumeFailedDelete, and is retried', async () => {
    h = await openHarness();
    await h.start();
    await h.createClass('hp', hostPathProvisioner, { basePath: h.base });
    await h.createClaim('c5', 'hp');
    const { volume } = await h.waitBound('c5');
    const name = volume.metadata.name!;
    h.os.failNext('rm', 2, (args) => String(args[0]).includes('pvc-'));
    await h.ts.store.delete('PersistentVolumeClaim', NS, 'c5');
    await waitFor('the PV to be gone', async () => (await h!.volume(name)) === undefined);
    expect(await exists(volume.spec!.hostPath!.path!)).toBe(false);
    expect(await h.assets.count()).toBe(0);
    const [ev] = await h.events(name, 'VolumeFailedDelete');
    expect(ev).toMatchObject({ type: 'Warning', involvedObject: { kind: 'PersistentVolume', name } });
    expect(ev.message).toMatch(/^injected failure: rm/);
    expect(ev.count).toBe(2);
    // The volume went through Failed, with the message, before the retry succeeded.
    const phases = await rawQuery<{ phase: string; message: string | null }>(
      h.ts.url,
      `SELECT object->'status'->>'phase' AS phase, object->'status'->>'message' AS message FROM change_log
        WHERE kind = 'PersistentVolume' AND name = $1 ORDER BY rv`,
      [name],
    );
    const failed = phases.find((p) => p.phase === 'Failed');
    expect(failed?.message).toMatch(/^injected failure: rm/);
    expect(phases.map((p) => p.phase)).toContain('Released');
  });

  it('volumes of an external provisioner are left alone', async () => {
    h = await openHarness();
    const pv = await h.ts.store.create({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'ext-1', annotations: { 'pv.kubernetes.io/provisioned-by': 'example.com/other' } },
      spec: {
        capacity: { storage: '1Gi' },
        accessModes: ['ReadWriteOnce'],
        hostPath: { path: '/nowhere' },
        persistentVolumeReclaimPolicy: 'Delete',
        claimRef: { namespace: NS, name: 'gone', uid: 'no-such-uid' },
      },
    });
    const released = await h.ts.store.update({ ...pv, status: { phase: 'Released' } }, { subresource: 'status' });
    await reclaimVolume(h.deps(), testContext(), 'ext-1');
    expect(await h.volume('ext-1')).toEqual(released);
  });
});

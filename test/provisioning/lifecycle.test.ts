// The happy paths: a claim of an in-tree class gets a real volume that satisfies seed 000,
// is bound by the binder, and, when the claim goes, is reclaimed by its policy.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRealOs } from '../../server/provisioners/os';
import { loopsUnder, mountsUnder } from '../../server/provisioners/testing';
import { exists, NODE, NS, openHarness, waitFor, type Harness } from './harness';
import { hostPathProvisioner, loopProvisioner } from '../../server/domain/well-known/provisioners';

let h: Harness;
beforeAll(async () => {
  h = await openHarness();
  await h.start();
});
afterAll(async () => h?.close());

describe('stowage.io/host-path through the controllers', () => {
  it('provisions a PV as seed 000 requires, the binder binds it, and deleting the claim deletes it all', async () => {
    await h.createClass('hp', hostPathProvisioner, { basePath: h.base });
    const created = await h.createClaim('data', 'hp', {
      size: '1Gi',
      spec: { selector: { matchLabels: { 'kubernetes.io/hostname': NODE } } },
    });
    const { claim, volume } = await h.waitBound('data');
    const uid = created.metadata.uid!;
    expect(volume.metadata.name).toBe(`pvc-${uid}`);
    expect(claim.spec!.volumeName).toBe(`pvc-${uid}`);
    expect(volume.metadata.annotations).toMatchObject({ 'pv.kubernetes.io/provisioned-by': hostPathProvisioner, 'pv.kubernetes.io/bound-by-controller': 'yes' });
    expect(volume.metadata.labels).toEqual({ 'kubernetes.io/hostname': NODE });
    expect(volume.metadata.finalizers).toEqual(['kubernetes.io/pv-protection', 'kubernetes.io/pv-controller']);
    expect(volume.spec).toMatchObject({
      capacity: { storage: '1Gi' },
      accessModes: ['ReadWriteOnce'],
      claimRef: { namespace: NS, name: 'data', uid },
      persistentVolumeReclaimPolicy: 'Delete',
      storageClassName: 'hp',
      volumeMode: 'Filesystem',
      hostPath: { path: path.join(h.base, `pvc-${uid}_${NS}_data`), type: 'Directory' },
    });
    const dir = volume.spec!.hostPath!.path!;
    expect(await exists(dir)).toBe(true);
    expect(JSON.parse(volume.metadata.annotations!['stowage.io/asset'])).toMatchObject({ path: dir, node: NODE });
    expect(await h.events('data', 'ProvisioningSucceeded')).toHaveLength(1);
    expect((await h.assets.get(hostPathProvisioner, volume.metadata.name!))?.details.pvUid).toBe(volume.metadata.uid);

    await fs.writeFile(path.join(dir, 'payload'), 'x');
    await h.ts.store.delete('PersistentVolumeClaim', NS, 'data');
    await waitFor('the PV to be gone', async () => (await h.volume(volume.metadata.name!)) === undefined);
    expect(await exists(dir)).toBe(false);
    expect(await h.assets.count()).toBe(0);
  });

  it('Retain keeps the Released volume with its data; deleting the PV then keeps the data and forgets the record', async () => {
    await h.createClass('keep', hostPathProvisioner, { basePath: h.base }, { reclaimPolicy: 'Retain' });
    await h.createClaim('kept', 'keep');
    const { volume } = await h.waitBound('kept');
    expect(volume.metadata.finalizers).toEqual(['kubernetes.io/pv-protection']);
    expect(volume.spec!.persistentVolumeReclaimPolicy).toBe('Retain');
    await h.ts.store.delete('PersistentVolumeClaim', NS, 'kept');
    await waitFor('the PV to be Released', async () => (await h.volume(volume.metadata.name!))?.status?.phase === 'Released');
    expect(await exists(volume.spec!.hostPath!.path!)).toBe(true);
    await h.ts.store.delete('PersistentVolume', undefined, volume.metadata.name!);
    await waitFor('the PV to be gone', async () => (await h.volume(volume.metadata.name!)) === undefined);
    await waitFor('the record to be released', async () => (await h.assets.get(hostPathProvisioner, volume.metadata.name!)) === undefined);
    expect(await exists(volume.spec!.hostPath!.path!)).toBe(true);
  });

  it('pv-protection keeps a bound PV until its claim lets go of it', async () => {
    await h.createClass('prot', hostPathProvisioner, { basePath: h.base });
    await h.createClaim('held', 'prot');
    const { volume } = await h.waitBound('held');
    const name = volume.metadata.name!;
    const res = await h.ts.store.delete('PersistentVolume', undefined, name);
    expect(res.deleted).toBe(false);
    // Still there, still Bound, while the claim exists (the binder keeps things as they are).
    const later = await waitFor('the deletion to be recorded', async () => {
      const v = await h.volume(name);
      return v?.metadata.deletionTimestamp ? v : undefined;
    });
    expect(later.status!.phase).toBe('Bound');
    expect(later.metadata.finalizers).toContain('kubernetes.io/pv-protection');
    await h.ts.store.delete('PersistentVolumeClaim', NS, 'held');
    await waitFor('the PV to be gone', async () => (await h.volume(name)) === undefined);
    expect(await exists(volume.spec!.hostPath!.path!)).toBe(false);
    expect(await h.assets.count()).toBe(0);
  });

  it('a static PV gets the pv-protection finalizer, and loses it once deleted while unbound', async () => {
    await h.ts.store.create({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'static-1' },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/nowhere' }, storageClassName: 'none' },
    });
    await waitFor('the finalizer', async () => (await h.volume('static-1'))?.metadata.finalizers?.includes('kubernetes.io/pv-protection'));
    await h.ts.store.delete('PersistentVolume', undefined, 'static-1');
    await waitFor('the PV to be gone', async () => (await h.volume('static-1')) === undefined);
  });
});

const loop = await createRealOs().loopSupport();
if (!loop.ok) console.log(`[skip] loop-device provisioning tests: ${loop.reason}`);

describe.skipIf(!loop.ok)('stowage.io/loop through the controllers', () => {
  it('a Filesystem claim gets a mounted, size-limited volume; deleting the claim unmounts and detaches it', async () => {
    await h.createClass('loop', loopProvisioner, { basePath: h.base, fsType: 'ext4' });
    await h.createClaim('disk', 'loop', { size: '8Mi' });
    const { volume } = await h.waitBound('disk');
    const mountpoint = path.join(h.base, 'mounts', volume.metadata.name!);
    expect(volume.spec).toMatchObject({ local: { path: mountpoint }, capacity: { storage: '8Mi' }, volumeMode: 'Filesystem' });
    expect(await mountsUnder(h.dir)).toEqual([mountpoint]);
    await h.ts.store.delete('PersistentVolumeClaim', NS, 'disk');
    await waitFor('the PV to be gone', async () => (await h.volume(volume.metadata.name!)) === undefined);
    expect(await mountsUnder(h.dir)).toEqual([]);
    expect(await loopsUnder(h.dir)).toEqual([]);
    expect(await h.assets.count()).toBe(0);
  });

  it('a Block claim gets the device', async () => {
    await h.createClass('loop-block', loopProvisioner, { basePath: h.base });
    await h.createClaim('raw', 'loop-block', { size: '4Mi', spec: { volumeMode: 'Block' } });
    const { volume } = await h.waitBound('raw');
    expect(volume.spec!.volumeMode).toBe('Block');
    expect(volume.spec!.local!.path).toMatch(/^\/dev\/loop\d+$/);
    await h.ts.store.delete('PersistentVolumeClaim', NS, 'raw');
    await waitFor('the PV to be gone', async () => (await h.volume(volume.metadata.name!)) === undefined);
    expect(await loopsUnder(h.dir)).toEqual([]);
  });
});

// Snapshots, restores and clones of real host-path directories and loop volumes through the
// controllers: write data, snapshot, change the data, restore the snapshot to a new claim
// and read back exactly the snapshot's data; clone the claim and read back its data now;
// upstream's refusals; deleting the snapshot removes its copy and its record.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostPathProvisioner, loopProvisioner } from '../../server/domain/well-known/provisioners';
import { createRealOs } from '../../server/provisioners/os';
import type { PersistentVolume } from '../../server/resources/persistent-volume/schema';
import type { PersistentVolumeClaim } from '../../server/resources/persistent-volume-claim/schema';
import type { VolumeSnapshot } from '../../server/resources/volume-snapshot/schema';
import { exists, NS, openHarness, waitFor, type Harness } from '../provisioning/harness';
import { changeData, readTree, writeFirst } from './tree';

const api = 'snapshot.storage.k8s.io/v1';
const loop = await createRealOs().loopSupport();
if (!loop.ok) console.log(`[skip] loop snapshots: ${loop.reason}`);

let h: Harness;
beforeAll(async () => {
  h = await openHarness();
  await h.start();
});
afterAll(async () => h?.close());

const dataPath = (pv: PersistentVolume) => (pv.spec?.hostPath?.path ?? pv.spec?.local?.path)!;
const snapshot = (name: string) => h.ts.store.tryGet('VolumeSnapshot', NS, name);
const contentOf = (vs: VolumeSnapshot) => h.ts.store.tryGet('VolumeSnapshotContent', undefined, `snapcontent-${vs.metadata.uid}`);
const fromSnapshot = (name: string) => ({ dataSource: { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name } });
const fromClaim = (name: string) => ({ dataSource: { kind: 'PersistentVolumeClaim', name } });

async function takeSnapshot(name: string, claim: string, cls?: string): Promise<VolumeSnapshot> {
  await h.ts.store.create({ apiVersion: api, kind: 'VolumeSnapshot', metadata: { name, namespace: NS }, spec: { source: { persistentVolumeClaimName: claim }, ...(cls ? { volumeSnapshotClassName: cls } : {}) } });
  return waitFor(`snapshot ${name} ready`, async () => {
    const vs = await snapshot(name);
    return vs?.status?.readyToUse === true ? vs : undefined;
  }, 60_000);
}

/** The whole path for one plugin's class: snapshot, change, restore, clone, refusals, delete. */
async function roundTrip(prefix: string, cls: string): Promise<void> {
  const { volume: source } = await h.waitBound(`${prefix}-data`);
  await writeFirst(dataPath(source));
  const before = await readTree(dataPath(source));

  const vs = await takeSnapshot(`${prefix}-snap`, `${prefix}-data`);
  const content = (await contentOf(vs))!;
  expect(vs.status).toMatchObject({ boundVolumeSnapshotContentName: content.metadata.name, readyToUse: true, restoreSize: '16Mi' });
  expect(vs.spec?.volumeSnapshotClassName).toBe(`${cls}-snap`);
  // The bound protection follows the binding (a look after the status that bound it).
  const finalizers = ['snapshot.storage.kubernetes.io/volumesnapshot-as-source-protection', 'snapshot.storage.kubernetes.io/volumesnapshot-bound-protection'];
  await waitFor('the snapshot\'s finalizers', async () => {
    const now = (await snapshot(vs.metadata.name!))?.metadata.finalizers ?? [];
    return finalizers.every((f) => now.includes(f));
  });
  expect(content.spec).toMatchObject({ driver: (await h.ts.store.get('StorageClass', undefined, cls)).provisioner, deletionPolicy: 'Delete', source: { volumeHandle: source.metadata.name }, sourceVolumeMode: source.spec?.volumeMode });
  expect(content.status).toMatchObject({ readyToUse: true, restoreSize: 16 << 20 });
  expect(content.metadata.finalizers).toEqual(['snapshot.storage.kubernetes.io/volumesnapshotcontent-bound-protection']);
  // The events are written after the status they tell of.
  const wanted = ['CreatingSnapshot', 'SnapshotCreated', 'SnapshotReady'];
  await waitFor('the snapshot\'s events', async () => {
    const reasons = (await h.events(vs.metadata.name!)).map((e) => e.reason);
    return wanted.every((r) => reasons.includes(r));
  });
  // A copy's progress on the snapshot, for its owner: the whole, in the end.
  const progress = await waitFor('the copy\'s progress', async () => {
    const p = (await snapshot(vs.metadata.name!))?.metadata.annotations?.['snapshot.stowage.io/copy-progress']?.split('/');
    return p && p[0] === p[1] ? p : undefined;
  });
  expect(Number(progress[1])).toBeGreaterThan(1 << 20);
  // The claim's pvc-as-source-protection goes once the snapshot is ready.
  await waitFor('source claim released', async () => !((await h.claim(`${prefix}-data`))?.metadata.finalizers ?? []).includes('snapshot.storage.kubernetes.io/pvc-as-source-protection'));

  await changeData(dataPath(source));
  const after = await readTree(dataPath(source));
  expect(after).not.toEqual(before);

  await h.createClaim(`${prefix}-restored`, cls, { size: '16Mi', spec: fromSnapshot(`${prefix}-snap`) });
  const restored = await h.waitBound(`${prefix}-restored`, 60_000);
  expect(await readTree(dataPath(restored.volume))).toEqual(before);

  await h.createClaim(`${prefix}-bigger`, cls, { size: '32Mi', spec: fromSnapshot(`${prefix}-snap`) });
  const bigger = await h.waitBound(`${prefix}-bigger`, 60_000);
  expect(await readTree(dataPath(bigger.volume))).toEqual(before);
  expect(bigger.volume.spec?.capacity?.storage).toBe('32Mi');

  await h.createClaim(`${prefix}-clone`, cls, { size: '16Mi', spec: fromClaim(`${prefix}-data`) });
  const clone = await h.waitBound(`${prefix}-clone`, 60_000);
  expect(await readTree(dataPath(clone.volume))).toEqual(after);
  // The source's cloning protection goes once no clone of it is Pending.
  await waitFor('cloning protection released', async () => !((await h.claim(`${prefix}-data`))?.metadata.finalizers ?? []).includes('provisioner.storage.kubernetes.io/cloning-protection'));

  await h.createClaim(`${prefix}-small`, cls, { size: '8Mi', spec: fromSnapshot(`${prefix}-snap`) });
  const small = await waitFor('a restore smaller than the snapshot refused', async () => (await h.events(`${prefix}-small`, 'ProvisioningFailed'))[0]);
  expect(small.message).toBe(
    `error getting handle for DataSource Type VolumeSnapshot by Name ${prefix}-snap: requested volume size 8388608 is less than the size 16777216 for the source snapshot ${prefix}-snap`,
  );
  await h.createClaim(`${prefix}-small-clone`, cls, { size: '8Mi', spec: fromClaim(`${prefix}-data`) });
  const smallClone = await waitFor('a clone smaller than its source refused', async () => (await h.events(`${prefix}-small-clone`, 'ProvisioningFailed'))[0]);
  expect(smallClone.message).toContain('error, new PVC request must be greater than or equal in size to the specified PVC data source, requested 8388608 but source is 16777216');
  for (const c of [`${prefix}-small`, `${prefix}-small-clone`]) expect((await h.claim(c))?.status?.phase).toBe('Pending');

  // The snapshot's copy and record go with it (deletionPolicy Delete); restored claims stay.
  const copy = content.status!.snapshotHandle!;
  expect(await exists(copy)).toBe(true);
  for (const c of [`${prefix}-small`, `${prefix}-small-clone`]) await h.ts.store.delete('PersistentVolumeClaim', NS, c);
  await h.ts.store.delete('VolumeSnapshot', NS, `${prefix}-snap`);
  await waitFor('snapshot and content gone', async () => !(await snapshot(`${prefix}-snap`)) && !(await contentOf(vs)), 30_000);
  expect(await exists(copy)).toBe(false);
  expect(await h.assets.get(content.spec!.driver!, content.metadata.name!)).toBeUndefined();
  expect(await readTree(dataPath(restored.volume))).toEqual(before);
}

async function snapshotClass(name: string, driver: string): Promise<void> {
  await h.ts.store.create({ apiVersion: api, kind: 'VolumeSnapshotClass', metadata: { name, annotations: { 'snapshot.storage.kubernetes.io/is-default-class': 'true' } }, driver, deletionPolicy: 'Delete' });
}

describe('stowage.io/host-path: snapshot, restore, clone (copies)', () => {
  it('restores the snapshot\'s data exactly and clones the claim\'s data now; refuses smaller claims; deleting the snapshot removes its copy', async () => {
    await h.createClass('hp', hostPathProvisioner, { basePath: h.base });
    await snapshotClass('hp-snap', hostPathProvisioner);
    await h.createClaim('hp-data', 'hp', { size: '16Mi' });
    await roundTrip('hp', 'hp');
  }, 120_000);
});

describe.skipIf(!loop.ok)('stowage.io/loop: snapshot, restore, clone (image copies)', () => {
  it('restores the snapshot\'s filesystem exactly (a larger restore grows it) and clones the claim', async () => {
    await h.createClass('lp', loopProvisioner, { basePath: `${h.dir}/loops` });
    await snapshotClass('lp-snap', loopProvisioner);
    await h.createClaim('lp-data', 'lp', { size: '16Mi' });
    await roundTrip('lp', 'lp');
  }, 180_000);
});

describe('refused before anything is made', () => {
  it('a snapshot of a claim that is not Bound: upstream\'s error, no content, the claim protected', async () => {
    await h.createClass('hp-unbound', hostPathProvisioner, { basePath: h.base }, { volumeBindingMode: 'WaitForFirstConsumer' });
    await h.ts.store.create({ apiVersion: api, kind: 'VolumeSnapshotClass', metadata: { name: 'hp-unbound-snap' }, driver: hostPathProvisioner, deletionPolicy: 'Delete' });
    await h.createClaim('waiting', 'hp-unbound');
    await h.ts.store.create({ apiVersion: api, kind: 'VolumeSnapshot', metadata: { name: 'of-waiting', namespace: NS }, spec: { source: { persistentVolumeClaimName: 'waiting' }, volumeSnapshotClassName: 'hp-unbound-snap' } });
    const vs = await waitFor('the error on the snapshot', async () => {
      const s = await snapshot('of-waiting');
      return s?.status?.error ? s : undefined;
    });
    expect(vs.status).toMatchObject({
      readyToUse: false,
      error: { message: 'Failed to create snapshot content with error failed to get input parameters to create snapshot of-waiting: "the PVC waiting is not yet bound to a PV, will not attempt to take a snapshot"' },
    });
    expect(await contentOf(vs)).toBeUndefined();
    const claim = (await h.claim('waiting')) as PersistentVolumeClaim;
    // ensurePVCFinalizer comes first (upstream createSnapshotContent): the claim is protected while the snapshot is not ready.
    expect(claim.metadata.finalizers ?? []).toContain('snapshot.storage.kubernetes.io/pvc-as-source-protection');
  });
});

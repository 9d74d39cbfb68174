// The binder's whole lifecycle on real Postgres: bind, pre-bind both ways, release with
// Retain, Lost claims, provisioning hand-over, events with upstream reasons, and the
// explanation of a Pending claim.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControllers, type RunningControllers } from '../../server/controllers/start';
import { admitProtection } from '../../server/resources/protection';
import type { PersistentVolumeClaim } from '../../server/resources/persistent-volume-claim/schema';
import type { KubeObject } from '../../server/resources/types';
import { rawQuery } from '../db';
import { claim, ensureNamespaces, eventsAbout, openApp, storageClass, volume, waitFor } from './fixtures';
import type { PersistentVolume } from '../../server/resources/persistent-volume/schema';
import type { Event } from '../../server/resources/event/schema';

let ctx: Awaited<ReturnType<typeof openApp>>;
let running: RunningControllers;
const NS = 'team-a';

beforeAll(async () => {
  ctx = await openApp();
  await ensureNamespaces(ctx.app, 'default', NS);
  running = await startControllers({ app: ctx.app, connectionString: ctx.url, leaderElection: false, pendingGraceMs: 0 });
});
afterAll(async () => {
  await running?.stop();
  await ctx?.app.close();
});

const getClaim = (name: string) => ctx.app.store.get('PersistentVolumeClaim', NS, name);
const getVolume = (name: string) => ctx.app.store.get('PersistentVolume', undefined, name);
// As through the API: admission adds the protection finalizers, so the protection
// controllers have nothing to write and every row change here is the binder's.
const create = (o: KubeObject) => {
  admitProtection(o);
  return ctx.app.store.create(o);
};

async function claimIn(name: string, phase: string): Promise<PersistentVolumeClaim> {
  return waitFor(`claim ${name} ${phase}`, async () => {
    const c = await getClaim(name);
    return c.status?.phase === phase ? c : undefined;
  });
}
async function volumeIn(name: string, phase: string): Promise<PersistentVolume> {
  return waitFor(`volume ${name} ${phase}`, async () => {
    const v = await getVolume(name);
    return v.status?.phase === phase ? v : undefined;
  });
}
async function explained(name: string, match: RegExp): Promise<{ claim: PersistentVolumeClaim; explanation: any }> {
  return waitFor(`explanation of ${name} matching ${match}`, async () => {
    const c = await getClaim(name);
    const text = c.metadata.annotations?.['stowage.io/binding-explanation'];
    const e = text ? JSON.parse(text) : undefined;
    return e && match.test(e.summary) ? { claim: c, explanation: e } : undefined;
  });
}
async function eventWith(obj: KubeObject, reason: string): Promise<Event> {
  return waitFor(`event ${reason} about ${obj.metadata.name}`, async () => (await eventsAbout(ctx.app, obj)).find((e) => e.reason === reason));
}

describe('binding', () => {
  it('binds a claim to the smallest volume that fits, both sides in one transaction', async () => {
    await create(volume('b1-5g', '5Gi', { storageClassName: '' }));
    await create(volume('b1-1g', '1Gi', { storageClassName: '' }));
    await create(volume('b1-2g', '2Gi', { storageClassName: '' }));
    // Only Available volumes are candidates (upstream): let the binder mark them first.
    for (const name of ['b1-5g', 'b1-1g', 'b1-2g']) await volumeIn(name, 'Available');
    await create(claim(NS, 'b1', '1500Mi', { storageClassName: '' }));
    const c = await claimIn('b1', 'Bound');
    const v = await getVolume('b1-2g');
    expect(c.spec!.volumeName).toBe('b1-2g');
    expect(c.metadata.annotations).toMatchObject({ 'pv.kubernetes.io/bind-completed': 'yes', 'pv.kubernetes.io/bound-by-controller': 'yes' });
    expect(c.status).toMatchObject({ phase: 'Bound', capacity: { storage: '2Gi' }, accessModes: ['ReadWriteOnce'] });
    expect(v.status!.phase).toBe('Bound');
    expect(v.spec!.claimRef).toMatchObject({ kind: 'PersistentVolumeClaim', namespace: NS, name: 'b1', uid: c.metadata.uid });
    expect(v.metadata.annotations?.['pv.kubernetes.io/bound-by-controller']).toBe('yes');
    // Rows written by one transaction carry the same xmin.
    const rows = await rawQuery<{ name: string; xmin: string }>(
      ctx.url,
      `SELECT name, xmin::text FROM objects WHERE (kind = 'PersistentVolume' AND name = 'b1-2g') OR (kind = 'PersistentVolumeClaim' AND name = 'b1')`,
    );
    expect(rows).toHaveLength(2);
    expect(rows[0].xmin).toBe(rows[1].xmin);
    expect((await getVolume('b1-1g')).status!.phase).toBe('Available');
  });

  it('honours a label selector', async () => {
    await create(volume('sel-plain', '1Gi', { storageClassName: 'sel' }));
    await create(volume('sel-ssd', '8Gi', { storageClassName: 'sel', labels: { disk: 'ssd' } }));
    await create(claim(NS, 'sel', '1Gi', { storageClassName: 'sel', selector: { matchExpressions: [{ key: 'disk', operator: 'In', values: ['ssd'] }] } }));
    expect((await claimIn('sel', 'Bound')).spec!.volumeName).toBe('sel-ssd');
  });
});

describe('pre-binding', () => {
  it('a volume reserved by claimRef name gets its claim, although a smaller one is free', async () => {
    await create(volume('pre-free', '1Gi', { storageClassName: 'pre1' }));
    await create(volume('pre-reserved', '10Gi', { storageClassName: 'pre1', claimRef: { namespace: NS, name: 'pre1' } }));
    await create(claim(NS, 'pre1', '1Gi', { storageClassName: 'pre1' }));
    const c = await claimIn('pre1', 'Bound');
    const v = await getVolume('pre-reserved');
    expect(c.spec!.volumeName).toBe('pre-reserved');
    expect(c.status!.capacity!.storage).toBe('10Gi');
    expect(v.spec!.claimRef!.uid).toBe(c.metadata.uid);
    // The user made the volume's binding: the controller does not mark it as its own.
    expect(v.metadata.annotations?.['pv.kubernetes.io/bound-by-controller']).toBeUndefined();
    expect(c.metadata.annotations?.['pv.kubernetes.io/bound-by-controller']).toBe('yes');
  });

  it('a volume reserved by claimRef name and uid gets its claim', async () => {
    const c0 = await create(claim(NS, 'pre2', '1Gi', { storageClassName: 'none-such-x' }));
    await create(volume('pre2-v', '3Gi', { storageClassName: 'none-such-x', claimRef: { namespace: NS, name: 'pre2', uid: c0.metadata.uid } }));
    expect((await claimIn('pre2', 'Bound')).spec!.volumeName).toBe('pre2-v');
  });

  it("a claim's volumeName binds that volume; the controller marks the volume side", async () => {
    await create(volume('pre3-small', '1Gi', { storageClassName: '' }));
    await create(volume('pre3-v', '4Gi', { storageClassName: '' }));
    await create(claim(NS, 'pre3', '1Gi', { storageClassName: '', volumeName: 'pre3-v' }));
    const c = await claimIn('pre3', 'Bound');
    const v = await getVolume('pre3-v');
    expect(c.spec!.volumeName).toBe('pre3-v');
    expect(c.metadata.annotations?.['pv.kubernetes.io/bound-by-controller']).toBeUndefined();
    expect(v.metadata.annotations?.['pv.kubernetes.io/bound-by-controller']).toBe('yes');
    expect(v.spec!.claimRef!.name).toBe('pre3');
  });

  it('a claim naming a missing volume waits, and binds once the volume appears', async () => {
    await create(claim(NS, 'pre4', '1Gi', { storageClassName: '', volumeName: 'pre4-later' }));
    const { explanation } = await explained('pre4', /asks for volume "pre4-later".*does not exist/);
    expect(explanation.candidates).toEqual([]);
    await create(volume('pre4-later', '1Gi', { storageClassName: '' }));
    expect((await claimIn('pre4', 'Bound')).metadata.annotations?.['stowage.io/binding-explanation']).toBeUndefined();
  });

  it('a claim naming a volume too small stays Pending with VolumeMismatch', async () => {
    await create(volume('pre5-tiny', '1Mi', { storageClassName: '' }));
    await create(claim(NS, 'pre5', '1Gi', { storageClassName: '', volumeName: 'pre5-tiny' }));
    const { claim: c } = await explained('pre5', /cannot serve it: requested PV is too small/);
    const e = await eventWith(c, 'VolumeMismatch');
    expect(e).toMatchObject({ type: 'Warning', message: 'Cannot bind to requested volume "pre5-tiny": requested PV is too small' });
    expect((await getVolume('pre5-tiny')).status!.phase).toBe('Available');
  });
});

describe('release and loss', () => {
  it('deleting a bound claim releases its volume; Retain keeps it, and it is not reused', async () => {
    await create(volume('rel-v', '1Gi', { storageClassName: 'rel', reclaimPolicy: 'Retain' }));
    await create(claim(NS, 'rel', '1Gi', { storageClassName: 'rel' }));
    const first = await claimIn('rel', 'Bound');
    await ctx.app.store.delete('PersistentVolumeClaim', NS, 'rel');
    const v = await volumeIn('rel-v', 'Released');
    expect(v.spec!.claimRef!.uid).toBe(first.metadata.uid);
    // A new claim of the same name does not get the Released volume.
    await create(claim(NS, 'rel', '1Gi', { storageClassName: 'rel' }));
    const { explanation } = await explained('rel', /StorageClass "rel" does not exist/);
    expect(explanation.candidates).toContainEqual({ name: 'rel-v', reasons: [expect.stringMatching(/earlier claim named team-a\/rel/)] });
    expect((await getVolume('rel-v')).status!.phase).toBe('Released');
  });

  it('a bound claim whose volume disappears is Lost, with a ClaimLost warning', async () => {
    await create(volume('lost-v', '1Gi', { storageClassName: 'lost' }));
    await create(claim(NS, 'lost', '1Gi', { storageClassName: 'lost' }));
    await claimIn('lost', 'Bound');
    await ctx.app.store.delete('PersistentVolume', undefined, 'lost-v');
    // kubernetes.io/pv-protection holds a bound volume; removing the finalizer by hand makes it vanish anyway.
    const held = await ctx.app.store.tryGet('PersistentVolume', undefined, 'lost-v');
    if (held) await ctx.app.store.update({ ...held, metadata: { ...held.metadata, finalizers: [] } });
    const c = await claimIn('lost', 'Lost');
    expect(c.status!.capacity).toBeUndefined();
    const e = await eventWith(c, 'ClaimLost');
    expect(e).toMatchObject({
      type: 'Warning',
      message: 'Bound claim has lost its PersistentVolume. Data on the volume is lost!',
      source: { component: 'persistentvolume-controller' },
      count: 1,
      involvedObject: { kind: 'PersistentVolumeClaim', namespace: NS, name: 'lost', uid: c.metadata.uid },
    });
    expect(e.firstTimestamp).toBeTruthy();
    expect(e.lastTimestamp).toBeTruthy();
  });
});

describe('provisioning hand-over and the Pending explanation', () => {
  it('a class with an external provisioner gets the claim annotated and an ExternalProvisioning event', async () => {
    await create(storageClass('ext', 'example.com/nfs'));
    await create(claim(NS, 'ext1', '1Gi', { storageClassName: 'ext' }));
    const { claim: c, explanation } = await explained('ext1', /waiting for provisioner "example.com\/nfs"/);
    expect(c.metadata.annotations).toMatchObject({
      'volume.kubernetes.io/storage-provisioner': 'example.com/nfs',
      'volume.beta.kubernetes.io/storage-provisioner': 'example.com/nfs',
    });
    expect(explanation.summary).toContain('StorageClass "ext"');
    const e = await eventWith(c, 'ExternalProvisioning');
    expect(e.type).toBe('Normal');
    expect(e.message).toContain("external provisioner 'example.com/nfs'");
    expect(c.status!.conditions).toContainEqual(expect.objectContaining({ type: 'Bindable', status: 'False', reason: 'WaitingForProvisioner' }));
  });

  it('a missing class is explained and reported; creating it hands the claim over', async () => {
    await create(claim(NS, 'nocls', '1Gi', { storageClassName: 'later' }));
    const { claim: c } = await explained('nocls', /StorageClass "later" does not exist/);
    expect((await eventWith(c, 'ProvisioningFailed')).message).toBe('storageclass.storage.k8s.io "later" not found');
    expect(c.status!.conditions).toContainEqual(expect.objectContaining({ type: 'Bindable', reason: 'StorageClassNotFound' }));
    await create(storageClass('later', 'example.com/later'));
    await explained('nocls', /waiting for provisioner "example.com\/later"/);
  });

  it('a Filesystem claim of a class whose volumes are all Block gets a FailedBinding Warning that says so (not only the annotation)', async () => {
    // As the HA cluster's `cluster-disks`: local block devices, no provisioner, WaitForFirstConsumer.
    await create(storageClass('disks', 'kubernetes.io/no-provisioner', { bindingMode: 'WaitForFirstConsumer' }));
    for (const name of ['disk-1', 'disk-2']) await create(volume(name, '10Gi', { storageClassName: 'disks', volumeMode: 'Block' }));
    for (const name of ['disk-1', 'disk-2']) await volumeIn(name, 'Available');
    await create(claim(NS, 'fs-on-block', '1Gi', { storageClassName: 'disks' }));
    const { claim: c } = await explained('fs-on-block', /WaitForFirstConsumer/);
    const e = await eventWith(c, 'FailedBinding');
    expect(e.type).toBe('Warning');
    expect(e.message).toBe(
      'no persistent volumes available for this claim with volumeMode Filesystem: the volumes of StorageClass "disks" that would serve it are Block (disk-1, disk-2); a claim for them sets spec.volumeMode: Block',
    );
  });

  it('a claim that asks for no class gets FailedBinding, near candidates with their failed rule, and binds when a volume fits', async () => {
    await create(volume('near-small', '1Gi', { storageClassName: 'near' }));
    await create(volume('near-rox', '10Gi', { storageClassName: 'near', modes: ['ReadOnlyMany'] }));
    await create(volume('near-block', '10Gi', { storageClassName: 'near', volumeMode: 'Block' }));
    // Only Available volumes are candidates: the reasons below are each volume's own once the binder has marked it.
    for (const name of ['near-small', 'near-rox', 'near-block']) await volumeIn(name, 'Available');
    await create(claim(NS, 'near', '5Gi', { storageClassName: 'near' }));
    const { claim: c, explanation } = await explained('near', /StorageClass "near" does not exist/);
    const byName = Object.fromEntries(explanation.candidates.map((x: any) => [x.name, x.reasons]));
    expect(byName['near-small']).toEqual(['capacity 1Gi is less than the requested 5Gi']);
    expect(byName['near-rox']).toEqual(['access modes ROX do not include the requested RWO']);
    expect(byName['near-block']).toEqual(['volume mode Block differs from the requested Filesystem']);
    expect(c.status!.phase).toBe('Pending');

    await create(claim(NS, 'noclass', '500Gi', { storageClassName: '' }));
    const pending = await explained('noclass', /asks for no storage class/);
    expect((await eventWith(pending.claim, 'FailedBinding')).message).toBe('no persistent volumes available for this claim and no storage class is set');

    await create(volume('near-fits', '6Gi', { storageClassName: 'near' }));
    const bound = await claimIn('near', 'Bound');
    expect(bound.spec!.volumeName).toBe('near-fits');
    expect(bound.metadata.annotations?.['stowage.io/binding-explanation']).toBeUndefined();
    expect((bound.status!.conditions ?? []).find((x: any) => x.type === 'Bindable')).toBeUndefined();
  });

  it('the explanation is written only when it changes; its event is counted on every look', async () => {
    await create(claim(NS, 'quiet', '100Gi', { storageClassName: 'quiet' }));
    const first = await explained('quiet', /StorageClass "quiet" does not exist/);
    // Looking at the claim again reaches the same decision: nothing is written.
    const binder = running.manager.controllers[0];
    for (let i = 0; i < 3; i++) {
      binder.queue.add(`pvc/${NS}/quiet`);
      await waitFor('the binder to be idle', async () => binder.queue.length === 0 && binder.queue.inFlight === 0);
    }
    expect((await getClaim('quiet')).metadata.resourceVersion).toBe(first.claim.metadata.resourceVersion);
    // Its event is repeated on each look, as upstream's recorder does: one Event, counted.
    // (At least the four looks above: a periodic resync may add more.)
    const counts = (await eventsAbout(ctx.app, first.claim)).map((e) => e.count as number);
    expect(counts).toHaveLength(1);
    expect(counts[0]).toBeGreaterThanOrEqual(4);
  });
});

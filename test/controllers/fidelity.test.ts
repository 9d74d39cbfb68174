// The binder where clients can tell it from upstream's persistentvolume controller
// (pkg/controller/volume/persistentvolume, cases named after its unit tests): Delete with
// no deleter, bindings that come apart and back, terminating objects, events repeated on
// every periodic sync, and a data source on a plugin that cannot populate volumes.
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControllers, type RunningControllers } from '../../server/controllers/start';
import type { KubeObject } from '../../server/resources/types';
import { claim, ensureNamespaces, eventsAbout, openApp, storageClass, volume, waitFor } from './fixtures';

let ctx: Awaited<ReturnType<typeof openApp>>;
let running: RunningControllers;
const NS = 'fidelity';

beforeAll(async () => {
  ctx = await openApp();
  await ensureNamespaces(ctx.app, 'default', NS);
  running = await startControllers({
    app: ctx.app,
    connectionString: ctx.url,
    leaderElection: false,
    pendingGraceMs: 0,
    binderResyncMs: 300,
    inTreeProvisioners: new Set(['stowage.io/host-path']),
  });
});
afterAll(async () => {
  await running?.stop();
  await ctx?.app.close();
});

const store = () => ctx.app.store;
const getClaim = (name: string) => store().get('PersistentVolumeClaim', NS, name);
const getVolume = (name: string) => store().get('PersistentVolume', undefined, name);

async function until<T>(what: string, fn: () => Promise<T | undefined | false>): Promise<T> {
  return waitFor(what, fn, 20_000);
}
const claimIn = (name: string, phase: string) =>
  until(`claim ${name} ${phase}`, async () => {
    const c = await getClaim(name);
    return c.status?.phase === phase ? c : undefined;
  });
const volumeIn = (name: string, phase: string) =>
  until(`volume ${name} ${phase}`, async () => {
    const v = await getVolume(name);
    return v.status?.phase === phase ? v : undefined;
  });
const eventWith = (obj: KubeObject, reason: string, minCount = 1) =>
  until(`event ${reason} about ${obj.metadata.name} (count >= ${minCount})`, async () =>
    (await eventsAbout(ctx.app, obj)).find((e) => e.reason === reason && (e.count ?? 1) >= minCount),
  );

describe('reclaim policy Delete (upstream 4-10, 8-3)', () => {
  it.each([
    {
      name: 'a static volume no plugin deletes goes Failed with upstream message and VolumeFailedDelete',
      annotations: undefined as Record<string, string> | undefined,
      message: (pv: string) => `error getting deleter volume plugin for volume "${pv}": no deletable volume plugin matched`,
    },
    {
      name: 'a volume of an unknown kubernetes.io plugin goes Failed',
      annotations: { 'pv.kubernetes.io/provisioned-by': 'kubernetes.io/gce-pd' },
      message: () => 'no deletable volume plugin matched name: kubernetes.io/gce-pd',
    },
  ])('$name', async ({ annotations, message }) => {
    const pvName = `del-${annotations ? 'kio' : 'static'}`;
    const c = await store().create(claim(NS, pvName, '1Gi', { storageClassName: '', volumeName: pvName }));
    const v0 = volume(pvName, '1Gi', { storageClassName: '', reclaimPolicy: 'Delete' });
    if (annotations) v0.metadata.annotations = annotations;
    await store().create(v0);
    await claimIn(c.metadata.name!, 'Bound');
    await store().delete('PersistentVolumeClaim', NS, c.metadata.name!);
    const failed = await volumeIn(pvName, 'Failed');
    expect(failed.status!.message).toBe(message(pvName));
    const e = await eventWith(failed, 'VolumeFailedDelete');
    expect(e).toMatchObject({ type: 'Warning', message: message(pvName), source: { component: 'persistentvolume-controller' } });
    // Retried on every sync without flipping back to Released, and without a new event.
    const rv = failed.metadata.resourceVersion;
    await until('two more binder resyncs', async () => {
      const pending = await store().create(claim(NS, `${pvName}-tick-${Date.now()}`, '1Pi', { storageClassName: '' }));
      return (await eventWith(pending, 'FailedBinding', 2)) && true;
    });
    const after = await getVolume(pvName);
    expect(after.status!.phase).toBe('Failed');
    expect(after.metadata.resourceVersion).toBe(rv);
    expect((await eventsAbout(ctx.app, after)).filter((x) => x.reason === 'VolumeFailedDelete').map((x) => x.count)).toEqual([1]);
  });

  it('a volume of an external provisioner stays Released for it to delete', async () => {
    const c = await store().create(claim(NS, 'del-ext', '1Gi', { storageClassName: '', volumeName: 'del-ext' }));
    const v0 = volume('del-ext', '1Gi', { storageClassName: '', reclaimPolicy: 'Delete' });
    v0.metadata.annotations = { 'pv.kubernetes.io/provisioned-by': 'example.com/nfs' };
    await store().create(v0);
    await claimIn('del-ext', 'Bound');
    await store().delete('PersistentVolumeClaim', NS, c.metadata.name!);
    const released = await volumeIn('del-ext', 'Released');
    expect(released.status!.message).toBeUndefined();
    expect((await eventsAbout(ctx.app, released)).map((e) => e.reason)).not.toContain('VolumeFailedDelete');
  });
});

describe('bindings that come apart (upstream syncBoundClaim 3-x)', () => {
  it('a Bound claim whose volume lost its claimRef is bound again, not Lost', async () => {
    await store().create(volume('apart-v', '1Gi', { storageClassName: 'apart' }));
    await store().create(claim(NS, 'apart', '1Gi', { storageClassName: 'apart' }));
    const bound = await claimIn('apart', 'Bound');
    const v = await getVolume('apart-v');
    delete v.spec!.claimRef;
    await store().update(v);
    const again = await until('volume apart-v bound to its claim again', async () => {
      const x = await getVolume('apart-v');
      return x.spec!.claimRef?.uid === bound.metadata.uid && x.status!.phase === 'Bound' ? x : undefined;
    });
    expect(again.spec!.claimRef).toMatchObject({ namespace: NS, name: 'apart' });
    const c = await getClaim('apart');
    expect(c.status!.phase).toBe('Bound');
    expect((await eventsAbout(ctx.app, c)).map((e) => e.reason)).not.toContain('ClaimLost');
  });

  it('a Lost claim returns to Bound when its volume re-appears bound to it', async () => {
    await store().create(volume('lost-v', '1Gi', { storageClassName: 'lost' }));
    await store().create(claim(NS, 'lost', '1Gi', { storageClassName: 'lost' }));
    const bound = await claimIn('lost', 'Bound');
    const before = await getVolume('lost-v');
    await store().delete('PersistentVolume', undefined, 'lost-v');
    // kubernetes.io/pv-protection holds a bound volume; removing the finalizer by hand makes it vanish anyway.
    const held = await store().tryGet('PersistentVolume', undefined, 'lost-v');
    if (held) await store().update({ ...held, metadata: { ...held.metadata, finalizers: [] } });
    await claimIn('lost', 'Lost');
    await store().create(
      volume('lost-v', '1Gi', { storageClassName: 'lost', claimRef: { namespace: NS, name: 'lost', uid: bound.metadata.uid } }),
    );
    const back = await claimIn('lost', 'Bound');
    expect(back.spec!.volumeName).toBe('lost-v');
    expect(back.status!.capacity).toEqual({ storage: '1Gi' });
    expect((await volumeIn('lost-v', 'Bound')).metadata.uid).not.toBe(before.metadata.uid);
  });
});

describe('terminating objects', () => {
  it('a claim being deleted still binds; a volume being deleted is never picked', async () => {
    const held = (o: KubeObject) => ({ ...o, metadata: { ...o.metadata, finalizers: ['example.com/hold'] } });
    await store().create(held(volume('term-dying', '1Gi', { storageClassName: 'term' })));
    await volumeIn('term-dying', 'Available');
    await store().delete('PersistentVolume', undefined, 'term-dying');
    await store().create(held(claim(NS, 'term', '1Gi', { storageClassName: 'term' })));
    await store().delete('PersistentVolumeClaim', NS, 'term');
    expect((await getClaim('term')).metadata.deletionTimestamp).toBeTruthy();
    await store().create(volume('term-live', '1Gi', { storageClassName: 'term' }));
    const c = await claimIn('term', 'Bound');
    expect(c.spec!.volumeName).toBe('term-live');
    expect((await getVolume('term-dying')).spec!.claimRef).toBeUndefined();
  });
});

describe('events repeated on every periodic sync (client-go recorder aggregation)', () => {
  it.each([
    { name: 'no volume and no class', reason: 'FailedBinding', cls: '', type: 'Normal' },
    { name: 'an external provisioner', reason: 'ExternalProvisioning', cls: 'repeat-ext', type: 'Normal' },
  ])('$name: $reason count grows on one Event', async ({ reason, cls, type }) => {
    if (cls) await store().create(storageClass(cls, 'example.com/repeat'));
    const c = await store().create(claim(NS, `repeat-${reason.toLowerCase()}`, '1Pi', { storageClassName: cls }));
    await eventWith(c, reason, 3);
    const mine = (await eventsAbout(ctx.app, c)).filter((e) => e.reason === reason);
    expect(mine).toHaveLength(1);
    expect(mine[0].type).toBe(type);
    expect(Date.parse(mine[0].lastTimestamp!)).toBeGreaterThanOrEqual(Date.parse(mine[0].firstTimestamp!));
  });
});

describe('WaitForFirstConsumer hand-over', () => {
  it('a claim with a selected node is handed to its external provisioner; unrelated volumes stay untouched', async () => {
    await store().create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'wffc-node', labels: { 'kubernetes.io/hostname': 'wffc-node' } } });
    await store().create(storageClass('wffc-ext', 'example.com/wffc', { bindingMode: 'WaitForFirstConsumer' }));
    await store().create(volume('wffc-unrelated', '10Gi', { storageClassName: 'other-class' }));
    // Settled: Available (the volume controller) and protected (pv-protection's own write,
    // which may land after Available). Its resourceVersion must not move from here on.
    const unrelated = await until('volume wffc-unrelated Available and protected', async () => {
      const v = await getVolume('wffc-unrelated');
      return v.status?.phase === 'Available' && v.metadata.finalizers?.includes('kubernetes.io/pv-protection') ? v : undefined;
    });
    const waiting = await store().create(claim(NS, 'wffc-wait', '1Gi', { storageClassName: 'wffc-ext' }));
    await eventWith(waiting, 'WaitForFirstConsumer');
    expect((await getClaim('wffc-wait')).metadata.annotations?.['volume.kubernetes.io/storage-provisioner']).toBeUndefined();

    const c0 = claim(NS, 'wffc', '1Gi', { storageClassName: 'wffc-ext' });
    c0.metadata.annotations = { 'volume.kubernetes.io/selected-node': 'wffc-node' };
    const c = await store().create(c0);
    const handed = await until('claim wffc handed over', async () => {
      const x = await getClaim('wffc');
      return x.metadata.annotations?.['volume.kubernetes.io/storage-provisioner'] ? x : undefined;
    });
    expect(handed.metadata.annotations).toMatchObject({
      'volume.kubernetes.io/storage-provisioner': 'example.com/wffc',
      'volume.beta.kubernetes.io/storage-provisioner': 'example.com/wffc',
      'volume.kubernetes.io/selected-node': 'wffc-node',
    });
    expect(handed.status!.phase).toBe('Pending');
    await eventWith(c, 'ExternalProvisioning');
    const after = await getVolume('wffc-unrelated');
    expect(after.metadata.resourceVersion).toBe(unrelated.metadata.resourceVersion);
    expect(after.spec!.claimRef).toBeUndefined();
  });

  // pv_controller syncUnboundClaim hands off whatever node the annotation names (IsDelayBindingProvisioning).
  it('a claim whose selected node is not a Node Stowage knows is handed over all the same', async () => {
    await store().create(storageClass('wffc-ext-2', 'example.com/wffc', { bindingMode: 'WaitForFirstConsumer' }));
    const c0 = claim(NS, 'wffc-elsewhere', '1Gi', { storageClassName: 'wffc-ext-2' });
    c0.metadata.annotations = { 'volume.kubernetes.io/selected-node': 'node-stowage-never-saw' };
    const c = await store().create(c0);
    const handed = await until('claim wffc-elsewhere handed over', async () => {
      const x = await getClaim('wffc-elsewhere');
      return x.metadata.annotations?.['volume.kubernetes.io/storage-provisioner'] ? x : undefined;
    });
    expect(handed.metadata.annotations?.['volume.kubernetes.io/storage-provisioner']).toBe('example.com/wffc');
    expect(handed.status!.phase).toBe('Pending');
    await eventWith(c, 'ExternalProvisioning');
    expect((await eventsAbout(ctx.app, c)).map((e) => e.reason)).not.toContain('WaitForFirstConsumer');
  });
});

describe('the claim doctor', () => {
  it('the nearest volumes include the closest in size across shapes', async () => {
    for (const n of ['a', 'b', 'c', 'd', 'e']) await store().create(volume(`doc-rwo-${n}`, '1Gi', { storageClassName: 'doctor' }));
    await store().create(volume('doc-rwx-100', '100Gi', { storageClassName: 'doctor', modes: ['ReadWriteMany'] }));
    await store().create(volume('doc-block-10', '10Gi', { storageClassName: 'doctor', volumeMode: 'Block' }));
    for (const n of ['a', 'b', 'c', 'd', 'e']) await volumeIn(`doc-rwo-${n}`, 'Available');
    await volumeIn('doc-rwx-100', 'Available');
    await store().create(claim(NS, 'doctor', '500Gi', { storageClassName: 'doctor' }));
    const explanation = await until('the explanation of claim doctor', async () => {
      const text = (await getClaim('doctor')).metadata.annotations?.['stowage.io/binding-explanation'];
      return text ? JSON.parse(text) : undefined;
    });
    const names: string[] = explanation.candidates.map((c: { name: string }) => c.name);
    expect(names).toContain('doc-rwx-100');
    expect(names.length).toBeLessThanOrEqual(5);
    const rwx = explanation.candidates.find((c: { name: string }) => c.name === 'doc-rwx-100');
    expect(rwx.reasons.join('; ')).toMatch(/capacity 100Gi is less than the requested 500Gi/);
  });
});

describe('data sources (upstream provisionClaimOperation)', () => {
  it('a claim with a populator dataSource on an in-tree plugin is refused with upstream text and not handed over', async () => {
    // Never provisioned from (the claim is refused first): the base path is only required.
    await store().create({ ...storageClass('populate', 'stowage.io/host-path'), parameters: { basePath: path.join(os.tmpdir(), 'stowage-unused') } });
    const c0 = claim(NS, 'clone', '1Gi', { storageClassName: 'populate' });
    // Through dataSourceRef: a populator named only in dataSource is dropped at create (upstream).
    c0.spec!.dataSourceRef = { apiGroup: 'populators.example.io', kind: 'Populator', name: 'source' };
    const c = await store().create(c0);
    const e = await eventWith(c, 'ProvisioningFailed');
    expect(e).toMatchObject({
      type: 'Warning',
      message: 'plugin "stowage.io/host-path" is not a CSI plugin. Only CSI plugin can provision a claim with a datasource',
    });
    const after = await getClaim('clone');
    expect(after.status!.phase).toBe('Pending');
    expect(after.metadata.annotations?.['volume.kubernetes.io/storage-provisioner']).toBeUndefined();
  });
});

// The provisioning decision and every plugin state, with a scripted plugin on a real store.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openTestStore, type TestStore } from '../../../test/db';
import { logger } from '../../services/logger';
import { AssetStore } from '../../store/provisioned-assets';
import { ANY_CAPABILITIES, type ProvisionerPlugin, type ProvisionOptions, type ProvisionResult } from '../../provisioners/plugin';
import type { KubeObject } from '../../resources/types';
import type { ReconcileContext } from '../runtime/controller';
import { EventRecorder } from '../../services/event-recorder';
import type { ProvisioningDeps } from './deps';
import { provisionClaim } from './provision-claim';

let ts: TestStore;
let d: ProvisioningDeps;
let calls = 0;
let next: ProvisionResult;
let lastOptions: ProvisionOptions | undefined;
/** What the plugin was last given (a function, so that TypeScript does not narrow it). */
const given = (): ProvisionOptions | undefined => lastOptions;
const ctx: ReconcileContext = {
  controller: 'test',
  signal: new AbortController().signal,
  log: logger,
  enqueue: () => {},
  isQueued: () => false,
  wrote: () => {},
};

const scripted: ProvisionerPlugin = {
  name: 'test.io/scripted',
  capabilities: ANY_CAPABILITIES,
  validateParameters: (params) => (params.bad ? ['parameter "bad" is bad'] : []),
  async provision(options) {
    calls++;
    lastOptions = options;
    return next;
  },
  delete: async () => 'deleted',
  deleteAsset: async () => 'deleted',
};

/** The scripted plugin, able to populate volumes from a data source. */
const copying: ProvisionerPlugin = { ...scripted, name: 'test.io/copying', capabilities: { ...ANY_CAPABILITIES, snapshots: true } };

beforeAll(async () => {
  ts = await openTestStore();
  for (const name of ['ns', 'default']) await ts.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  d = {
    store: ts.store,
    plugins: new Map([
      [scripted.name, scripted],
      [copying.name, copying],
    ]),
    assets: new AssetStore(ts.store),
    events: new EventRecorder(ts.store, 'test', logger),
    log: logger,
    node: 'n1',
    saveAttempts: 1,
    saveIntervalMs: 0,
    backgroundPollMs: 1234,
    sweepGraceMs: 0,
  };
  await ts.store.create({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'now' }, provisioner: scripted.name });
  await ts.store.create({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'bad' }, provisioner: scripted.name, parameters: { bad: 'x' } });
  await ts.store.create({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'late' }, provisioner: scripted.name, volumeBindingMode: 'WaitForFirstConsumer' });
  await ts.store.create({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'ext' }, provisioner: 'example.com/ext' });
  await ts.store.create({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'copies' }, provisioner: copying.name });
});
afterAll(async () => ts.close());
beforeEach(() => {
  calls = 0;
  next = { state: 'inBackground', error: new Error('still working') };
});

let n = 0;
async function claim(cls: string, annotations: Record<string, string> = { 'volume.kubernetes.io/storage-provisioner': scripted.name }, spec: Record<string, unknown> = {}): Promise<KubeObject> {
  return ts.store.create({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: `c${++n}`, namespace: 'ns', annotations },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: cls, ...spec },
  });
}
const run = (c: KubeObject) => provisionClaim(d, ctx, 'ns', c.metadata.name!);
const events = async (c: KubeObject) =>
  (await ts.store.list('Event', { namespace: 'ns', fieldSelector: `involvedObject.name=${c.metadata.name}` })).items.map((e) => `${String(e.reason)}: ${String(e.message)}`);

describe('which claims are provisioned', () => {
  const skipped: { name: string; cls: string; annotations?: Record<string, string> }[] = [
    { name: 'not handed over (no annotation)', cls: 'now', annotations: {} },
    { name: 'handed to an external provisioner', cls: 'ext', annotations: { 'volume.kubernetes.io/storage-provisioner': 'example.com/ext' } },
    { name: 'WaitForFirstConsumer without a selected node', cls: 'late', annotations: undefined },
    { name: 'the class names another provisioner now', cls: 'ext', annotations: undefined },
  ];
  it.each(skipped)('skips a claim $name', async ({ cls, annotations }) => {
    const c = await claim(cls, annotations);
    expect(await run(c)).toBeUndefined();
    expect(calls).toBe(0);
    expect(await events(c)).toEqual([]);
  });

  it('skips a claim that is bound already, or whose PV exists', async () => {
    const bound = await claim('now', undefined, { volumeName: 'somewhere' });
    await run(bound);
    const c = await claim('now');
    await ts.store.create({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: `pvc-${c.metadata.uid}` },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/x' } },
    });
    await run(c);
    expect(calls).toBe(0);
  });

  it('a missing class is reported and retried', async () => {
    const c = await claim('gone');
    await expect(run(c)).rejects.toThrow(/storageclass.storage.k8s.io "gone" not found/);
    expect(await events(c)).toEqual(['ProvisioningFailed: Failed to provision volume with StorageClass "gone": storageclass.storage.k8s.io "gone" not found']);
  });

  // sig-storage-lib-external-provisioner provisionVolumeErrorHandling: the event is err.Error(),
  // the in-tree PV controller's prefix is for claims without a data source.
  it.each([
    {
      name: 'a restore from a snapshot that does not exist',
      dataSource: { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 'nosnap' },
      want: 'error getting handle for DataSource Type VolumeSnapshot by Name nosnap: error getting snapshot nosnap from api server: volumesnapshots.snapshot.storage.k8s.io "nosnap" not found',
    },
    {
      name: 'a clone of a claim that does not exist',
      dataSource: { kind: 'PersistentVolumeClaim', name: 'noclaim' },
      want: 'error getting handle for DataSource Type PersistentVolumeClaim by Name noclaim: error getting PVC noclaim (namespace "ns") from api server: persistentvolumeclaim "noclaim" not found',
    },
  ])('a claim with a data source: the event is the error itself ($name)', async ({ dataSource, want }) => {
    const c = await claim('copies', { 'volume.kubernetes.io/storage-provisioner': copying.name }, { dataSource, dataSourceRef: dataSource });
    await expect(run(c)).rejects.toThrow();
    expect(await events(c)).toEqual([`ProvisioningFailed: ${want}`]);
    expect(calls).toBe(0);
  });

  it('invalid parameters are reported without calling the plugin', async () => {
    const c = await claim('bad');
    await expect(run(c)).rejects.toThrow(/parameter "bad" is bad/);
    expect(calls).toBe(0);
  });
});

describe('the plugin states', () => {
  it('inBackground: asked again after the poll interval, no Event', async () => {
    const c = await claim('now');
    expect(await run(c)).toEqual({ requeueAfter: 1234 });
    expect(await events(c)).toEqual([]);
  });

  it('finished with an error, noChange with an error, or a throw: ProvisioningFailed and retry', async () => {
    for (const result of [
      { state: 'finished', error: new Error('boom') },
      { state: 'noChange', error: new Error('backend unreachable') },
    ] as ProvisionResult[]) {
      next = result;
      const c = await claim('now');
      await expect(run(c)).rejects.toThrow(result.error!.message);
      expect(await events(c)).toEqual([`ProvisioningFailed: Failed to provision volume with StorageClass "now": ${result.error!.message}`]);
    }
  });

  it('reschedule: the selected node is dropped so the scheduler picks another', async () => {
    next = { state: 'reschedule', error: new Error('node n2 is full') };
    const c = await claim('late', { 'volume.kubernetes.io/storage-provisioner': scripted.name, 'volume.kubernetes.io/selected-node': 'n2' });
    await run(c);
    const after = await ts.store.get('PersistentVolumeClaim', 'ns', c.metadata.name!);
    expect(after.metadata.annotations?.['volume.kubernetes.io/selected-node']).toBeUndefined();
    expect(await events(c)).toEqual(['ProvisioningFailed: Failed to provision volume with StorageClass "late": node n2 is full; asking for another node']);
  });

  it('finished with a volume: the PV is saved and ProvisioningSucceeded recorded', async () => {
    const c = await claim('now');
    next = { state: 'finished', volume: { capacityBytes: 1n << 30n, volumeMode: 'Filesystem', source: { hostPath: { path: '/x', type: 'Directory' } }, asset: {} } };
    await d.assets.begin({ plugin: scripted.name, pvName: `pvc-${c.metadata.uid}`, node: 'n1', details: {} });
    await run(c);
    const pv = await ts.store.get('PersistentVolume', undefined, `pvc-${c.metadata.uid}`);
    expect(pv.spec!.claimRef!.uid).toBe(c.metadata.uid);
    expect((await d.assets.get(scripted.name, pv.metadata.name!))?.details.pvUid).toBe(pv.metadata.uid);
    await d.events.settled(); // recorded in the background, off the provisioning's path
    expect(await events(c)).toEqual([`ProvisioningSucceeded: Successfully provisioned volume pvc-${c.metadata.uid} using test.io/scripted`]);
  });
});

describe('a class that names a provisioner Secret', () => {
  const secretRef = { 'csi.storage.k8s.io/provisioner-secret-name': '${pvc.name}-creds', 'csi.storage.k8s.io/provisioner-secret-namespace': 'default' };
  beforeAll(async () => {
    await ts.store.create({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'with-secret' }, provisioner: scripted.name, parameters: { ...secretRef, apiKey: 'k-top-secret' } });
  });

  it("hands the Secret's data to the plugin, and not the reserved keys", async () => {
    const c = await claim('with-secret');
    await ts.store.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: `${c.metadata.name}-creds`, namespace: 'default' }, stringData: { password: 'p-top-secret' } });
    lastOptions = undefined;
    await run(c);
    expect(given()?.secrets).toEqual({ password: 'p-top-secret' });
    expect(given()?.parameters).toEqual({ apiKey: 'k-top-secret' });
  });

  it('fails with the name of a missing Secret, never a value', async () => {
    const c = await claim('with-secret');
    lastOptions = undefined;
    await expect(run(c)).rejects.toThrow(/does not exist/);
    expect(given()).toBeUndefined();
    expect((await events(c)).join('\n')).toContain(`Secret "default/${c.metadata.name}-creds" does not exist`);
  });

  it("masks the Secret's and the secret parameters' values in a plugin's error", async () => {
    const c = await claim('with-secret');
    await ts.store.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: `${c.metadata.name}-creds`, namespace: 'default' }, stringData: { password: 'p-top-secret' } });
    next = { state: 'finished', error: new Error('login with p-top-secret and k-top-secret refused') };
    await expect(run(c)).rejects.toThrow();
    const text = (await events(c)).join('\n');
    expect(text, text).toContain('login with *** and *** refused');
    expect(text).not.toMatch(/top-secret/);
  });
});

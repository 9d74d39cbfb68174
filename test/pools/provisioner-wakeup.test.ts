// The provisioner does not ask again and again for a volume in the agent's hands: it is
// woken when the agent reports the volume made. Here the plugin would not look again for
// two minutes on its own, yet the PV is saved within seconds of the agent's report.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Controller } from '../../server/controllers/runtime/controller';
import { provisioningDeps } from '../../server/controllers/provisioning-start';
import { provisionerSpec } from '../../server/controllers/provisioner/provisioner';
import { annStorageProvisioner } from '../../server/domain/well-known/annotations';
import { labelHostname, labelPoolNode } from '../../server/domain/well-known/labels';
import { btrfsProvisioner } from '../../server/domain/well-known/provisioners';
import { createBtrfsPlugin } from '../../server/provisioners/btrfs';
import { logger } from '../../server/services/logger';
import { NodePoolService } from '../../server/services/node-pools';
import { AssetStore } from '../../server/store/provisioned-assets';
import { openTestStore, type TestStore } from '../db';
import { waitFor } from '../controllers/fixtures';
import { btrfsClass } from './fixture';

const POOL = '/srv/pool-wake';
let db: TestStore;
let controller: Controller;

beforeAll(async () => {
  db = await openTestStore();
  const store = db.store;
  await store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'wake' } });
  await store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kube-system' } }).catch(() => {});
  await store.create(btrfsClass('pooled-wake', POOL));
  await store.create({
    apiVersion: 'storage.k8s.io/v1',
    kind: 'CSIStorageCapacity',
    metadata: { name: 'wake-node', namespace: 'kube-system', labels: { [labelPoolNode]: 'node-wake' } },
    storageClassName: 'pooled-wake',
    nodeTopology: { matchLabels: { [labelHostname]: 'node-wake' } },
    capacity: '1Gi',
  });
  const assets = new AssetStore(store);
  const capacities = async () => (await store.list('CSIStorageCapacity')).items;
  const plugin = createBtrfsPlugin({ assets, capacities, createRetryMs: 120_000, createRetryMaxMs: 120_000 });
  const deps = provisioningDeps({ app: { store }, nodeName: '', plugins: new Map([[btrfsProvisioner, plugin]]), log: logger.child({ test: 'wakeup' }) });
  controller = new Controller(provisionerSpec(deps, { resyncMs: 600_000 }), { store, log: logger });
  await controller.start();
});

afterAll(async () => {
  await controller?.stop();
  await db?.close();
});

describe('the provisioner and the agent', () => {
  it("saves the PV as soon as the agent reports the subvolume made, not at the plugin's next look", async () => {
    const claim = await db.store.create({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'c1', namespace: 'wake', annotations: { [annStorageProvisioner]: btrfsProvisioner } },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '8Mi' } }, storageClassName: 'pooled-wake' },
    });
    const pvName = `pvc-${claim.metadata.uid}`;
    const assets = new AssetStore(db.store);
    await waitFor('the intent record', async () => (await assets.get(btrfsProvisioner, pvName))?.state === 'creating', 20_000);
    // The agent of node-wake made it and says so, through the service its API calls.
    const t0 = Date.now();
    await new NodePoolService(db.store).volumeDone({ type: 'node', nodeName: 'node-wake' }, 'node-wake', pvName, { state: 'present', limitBytes: String(8 << 20) });
    await waitFor('the PV', async () => Boolean(await db.store.tryGet('PersistentVolume', undefined, pvName)), 15_000);
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect((await assets.get(btrfsProvisioner, pvName))?.details.pvUid).toBeTruthy();
  });
});

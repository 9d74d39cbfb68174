// The README's kubectl path for snapshots on host-path volumes: an admin applies the
// StorageClass and a default VolumeSnapshotClass; the developer snapshots a claim, waits for
// readyToUse with `kubectl wait`, restores it and clones the claim, and reads the data back.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { binderSpec } from '../../server/controllers/binder/binder';
import { provisioningDeps, provisioningSpecs } from '../../server/controllers/provisioning-start';
import { Manager } from '../../server/controllers/runtime/manager';
import { snapshotControllerSpec } from '../../server/controllers/snapshot/snapshot';
import { inTreeProvisionerNames } from '../../server/domain/provisioner-capabilities';
import { logger } from '../../server/services/logger';
import { DEV_NAMESPACE, findKubectl, kubectlSuite } from '../kube/harness';
import { waitFor } from '../provisioning/harness';
import { EventRecorder } from '../../server/services/event-recorder';
import { snapshotControllerComponent } from '../../server/domain/well-known/components';

const bin = findKubectl();
if (!bin) console.log('skipping snapshot kubectl path: no kubectl on PATH');

describe.skipIf(!bin)('snapshots with kubectl (the README path)', () => {
  const { h, kubectl, ok } = kubectlSuite(bin!);
  let manager: Manager;
  let base: string;
  beforeAll(async () => {
    base = await fs.mkdtemp(path.join(os.tmpdir(), 'stowage-snap-kubectl-'));
    const { ts } = h();
    const log = logger.child({ test: 'snapshots-kubectl' });
    const d = provisioningDeps({ app: ts, nodeName: 'node-1', log });
    manager = new Manager({
      store: ts.store,
      log,
      leaderElection: false,
      specs: () => [
        binderSpec({ store: ts.store, log, events: d.events, pendingGraceMs: 0, resyncMs: 1000, inTreeProvisioners: inTreeProvisionerNames }),
        ...provisioningSpecs(d, { retryBaseMs: 50, retryMaxMs: 1000, resyncMs: 1000 }),
        snapshotControllerSpec({ store: ts.store, log, events: new EventRecorder(ts.store, snapshotControllerComponent, log) }, { resyncMs: 1000 }),
      ],
    });
    await manager.start();
  });
  afterAll(async () => {
    await manager?.stop();
    if (base) await fs.rm(base, { recursive: true, force: true });
  });

  const dataDir = async (claim: string) => {
    const pv = (await ok(['get', 'pvc', '-n', DEV_NAMESPACE, claim, '-o', 'jsonpath={.spec.volumeName}'])).trim();
    return (await ok(['get', 'pv', pv, '-o', 'jsonpath={.spec.hostPath.path}'])).trim();
  };
  const phase = async (claim: string) => (await kubectl(['get', 'pvc', claim, '-o', 'jsonpath={.status.phase}'], { user: 'dev' })).stdout;

  test('apply the classes, snapshot a claim, restore it, clone it, read the data back', async () => {
    await ok(['apply', '-f', '-'], {
      input: `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: dirs}
provisioner: stowage.io/host-path
parameters: {basePath: ${base}}
---
apiVersion: snapshot.storage.k8s.io/v1
kind: VolumeSnapshotClass
metadata:
  name: dirs-snap
  annotations: {snapshot.storage.kubernetes.io/is-default-class: "true"}
driver: stowage.io/host-path
deletionPolicy: Delete
`,
    });
    await ok(['apply', '-f', '-'], { user: 'dev', input: 'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data}\nspec: {accessModes: [ReadWriteOnce], storageClassName: dirs, resources: {requests: {storage: 1Gi}}}\n' });
    await waitFor('data Bound', async () => (await phase('data')) === 'Bound');
    const dir = await dataDir('data');
    await fs.writeFile(path.join(dir, 'a.txt'), 'first\n');

    await ok(['apply', '-f', '-'], { user: 'dev', input: 'apiVersion: snapshot.storage.k8s.io/v1\nkind: VolumeSnapshot\nmetadata: {name: data-1}\nspec: {source: {persistentVolumeClaimName: data}}\n' });
    expect(await ok(['wait', 'vs/data-1', '--for=jsonpath={.status.readyToUse}=true', '--timeout=60s'], { user: 'dev' })).toBe('volumesnapshot.snapshot.storage.k8s.io/data-1 condition met\n');
    const listed = await ok(['get', 'vs'], { user: 'dev' });
    expect(listed).toMatch(/^data-1\s+true\s+data\s+1Gi\s+dirs-snap\s+snapcontent-\S+\s+\S+\s+\S+$/m);

    // A pre-provisioned content of the same snapshot: the snapshotter fills its status from the
    // driver (upstream checkandUpdateContentStatus), and the snapshot bound to it becomes ready.
    const handle = (await ok(['get', 'vs', 'data-1', '-o', 'jsonpath={.status.boundVolumeSnapshotContentName}'], { user: 'dev' })).trim();
    const snapshotHandle = (await ok(['get', 'vsc', handle, '-o', 'jsonpath={.status.snapshotHandle}'])).trim();
    expect(snapshotHandle).not.toBe('');
    await ok(['apply', '-f', '-'], {
      input: `apiVersion: snapshot.storage.k8s.io/v1
kind: VolumeSnapshotContent
metadata: {name: imported}
spec:
  deletionPolicy: Retain
  driver: stowage.io/host-path
  source: {snapshotHandle: ${snapshotHandle}}
  volumeSnapshotRef: {name: imported, namespace: ${DEV_NAMESPACE}}
`,
    });
    await ok(['apply', '-f', '-'], { user: 'dev', input: 'apiVersion: snapshot.storage.k8s.io/v1\nkind: VolumeSnapshot\nmetadata: {name: imported}\nspec: {source: {volumeSnapshotContentName: imported}}\n' });
    expect(await ok(['wait', 'vs/imported', '--for=jsonpath={.status.readyToUse}=true', '--timeout=60s'], { user: 'dev' })).toBe('volumesnapshot.snapshot.storage.k8s.io/imported condition met\n');
    expect((await ok(['get', 'vsc', 'imported', '-o', 'jsonpath={.status.readyToUse} {.status.snapshotHandle} {.status.restoreSize}'])).trim()).toBe(`true ${snapshotHandle} 1073741824`);
    expect((await ok(['get', 'vs', 'imported', '-o', 'jsonpath={.status.restoreSize}'], { user: 'dev' })).trim()).toBe('1Gi');
    expect((await ok(['get', 'vs', 'imported', '-o', 'jsonpath={.status.creationTime}'], { user: 'dev' })).trim()).toMatch(/^\d{4}-\d\d-\d\dT/);
    // A restore from it reads the snapshot its handle names.
    await ok(['apply', '-f', '-'], {
      user: 'dev',
      input: 'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: from-imported}\nspec: {accessModes: [ReadWriteOnce], storageClassName: dirs, resources: {requests: {storage: 1Gi}}, dataSource: {apiGroup: snapshot.storage.k8s.io, kind: VolumeSnapshot, name: imported}}\n',
    });
    await waitFor('from-imported Bound', async () => (await phase('from-imported')) === 'Bound', 30_000);
    expect(await fs.readFile(path.join(await dataDir('from-imported'), 'a.txt'), 'utf8')).toBe('first\n');
    await ok(['delete', 'pvc/from-imported'], { user: 'dev' });
    // Retain: the content stays after its snapshot; deleted, it leaves the snapshot to data-1's content.
    await ok(['delete', 'vs/imported'], { user: 'dev' });
    await ok(['delete', 'vsc/imported']);
    await waitFor('the imported content gone', async () => !(await ok(['get', 'vsc', '-o', 'name'])).includes('imported'));
    expect(await fs.readdir(path.join(base, '.snapshots'))).toHaveLength(1);

    await fs.writeFile(path.join(dir, 'a.txt'), 'second\n');

    await ok(['apply', '-f', '-'], {
      user: 'dev',
      input: `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: restored}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: dirs
  resources: {requests: {storage: 1Gi}}
  dataSource: {apiGroup: snapshot.storage.k8s.io, kind: VolumeSnapshot, name: data-1}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: copy}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: dirs
  resources: {requests: {storage: 1Gi}}
  dataSource: {kind: PersistentVolumeClaim, name: data}
`,
    });
    await waitFor('restored and copy Bound', async () => (await phase('restored')) === 'Bound' && (await phase('copy')) === 'Bound', 30_000);
    expect(await fs.readFile(path.join(await dataDir('restored'), 'a.txt'), 'utf8')).toBe('first\n');
    expect(await fs.readFile(path.join(await dataDir('copy'), 'a.txt'), 'utf8')).toBe('second\n');

    await ok(['delete', 'vs/data-1'], { user: 'dev' });
    await waitFor('the snapshot content gone', async () => (await ok(['get', 'vsc', '-o', 'name'])).trim() === '');
    expect(await fs.readdir(path.join(base, '.snapshots'))).toEqual([]);
  }, 120_000);

  // external-snapshotter: the class's snapshotter Secret, as deletion-secret annotations on the
  // dynamic content, read by the snapshotter to take and to delete the snapshot.
  test('a class with a snapshotter Secret: the content names it, the snapshotter needs it', async () => {
    await ok(['apply', '-f', '-'], {
      input: `apiVersion: v1
kind: Secret
metadata: {name: snap-1-creds, namespace: ${DEV_NAMESPACE}}
stringData: {token: planted-value}
---
apiVersion: snapshot.storage.k8s.io/v1
kind: VolumeSnapshotClass
metadata: {name: secret-snap}
driver: stowage.io/host-path
deletionPolicy: Delete
parameters:
  csi.storage.k8s.io/snapshotter-secret-name: \${volumesnapshot.name}-creds
  csi.storage.k8s.io/snapshotter-secret-namespace: \${volumesnapshot.namespace}
`,
    });
    await ok(['apply', '-f', '-'], { user: 'dev', input: 'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: sec}\nspec: {accessModes: [ReadWriteOnce], storageClassName: dirs, resources: {requests: {storage: 1Gi}}}\n' });
    await waitFor('sec Bound', async () => (await phase('sec')) === 'Bound');
    await ok(['apply', '-f', '-'], { user: 'dev', input: 'apiVersion: snapshot.storage.k8s.io/v1\nkind: VolumeSnapshot\nmetadata: {name: snap-1}\nspec: {volumeSnapshotClassName: secret-snap, source: {persistentVolumeClaimName: sec}}\n' });
    expect(await ok(['wait', 'vs/snap-1', '--for=jsonpath={.status.readyToUse}=true', '--timeout=60s'], { user: 'dev' })).toBe('volumesnapshot.snapshot.storage.k8s.io/snap-1 condition met\n');
    const content = (await ok(['get', 'vs', 'snap-1', '-o', 'jsonpath={.status.boundVolumeSnapshotContentName}'], { user: 'dev' })).trim();
    const ann = JSON.parse(await ok(['get', 'vsc', content, '-o', 'jsonpath={.metadata.annotations}'])) as Record<string, string>;
    expect(ann['snapshot.storage.kubernetes.io/deletion-secret-name']).toBe('snap-1-creds');
    expect(ann['snapshot.storage.kubernetes.io/deletion-secret-namespace']).toBe(DEV_NAMESPACE);

    // Without its Secret the snapshotter cannot take a snapshot: upstream's words, no value shown.
    await ok(['apply', '-f', '-'], { user: 'dev', input: 'apiVersion: snapshot.storage.k8s.io/v1\nkind: VolumeSnapshot\nmetadata: {name: snap-2}\nspec: {volumeSnapshotClassName: secret-snap, source: {persistentVolumeClaimName: sec}}\n' });
    const uid = (await ok(['get', 'vs', 'snap-2', '-o', 'jsonpath={.metadata.uid}'], { user: 'dev' })).trim();
    const contentError = async () => (await kubectl(['get', 'vsc', `snapcontent-${uid}`, '-o', 'jsonpath={.status.error.message}'])).stdout;
    await waitFor('the missing Secret reported', async () => (await contentError()).includes('cannot get credentials'));
    expect(await contentError()).toBe(`Failed to create snapshot: failed to get input parameters to create snapshot for content snapcontent-${uid}: "cannot get credentials for snapshot content \\"snapcontent-${uid}\\""`);
    expect(await ok(['get', 'vs', 'snap-2', '-o', 'yaml'], { user: 'dev' })).not.toContain('planted-value');

    await ok(['delete', 'vs/snap-1', 'vs/snap-2'], { user: 'dev' });
    await waitFor('both contents gone', async () => !/snapcontent-/.test(await ok(['get', 'vsc', '-o', 'name'])));
    await ok(['delete', 'pvc/sec'], { user: 'dev' });
  }, 90_000);

  // external-snapshotter createSnapshotContent: ensurePVCFinalizer comes before everything else.
  test('a snapshot of a missing claim and of a Pending claim: upstream\'s words, the Pending claim protected first', async () => {
    await ok(['apply', '-f', '-'], { input: 'apiVersion: snapshot.storage.k8s.io/v1\nkind: VolumeSnapshotClass\nmetadata: {name: journey-snap}\ndriver: stowage.io/host-path\ndeletionPolicy: Delete\n' });
    const snapError = async (name: string) => (await kubectl(['get', 'vs', name, '-o', 'jsonpath={.status.error.message}'], { user: 'dev' })).stdout;
    await ok(['apply', '-f', '-'], { user: 'dev', input: 'apiVersion: snapshot.storage.k8s.io/v1\nkind: VolumeSnapshot\nmetadata: {name: ghost}\nspec: {volumeSnapshotClassName: journey-snap, source: {persistentVolumeClaimName: nothing}}\n' });
    const ghost = 'Failed to create snapshot content with error snapshot controller failed to update ghost on API server: cannot get claim from snapshot';
    await waitFor('the missing claim reported', async () => (await snapError('ghost')) === ghost);

    await ok(['apply', '-f', '-'], { user: 'dev', input: 'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: waiting}\nspec: {accessModes: [ReadWriteOnce], storageClassName: not-yet, resources: {requests: {storage: 1Gi}}}\n' });
    await ok(['apply', '-f', '-'], { user: 'dev', input: 'apiVersion: snapshot.storage.k8s.io/v1\nkind: VolumeSnapshot\nmetadata: {name: early}\nspec: {volumeSnapshotClassName: journey-snap, source: {persistentVolumeClaimName: waiting}}\n' });
    const early = 'Failed to create snapshot content with error failed to get input parameters to create snapshot early: "the PVC waiting is not yet bound to a PV, will not attempt to take a snapshot"';
    await waitFor('the Pending claim reported', async () => (await snapError('early')) === early);
    const finalizers = async () => (await ok(['get', 'pvc', 'waiting', '-o', 'jsonpath={.metadata.finalizers}'], { user: 'dev' }));
    expect(await finalizers()).toContain('snapshot.storage.kubernetes.io/pvc-as-source-protection');

    // The snapshot goes: so does the claim's protection.
    await ok(['delete', 'vs/early', 'vs/ghost'], { user: 'dev' });
    await waitFor('the claim released', async () => !(await finalizers()).includes('pvc-as-source-protection'));
    await ok(['delete', 'pvc/waiting'], { user: 'dev' });
  }, 60_000);
});

// The proof that anyone can write a provisioner for Stowage the way they would for
// Kubernetes: the example in examples/external-dir-provisioner runs as its own process
// against Stowage's REST API (by kubeconfig), while Stowage runs the binder, the deleter
// (which must leave the example's volumes alone) and PV protection.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AppContext } from '../../server/wiring/context';
import { startProvisioningControllers, type RunningProvisioning } from '../../server/controllers/provisioning-start';
import { startControllers, type RunningControllers } from '../../server/controllers/start';
import { startKubeHarness, DEV_NAMESPACE, type KubeHarness } from '../kube/harness';
import { exists, waitFor } from './harness';

const NAME = 'example.com/dir';
let h: KubeHarness;
let binder: RunningControllers;
let provisioning: RunningProvisioning;
let child: ChildProcess | undefined;
let output = '';
let root: string;

beforeAll(async () => {
  h = await startKubeHarness();
  const app = { ...h.app, close: async () => {} } as AppContext;
  binder = await startControllers({ app, connectionString: h.ts.url, leaderElection: false, pendingGraceMs: 0 });
  provisioning = await startProvisioningControllers({ app, leaderElection: false, retryBaseMs: 100, resyncMs: 2000 });
  root = path.join(h.dir, 'example-volumes');
  await fs.mkdir(root);
  const main = path.resolve('examples/external-dir-provisioner/main.ts');
  child = spawn(process.execPath, ['--import', 'tsx', main, '--kubeconfig', h.kubeconfig.admin, '--name', NAME, '--root', root, '--node', 'node-e2e', '--resync-seconds', '2'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  await waitFor('the example provisioner to watch', async () => output.includes('watching claims') || (child!.exitCode !== null && Promise.reject(new Error(output))), 30_000);
});

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
    if (child.exitCode === null) child.kill('SIGKILL');
  }
  await provisioning?.stop();
  await binder?.stop();
  await h?.close();
});

it('a claim of the example class becomes Bound; deleting it removes the directory and the PV', async () => {
  const store = h.ts.store;
  await store.create({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'example-dir' }, provisioner: NAME, parameters: { mode: '0750' } });
  const claim = await store.create({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'ext-data', namespace: DEV_NAMESPACE },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'example-dir' },
  });
  const pvName = `pvc-${claim.metadata.uid}`;
  const bound = await waitFor(
    'the claim to be Bound',
    async () => {
      const c = await store.tryGet('PersistentVolumeClaim', DEV_NAMESPACE, 'ext-data');
      return c?.status?.phase === 'Bound' ? c : undefined;
    },
    30_000,
  ).catch((e) => Promise.reject(new Error(`${e.message}\nprovisioner output:\n${output}`)));
  expect(bound.spec!.volumeName).toBe(pvName);
  const pv = await store.get('PersistentVolume', undefined, pvName);
  const dir = path.join(root, pvName);
  expect(pv.metadata.annotations).toMatchObject({ 'pv.kubernetes.io/provisioned-by': NAME });
  expect(pv.spec).toMatchObject({ hostPath: { path: dir }, claimRef: { uid: claim.metadata.uid }, persistentVolumeReclaimPolicy: 'Delete', storageClassName: 'example-dir' });
  expect(pv.metadata.finalizers).toContain('kubernetes.io/pv-protection');
  expect((await fs.stat(dir)).mode & 0o777).toBe(0o750);
  // The provisioner records its event after it saved the PV, so the binder may bind first.
  const reasons = await waitFor('the ProvisioningSucceeded event', async () => {
    const events = await store.list('Event', { namespace: DEV_NAMESPACE, fieldSelector: 'involvedObject.name=ext-data' });
    const seen = events.items.map((e) => e.reason);
    return seen.includes('ProvisioningSucceeded') ? seen : undefined;
  });
  expect(reasons).toEqual(expect.arrayContaining(['ExternalProvisioning', 'ProvisioningSucceeded']));

  await store.delete('PersistentVolumeClaim', DEV_NAMESPACE, 'ext-data');
  await waitFor('the PV to be gone', async () => (await store.tryGet('PersistentVolume', undefined, pvName)) === undefined, 30_000);
  expect(await exists(dir)).toBe(false);
  // Stowage's own deleter left it to the example: nothing was recorded as Stowage's asset.
  expect(await provisioning.assets.count()).toBe(0);
});

it('the example refuses what it does not understand, with an Event and no directory', async () => {
  const store = h.ts.store;
  await store.create({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'example-bad' }, provisioner: NAME, parameters: { replicas: '3' } });
  const bad = await store.create({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'ext-bad', namespace: DEV_NAMESPACE },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'example-bad' },
  });
  const failed = await waitFor('a ProvisioningFailed event', async () => {
    const events = await store.list('Event', { namespace: DEV_NAMESPACE, fieldSelector: 'involvedObject.name=ext-bad' });
    return events.items.find((e) => e.reason === 'ProvisioningFailed');
  });
  expect(failed.message).toBe('unknown parameter "replicas"');
  expect(await fs.readdir(root)).not.toContain(`pvc-${bad.metadata.uid}`);
});

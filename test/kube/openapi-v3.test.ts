// /openapi/v3 as kubectl reads it: the list of group-version documents, each document
// found by its hash, and `kubectl explain` describing what Stowage accepts.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { apiClient } from './api-client';
import { findKubectl, kubectlFor, startKubeHarness, type Kubectl, type KubeHarness } from './harness';

const bin = findKubectl();
if (!bin) console.log('skipping the kubectl explain tests: no kubectl on PATH (set KUBECTL to a binary to run them)');

let h: KubeHarness;
beforeAll(async () => {
  h = await startKubeHarness();
});
afterAll(async () => {
  await h?.close();
});

async function getJson(path: string): Promise<{ status: number; body: any; location?: string }> {
  const r = await apiClient(h)({ path });
  return { status: r.status, body: r.json, location: r.headers.location as string | undefined };
}

describe('the documents', () => {
  test('/openapi/v3 lists a document per group-version, each served by its hash with the kinds and their lists', async () => {
    const list = await getJson('/openapi/v3');
    expect(list.status).toBe(200);
    expect(Object.keys(list.body.paths).sort()).toEqual(['api/v1', 'apis/snapshot.storage.k8s.io/v1', 'apis/snapshot.stowage.io/v1', 'apis/storage.k8s.io/v1', 'apis/stowage.io/v1']);
    const url: string = list.body.paths['apis/storage.k8s.io/v1'].serverRelativeURL;
    expect(url).toMatch(/^\/openapi\/v3\/apis\/storage\.k8s\.io\/v1\?hash=[0-9A-F]{64}$/);
    const doc = await getJson(url);
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe('3.0.0');
    const sc = doc.body.components.schemas['io.k8s.api.storage.v1.StorageClass'];
    expect(sc['x-kubernetes-group-version-kind']).toEqual([{ group: 'storage.k8s.io', kind: 'StorageClass', version: 'v1' }]);
    expect(sc.properties.volumeBindingMode.description).toMatch(/WaitForFirstConsumer/);
    expect(doc.body.components.schemas['io.k8s.api.storage.v1.StorageClassList'].properties.items.items.$ref).toBe('#/components/schemas/io.k8s.api.storage.v1.StorageClass');
    const core = await getJson(list.body.paths['api/v1'].serverRelativeURL);
    const pv = core.body.components.schemas['io.k8s.api.core.v1.PersistentVolume'];
    expect(Object.keys(pv.properties.spec.properties)).toEqual(expect.arrayContaining(['capacity', 'accessModes', 'local', 'hostPath', 'nodeAffinity', 'claimRef']));
    // The snapshot kinds are CRDs upstream: named by their reversed group, as a CRD's OpenAPI names them.
    const snap = await getJson(list.body.paths['apis/snapshot.storage.k8s.io/v1'].serverRelativeURL);
    expect(Object.keys(snap.body.components.schemas).filter((n) => !n.endsWith('List')).sort()).toEqual([
      'io.k8s.storage.snapshot.v1.VolumeSnapshot',
      'io.k8s.storage.snapshot.v1.VolumeSnapshotClass',
      'io.k8s.storage.snapshot.v1.VolumeSnapshotContent',
    ]);
    // Stowage's own kind, named as a CRD's would be in a real cluster.
    const sched = await getJson(list.body.paths['apis/snapshot.stowage.io/v1'].serverRelativeURL);
    expect(Object.keys(sched.body.components.schemas).sort()).toEqual(['io.stowage.snapshot.v1.SnapshotSchedule', 'io.stowage.snapshot.v1.SnapshotScheduleList']);
  });

  test('PATCH names fieldValidation and dryRun, and leaves strategic merge to kubectl built-in types', async () => {
    const list = await getJson('/openapi/v3');
    const core = await getJson(list.body.paths['api/v1'].serverRelativeURL);
    const patch = core.body.paths['/api/v1/persistentvolumes/{name}'].patch;
    expect(patch['x-kubernetes-group-version-kind']).toEqual({ group: '', kind: 'PersistentVolume', version: 'v1' });
    expect(patch.parameters.map((p: any) => `${p.in}:${p.name}`)).toEqual(expect.arrayContaining(['query:fieldValidation', 'query:dryRun']));
    expect(Object.keys(patch.requestBody.content)).not.toContain('application/strategic-merge-patch+json');
    expect(Object.keys(patch.requestBody.content)).toContain('application/apply-patch+yaml');
  });

  test('an old hash is sent to the current document; an unknown group-version is 404', async () => {
    const old = await getJson('/openapi/v3/api/v1?hash=0000');
    expect(old.status).toBe(301);
    expect(old.location).toMatch(/^\/openapi\/v3\/api\/v1\?hash=[0-9A-F]{64}$/);
    expect((await getJson('/openapi/v3/apis/nothing.example.com/v1')).status).toBe(404);
  });
});

describe.skipIf(!bin)('kubectl explain', () => {
  let kubectl: Kubectl;
  beforeAll(() => {
    kubectl = kubectlFor(h, bin!);
  });

  test.each([
    { args: ['explain', 'pv'], want: ['KIND:       PersistentVolume', 'VERSION:    v1', 'A piece of storage in the cluster', 'spec\t<Object>'] },
    { args: ['explain', 'pvc.spec.resources'], want: ['KIND:       PersistentVolumeClaim', 'FIELD: resources <Object>', 'requests'] },
    { args: ['explain', 'storageclass.volumeBindingMode'], want: ['KIND:       StorageClass', 'GROUP:      storage.k8s.io', 'WaitForFirstConsumer'] },
    { args: ['explain', 'storageclass', '--recursive'], want: ['provisioner\t<string>', 'allowVolumeExpansion\t<boolean>', 'metadata\t<Object>'] },
  ])('kubectl $args', async ({ args, want }) => {
    const r = await kubectl(args);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    for (const w of want) expect(r.stdout).toContain(w);
  });
});

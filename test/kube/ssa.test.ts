// Server-side apply through the REST API and with real kubectl (the one on PATH, and
// kubectl 1.20 when it is there): create by apply, re-apply unchanged, a conflict between
// two managers, taking over with force, and a field dropped from the applied config.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { apiClient } from './api-client';
import { findKubectl, kubectlFor, startKubeHarness, type KubeHarness } from './harness';

const bin = findKubectl();
if (!bin) console.log('skipping the kubectl server-side apply tests: no kubectl on PATH');
const legacy = [process.env.KUBECTL_1_20, '/opt/kubectl-1.20/usr/bin/kubectl'].find((p): p is string => !!p && existsSync(p));
if (!legacy) console.log('skipping the kubectl 1.20 server-side apply test: no kubectl 1.20 (see test/kube/kubectl-legacy.test.ts)');

let h: KubeHarness;
beforeAll(async () => {
  h = await startKubeHarness();
});
afterAll(async () => {
  await h?.close();
});

const APPLY = 'application/apply-patch+yaml';

function classYaml(name: string, labels: Record<string, string>): string {
  const l = Object.entries(labels).map(([k, v]) => `    ${k}: "${v}"`).join('\n');
  return `apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: ${name}\n  labels:\n${l}\nprovisioner: example.com/nfs\n`;
}

describe('the REST API', () => {
  const path = (name: string, q: string) => `/apis/storage.k8s.io/v1/storageclasses/${name}?${q}`;

  test('apply creates (201), records its manager, and answers 200 unchanged when applied again', async () => {
    const api = apiClient(h);
    const body = classYaml('ssa-rest', { app: 'one' });
    const created = await api({ method: 'PATCH', path: path('ssa-rest', 'fieldManager=tool'), body, headers: { 'Content-Type': APPLY } });
    expect(created.status).toBe(201);
    expect(created.json.metadata.managedFields).toEqual([
      expect.objectContaining({ manager: 'tool', operation: 'Apply', apiVersion: 'storage.k8s.io/v1', fieldsType: 'FieldsV1' }),
    ]);
    expect(created.json.metadata.managedFields[0].fieldsV1).toEqual({ 'f:metadata': { 'f:labels': { 'f:app': {} } }, 'f:provisioner': {} });
    const again = await api({ method: 'PATCH', path: path('ssa-rest', 'fieldManager=tool'), body, headers: { 'Content-Type': APPLY } });
    expect(again.status).toBe(200);
    expect(again.json.metadata.resourceVersion).toBe(created.json.metadata.resourceVersion);
  });

  test('a second manager: 409 with the FieldManagerConflict cause; force takes the field', async () => {
    const api = apiClient(h);
    await api({ method: 'PATCH', path: path('ssa-two', 'fieldManager=first'), body: classYaml('ssa-two', { app: 'one' }), headers: { 'Content-Type': APPLY } });
    const clash = await api({ method: 'PATCH', path: path('ssa-two', 'fieldManager=second'), body: classYaml('ssa-two', { app: 'two' }), headers: { 'Content-Type': APPLY } });
    expect(clash.status).toBe(409);
    expect(clash.json).toMatchObject({
      kind: 'Status',
      reason: 'Conflict',
      message: 'Apply failed with 1 conflict: conflict with "first" using storage.k8s.io/v1: .metadata.labels.app',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "first" using storage.k8s.io/v1', field: '.metadata.labels.app' }] },
    });
    const forced = await api({ method: 'PATCH', path: path('ssa-two', 'fieldManager=second&force=true'), body: classYaml('ssa-two', { app: 'two' }), headers: { 'Content-Type': APPLY } });
    expect(forced.status).toBe(200);
    expect(forced.json.metadata.labels).toEqual({ app: 'two' });
    const managers = forced.json.metadata.managedFields.map((e: any) => e.manager);
    expect(managers).toEqual(['first', 'second']);
  });

  test.each([
    { what: 'no fieldManager', q: '', status: 400, message: 'PATCH, application/apply-patch+yaml requires fieldManager to be set' },
    { what: 'a bad force value', q: 'fieldManager=x&force=maybe', status: 400, message: 'force: invalid value "maybe"' },
  ])('$what: $status', async ({ q, status, message }) => {
    const r = await apiClient(h)({ method: 'PATCH', path: path('ssa-bad', q), body: classYaml('ssa-bad', { a: 'b' }), headers: { 'Content-Type': APPLY } });
    expect(r.status).toBe(status);
    expect(r.json.message).toBe(message);
  });

  test('dry run: the answer shows the result, nothing is stored', async () => {
    const r = await apiClient(h)({ method: 'PATCH', path: path('ssa-dry', 'fieldManager=x&dryRun=All'), body: classYaml('ssa-dry', { a: 'b' }), headers: { 'Content-Type': APPLY } });
    expect(r.status).toBe(201);
    expect((await apiClient(h)({ path: '/apis/storage.k8s.io/v1/storageclasses/ssa-dry' })).status).toBe(404);
  });

  test('managedFields are for admins: a developer reading an applied claim does not see them', async () => {
    const claim = 'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: ssa-claim\n  namespace: team-a\nspec:\n  accessModes: [ReadWriteOnce]\n  resources:\n    requests:\n      storage: 1Gi\n';
    const created = await apiClient(h)({ method: 'PATCH', token: 'dev', path: '/api/v1/namespaces/team-a/persistentvolumeclaims/ssa-claim?fieldManager=dev-tool', body: claim, headers: { 'Content-Type': APPLY } });
    expect(created.status).toBe(201);
    expect(created.json.metadata.managedFields).toBeUndefined();
    const stored = await h.ts.store.get('PersistentVolumeClaim', 'team-a', 'ssa-claim');
    expect(stored.metadata.managedFields?.[0]).toMatchObject({ manager: 'dev-tool', operation: 'Apply' });
  });
});

describe.skipIf(!bin)('writes that are not applies', () => {
  test('kubectl create and kubectl label record Update entries; an apply then conflicts with the labeller', async () => {
    const kubectl = kubectlFor(h, bin!);
    expect((await kubectl(['create', '-f', '-'], { input: classYaml('ssa-mixed', { app: 'one' }) })).code).toBe(0);
    expect((await kubectl(['label', 'storageclass', 'ssa-mixed', 'app=two', '--overwrite'])).code).toBe(0);
    const yaml = await kubectl(['get', 'storageclass', 'ssa-mixed', '-o', 'json', '--show-managed-fields']);
    const entries = JSON.parse(yaml.stdout).metadata.managedFields.map((e: any) => `${e.manager}/${e.operation}`);
    expect(entries).toEqual(['kubectl-create/Update', 'kubectl-label/Update']);
    const clash = await kubectl(['apply', '--server-side', '-f', '-'], { input: classYaml('ssa-mixed', { app: 'three' }) });
    expect(clash.code).not.toBe(0);
    expect(clash.stderr).toContain('conflict with "kubectl-label" using storage.k8s.io/v1: .metadata.labels.app');
  });
});

describe.each([
  { name: 'kubectl', path: bin },
  { name: 'kubectl 1.20', path: legacy },
])('$name apply --server-side', ({ name, path: kubectlPath }) => {
  test.skipIf(!kubectlPath)('twice (unchanged), a conflict with another manager, then --force-conflicts', async () => {
    const kubectl = kubectlFor(h, kubectlPath!);
    const sc = name === 'kubectl' ? 'ssa-kubectl' : 'ssa-kubectl-legacy';
    const first = await kubectl(['apply', '--server-side', '-f', '-'], { input: classYaml(sc, { app: 'one' }) });
    expect(first.stderr).toBe('');
    expect(first.stdout).toBe(`storageclass.storage.k8s.io/${sc} serverside-applied\n`);
    const second = await kubectl(['apply', '--server-side', '-f', '-'], { input: classYaml(sc, { app: 'one' }) });
    expect(second.code).toBe(0);
    expect(second.stdout).toBe(`storageclass.storage.k8s.io/${sc} serverside-applied\n`);
    const clash = await kubectl(['apply', '--server-side', '--field-manager=other', '-f', '-'], { input: classYaml(sc, { app: 'two' }) });
    expect(clash.code).not.toBe(0);
    expect(clash.stderr).toContain('Apply failed with 1 conflict: conflict with "kubectl" using storage.k8s.io/v1: .metadata.labels.app');
    const forced = await kubectl(['apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', '-'], { input: classYaml(sc, { app: 'two' }) });
    expect(forced.code).toBe(0);
    const got = await kubectl(['get', 'storageclass', sc, '-o', 'jsonpath={.metadata.labels.app}']);
    expect(got.stdout).toBe('two');
  });
});

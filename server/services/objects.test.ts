// Authorization through the service on a real store: what each role gets back.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openTestStore, type TestStore } from '../../test/db';
import type { Principal } from '../domain/authorization';
import { ObjectService } from './objects';
import { ofKind } from '../resources/of-kind';

let t: TestStore;
let svc: ObjectService;
const admin: Principal = { type: 'user', id: '1', name: 'root', role: 'admin', namespaces: [] };
const viewer: Principal = { type: 'user', id: '2', name: 'val', role: 'viewer', namespaces: [] };
const dev: Principal = { type: 'user', id: '3', name: 'dana', role: 'developer', namespaces: ['team-a'] };

const claim = (ns: string, name: string) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name, namespace: ns },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
});

beforeAll(async () => {
  t = await openTestStore();
  svc = new ObjectService(t.store);
  for (const ns of ['team-a', 'team-b']) await svc.create(admin, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await svc.create(admin, claim('team-a', 'mine'));
  await svc.create(admin, claim('team-b', 'theirs'));
  await svc.create(admin, {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: 'pv-auth' },
    spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/pv-auth' } },
  });
});
afterAll(async () => t?.close());

describe('a developer', () => {
  test('lists only the claims of their namespaces, across all namespaces', async () => {
    const res = await svc.list(dev, 'PersistentVolumeClaim');
    expect(res.items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`)).toEqual(['team-a/mine']);
  });
  test('asking for another namespace is Forbidden and names nothing in it', async () => {
    const err = await svc.list(dev, 'PersistentVolumeClaim', { namespace: 'team-b' }).catch((e) => e);
    expect(err.code).toBe('Forbidden');
    expect(err.message).not.toContain('theirs');
    await expect(svc.get(dev, 'PersistentVolumeClaim', 'team-b', 'theirs')).rejects.toMatchObject({ code: 'Forbidden' });
  });
  test('creates and deletes claims in their namespace, but not elsewhere', async () => {
    await expect(svc.create(dev, claim('team-a', 'new'))).resolves.toMatchObject({ metadata: { name: 'new' } });
    await expect(svc.create(dev, claim('team-b', 'new'))).rejects.toMatchObject({ code: 'Forbidden' });
    // Admission gave the claim kubernetes.io/pvc-protection: the delete marks it; the controller lets it go.
    const res = await svc.delete(dev, 'PersistentVolumeClaim', 'team-a', 'new');
    expect(res).toMatchObject({ deleted: false, object: { metadata: { finalizers: ['kubernetes.io/pvc-protection'] } } });
    expect(res.object?.metadata.deletionTimestamp).toBeTruthy();
  });
  test('reads storage classes', async () => {
    await expect(svc.list(dev, 'StorageClass')).resolves.toMatchObject({ items: expect.any(Array) });
  });
  test('may not read volumes or nodes', async () => {
    await expect(svc.list(dev, 'PersistentVolume')).rejects.toMatchObject({ code: 'Forbidden' });
    await expect(svc.get(dev, 'PersistentVolume', undefined, 'pv-auth')).rejects.toMatchObject({ code: 'Forbidden' });
    await expect(svc.list(dev, 'Node')).rejects.toMatchObject({ code: 'Forbidden' });
  });
  test('sees only their own namespace objects', async () => {
    const res = await svc.list(dev, 'Namespace');
    expect(res.items.map((o) => o.metadata.name)).toEqual(['team-a']);
  });
  test('watch delivers only what they may see', async () => {
    const from = (await t.store.currentResourceVersion()).toString();
    const ac = new AbortController();
    const it = svc.watch(dev, { kinds: ['PersistentVolumeClaim'], resourceVersion: from, signal: ac.signal });
    await svc.create(admin, claim('team-b', 'hidden'));
    await svc.create(admin, claim('team-a', 'shown'));
    const timer = setTimeout(() => ac.abort(), 10_000);
    const first = await it.next();
    clearTimeout(timer);
    ac.abort();
    expect(first.value?.name).toBe('shown');
  });
});

describe('StorageClass parameters that hold secrets', () => {
  test('are shown to admins only, in get, list and watch; names of Secrets are not secrets', async () => {
    const from = (await t.store.currentResourceVersion()).toString();
    await svc.create(admin, {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: 'secretive' },
      provisioner: 'example.com/csi',
      parameters: { fsType: 'ext4', 'csi.storage.k8s.io/provisioner-secret-name': 'db-creds', apiKey: 'k-123' },
    });
    const ref = 'csi.storage.k8s.io/provisioner-secret-name';
    expect((await svc.get(admin, 'StorageClass', undefined, 'secretive')).parameters!.apiKey).toBe('k-123');
    const got = await svc.get(dev, 'StorageClass', undefined, 'secretive');
    expect(got.parameters!.apiKey).toBe('(redacted)');
    expect(got.parameters![ref]).toBe('db-creds');
    const listed = ofKind((await svc.list(viewer, 'StorageClass')).items, 'StorageClass').find((o) => o.metadata.name === 'secretive');
    expect(listed?.parameters!.apiKey).toBe('(redacted)');
    expect(listed?.parameters!.fsType).toBe('ext4');
    const ac = new AbortController();
    const it = svc.watch(dev, { kinds: ['StorageClass'], resourceVersion: from, signal: ac.signal });
    const timer = setTimeout(() => ac.abort(), 10_000);
    const first = await it.next();
    clearTimeout(timer);
    ac.abort();
    expect(first.value?.object.parameters.apiKey).toBe('(redacted)');
  });
});

describe('a viewer', () => {
  test('reads everything and writes nothing', async () => {
    expect((await svc.list(viewer, 'PersistentVolumeClaim')).items.length).toBeGreaterThanOrEqual(2);
    await expect(svc.get(viewer, 'PersistentVolume', undefined, 'pv-auth')).resolves.toBeTruthy();
    await expect(svc.create(viewer, claim('team-a', 'nope'))).rejects.toMatchObject({ code: 'Forbidden' });
    await expect(svc.delete(viewer, 'PersistentVolume', undefined, 'pv-auth')).rejects.toMatchObject({ code: 'Forbidden' });
  });
});

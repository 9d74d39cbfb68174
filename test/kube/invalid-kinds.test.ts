// A create the kind's validation refuses, through the REST API: the 422's message names the
// group-qualified kind, as apimachinery's NewInvalid does
// (`VolumeSnapshot.snapshot.storage.k8s.io "x" is invalid: ...`); a core kind is named alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from './api-client';
import { DEV_NAMESPACE, startKubeHarness, type KubeHarness } from './harness';

let h: KubeHarness;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  h = await startKubeHarness();
  api = apiClient(h);
});
afterAll(async () => {
  await h?.close();
});

describe('NewInvalid names the group-qualified kind', () => {
  it('a VolumeSnapshot with two sources', async () => {
    const r = await api({
      method: 'POST',
      path: `/apis/snapshot.storage.k8s.io/v1/namespaces/${DEV_NAMESPACE}/volumesnapshots`,
      body: { apiVersion: 'snapshot.storage.k8s.io/v1', kind: 'VolumeSnapshot', metadata: { name: 'two' }, spec: { source: { persistentVolumeClaimName: 'a', volumeSnapshotContentName: 'b' } } },
    });
    expect(r.status).toBe(422);
    expect(r.json.message).toBe('VolumeSnapshot.snapshot.storage.k8s.io "two" is invalid: spec.source: Invalid value: "object": exactly one of volumeSnapshotContentName and persistentVolumeClaimName must be set');
    expect(r.json.details).toMatchObject({ name: 'two', group: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot' });
  });

  it('a PersistentVolumeClaim (core) without a size: the kind alone', async () => {
    const r = await api({
      method: 'POST',
      path: `/api/v1/namespaces/${DEV_NAMESPACE}/persistentvolumeclaims`,
      body: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'nosize' }, spec: { accessModes: ['ReadWriteOnce'] } },
    });
    expect(r.status).toBe(422);
    expect(r.json.message).toMatch(/^PersistentVolumeClaim "nosize" is invalid: /);
    expect(r.json.details.group).toBeUndefined();
  });
});

// A claim's data source through the REST API, as upstream's apiserver treats it on create:
// dataSource and dataSourceRef that disagree are reported on `spec`; a dataSource of another
// kind than a claim or a VolumeSnapshot is dropped unless dataSourceRef names it; a
// dataSourceRef naming a namespace is dropped (CrossNamespaceVolumeDataSource is off).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from './api-client';
import { DEV_NAMESPACE, startKubeHarness, type KubeHarness } from './harness';

let h: KubeHarness;
let api: ReturnType<typeof apiClient>;

const CLAIMS = `/api/v1/namespaces/${DEV_NAMESPACE}/persistentvolumeclaims`;
const claim = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: '', ...spec },
});
const generic = { apiGroup: 'generic.storage.k8s.io', kind: 'Generic', name: 'my-foo' };

beforeAll(async () => {
  h = await startKubeHarness();
  api = apiClient(h);
});
afterAll(async () => {
  await h?.close();
});

describe('claim data sources on create', () => {
  it('dataSource and dataSourceRef that disagree: one Invalid cause on spec, in upstream words', async () => {
    const body = claim('ds-mismatch', {
      dataSource: { kind: 'PersistentVolumeClaim', name: 'a' },
      dataSourceRef: { kind: 'PersistentVolumeClaim', name: 'b' },
    });
    const r = await api({ method: 'POST', path: CLAIMS, body });
    expect(r.status).toBe(422);
    expect(r.json.reason).toBe('Invalid');
    expect(r.json.details.causes).toEqual([{ reason: 'FieldValueInvalid', message: 'Invalid value: {}: must match dataSourceRef', field: 'spec' }]);
    expect(r.json.message).toBe('PersistentVolumeClaim "ds-mismatch" is invalid: spec: Invalid value: {}: must match dataSourceRef');
  });

  it.each([
    { obj: 'ds-generic-alone', name: 'a generic dataSource alone is dropped (EnforceDataSourceBackwardsCompatibility)', spec: { dataSource: generic }, want: {} },
    { obj: 'ds-core-alone', name: 'a core dataSource of another kind alone is dropped', spec: { dataSource: { kind: 'Pod', name: 'p' } }, want: {} },
    { obj: 'ds-generic-ref', name: 'a generic dataSourceRef is kept and mirrored (AnyVolumeDataSource)', spec: { dataSourceRef: generic }, want: { dataSource: generic, dataSourceRef: generic } },
    {
      obj: 'ds-xns-ref',
      name: 'a dataSourceRef naming a namespace is dropped (CrossNamespaceVolumeDataSource off)',
      spec: { dataSourceRef: { ...generic, namespace: 'elsewhere' } },
      want: {},
    },
    {
      obj: 'ds-snapshot',
      name: 'a VolumeSnapshot dataSource is kept and mirrored',
      spec: { dataSource: { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 's' } },
      want: {
        dataSource: { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 's' },
        dataSourceRef: { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 's' },
      },
    },
  ])('$name', async ({ obj: objName, spec, want }) => {
    const r = await api({ method: 'POST', path: CLAIMS, body: claim(objName, spec) });
    expect(r.status).toBe(201);
    const got = await api({ method: 'GET', path: `${CLAIMS}/${objName}` });
    expect({ dataSource: got.json.spec.dataSource, dataSourceRef: got.json.spec.dataSourceRef }).toEqual({
      dataSource: undefined,
      dataSourceRef: undefined,
      ...want,
    });
  });
});

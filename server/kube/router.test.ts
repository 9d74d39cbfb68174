import { expect, test } from 'vitest';
import { route } from './router';

const cases: [string, Record<string, unknown>][] = [
  ['/version', { type: 'version' }],
  ['/healthz', { type: 'health' }],
  ['/readyz/database', { type: 'health' }],
  ['/readyz/a/b', { type: 'notFound' }],
  ['/api', { type: 'api' }],
  ['/apis', { type: 'apis' }],
  ['/api/v1', { type: 'groupVersion', group: '', version: 'v1' }],
  ['/apis/storage.k8s.io', { type: 'group', group: 'storage.k8s.io' }],
  ['/apis/storage.k8s.io/v1', { type: 'groupVersion', group: 'storage.k8s.io', version: 'v1' }],
  ['/openapi/v2', { type: 'openapi', version: 'v2' }],
  ['/openapi/v3', { type: 'openapi', version: 'v3' }],
  ['/api/v1/persistentvolumes', { type: 'resource', kind: 'PersistentVolume', watchPath: false }],
  ['/api/v1/persistentvolumes/pv1', { type: 'resource', kind: 'PersistentVolume', name: 'pv1' }],
  ['/api/v1/persistentvolumes/pv1/status', { type: 'resource', kind: 'PersistentVolume', name: 'pv1', subresource: 'status' }],
  ['/api/v1/persistentvolumeclaims', { type: 'resource', kind: 'PersistentVolumeClaim', namespace: undefined }],
  ['/api/v1/namespaces/ns1/persistentvolumeclaims', { type: 'resource', kind: 'PersistentVolumeClaim', namespace: 'ns1' }],
  ['/api/v1/namespaces/ns1/persistentvolumeclaims/c1/status', { type: 'resource', kind: 'PersistentVolumeClaim', namespace: 'ns1', name: 'c1', subresource: 'status' }],
  ['/api/v1/namespaces/ns1/events', { type: 'resource', kind: 'Event', namespace: 'ns1' }],
  ['/api/v1/events', { type: 'resource', kind: 'Event', namespace: undefined }],
  ['/api/v1/namespaces', { type: 'resource', kind: 'Namespace' }],
  ['/api/v1/namespaces/ns1', { type: 'resource', kind: 'Namespace', name: 'ns1' }],
  ['/api/v1/namespaces/ns1/status', { type: 'resource', kind: 'Namespace', name: 'ns1', subresource: 'status' }],
  ['/api/v1/namespaces/ns1/finalize', { type: 'resource', kind: 'Namespace', name: 'ns1', subresource: 'finalize' }],
  ['/api/v1/persistentvolumes/pv1/finalize', { type: 'notFound' }],
  ['/api/v1/nodes/n1/status', { type: 'resource', kind: 'Node', name: 'n1', subresource: 'status' }],
  ['/apis/storage.k8s.io/v1/storageclasses/sc1', { type: 'resource', kind: 'StorageClass', name: 'sc1' }],
  ['/api/v1/watch/persistentvolumes', { type: 'resource', kind: 'PersistentVolume', watchPath: true }],
  ['/api/v1/watch/namespaces/ns1/persistentvolumeclaims/c1', { type: 'resource', kind: 'PersistentVolumeClaim', namespace: 'ns1', name: 'c1', watchPath: true }],
  ['/api/v1/namespaces/ns1/pods', { type: 'resource', kind: 'Pod', namespace: 'ns1' }],
  ['/api/v1/persistentvolumeclaims/c1', { type: 'notFound' }],
  ['/api/v1/namespaces/ns1/persistentvolumes', { type: 'notFound' }],
  ['/api/v1/persistentvolumes/pv1/scale', { type: 'notFound' }],
  ['/apis/storage.k8s.io/v1/storageclasses/sc1/status', { type: 'notFound' }],
  ['/api/v2/persistentvolumes', { type: 'notFound' }],
  ['/apis/apps/v1/deployments', { type: 'notFound' }],
  ['/api/v1/PersistentVolumes', { type: 'notFound' }],
  ['/api/v1/persistentvolumes/%E0%A4%A', { type: 'notFound' }],
];

test.each(cases)('%s', (path, want) => {
  const r = route(path) as Record<string, unknown> & { strategy?: { kind: string } };
  const got: Record<string, unknown> = { ...r };
  if (r.strategy) {
    got.kind = r.strategy.kind;
    delete got.strategy;
  }
  expect(got).toMatchObject(want);
});

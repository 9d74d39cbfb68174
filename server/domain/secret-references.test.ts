import { describe, expect, test } from 'vitest';
import { pluginParameters, provisionerSecretRef } from './secret-references';

const claim = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data', namespace: 'team-a' } };

describe('provisionerSecretRef', () => {
  test.each<{ name: string; params: Record<string, string>; want?: unknown; error?: RegExp }>([
    { name: 'no reference', params: { fsType: 'ext4' }, want: undefined },
    {
      name: 'a fixed Secret',
      params: { 'csi.storage.k8s.io/provisioner-secret-name': 'creds', 'csi.storage.k8s.io/provisioner-secret-namespace': 'stowage' },
      want: { namespace: 'stowage', name: 'creds' },
    },
    {
      name: 'templates per claim',
      params: { 'csi.storage.k8s.io/provisioner-secret-name': '${pvc.name}-creds', 'csi.storage.k8s.io/provisioner-secret-namespace': '${pvc.namespace}' },
      want: { namespace: 'team-a', name: 'data-creds' },
    },
    { name: 'the deprecated keys', params: { csiProvisionerSecretName: 's', csiProvisionerSecretNamespace: 'n' }, want: { namespace: 'n', name: 's' } },
  ])('$name', ({ params, want }) => expect(provisionerSecretRef(params, claim, 'pvc-1')).toEqual(want));

  test.each<{ name: string; params: Record<string, string>; want?: unknown; error?: RegExp }>([
    { name: 'a name without a namespace', params: { 'csi.storage.k8s.io/provisioner-secret-name': 's' }, error: /must be set/ },
    {
      name: 'pvc.name in the namespace',
      params: { 'csi.storage.k8s.io/provisioner-secret-name': 's', 'csi.storage.k8s.io/provisioner-secret-namespace': '${pvc.name}' },
      error: /unknown template/,
    },
  ])('$name is an error', ({ params, error }) => expect(() => provisionerSecretRef(params, claim, 'pvc-1')).toThrow(error));
});

test('pluginParameters leaves out the reserved keys', () => {
  expect(pluginParameters({ basePath: '/x', 'csi.storage.k8s.io/provisioner-secret-name': 's', csiProvisionerSecretNamespace: 'n' })).toEqual({ basePath: '/x' });
});

import { describe, expect, test } from 'vitest';
import { pluginParameters, provisionerSecretRef, snapshotterSecretRef } from './secret-references';

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

// external-snapshotter pkg/utils/util_test.go TestGetSecretReference, for SnapshotterSecretParams.
describe('snapshotterSecretRef (GetSecretReference)', () => {
  const N = 'csi.storage.k8s.io/snapshotter-secret-name';
  const NS = 'csi.storage.k8s.io/snapshotter-secret-namespace';
  const snap = { name: 'snapshot', namespace: 'snapshotns' };
  test.each<{ name: string; params: Record<string, string>; snapshot?: typeof snap; want: unknown }>([
    { name: 'no params', params: {}, want: { ok: true } },
    { name: 'namespace, no name', params: { [NS]: 'foo' }, want: { ok: false, message: 'failed to get name and namespace template from params: either name and namespace for Snapshotter secrets specified, Both must be specified' } },
    { name: 'name, no namespace', params: { [N]: 'foo' }, want: { ok: false, message: 'failed to get name and namespace template from params: either name and namespace for Snapshotter secrets specified, Both must be specified' } },
    { name: 'empty name or namespace', params: { [N]: '', [NS]: 'ns' }, want: { ok: false, message: 'failed to get name and namespace template from params: Snapshotter secrets specified in parameters but value of either namespace or name is empty' } },
    { name: 'simple - valid', params: { [N]: 'name', [NS]: 'ns' }, snapshot: snap, want: { ok: true, ref: { name: 'name', namespace: 'ns' } } },
    { name: 'simple - invalid name', params: { [N]: 'bad name', [NS]: 'ns' }, snapshot: snap, want: { ok: false, message: '"bad name" is not a valid secret name' } },
    { name: 'simple - invalid namespace', params: { [N]: 'name', [NS]: 'bad ns' }, snapshot: snap, want: { ok: false, message: '"bad ns" is not a valid namespace name' } },
    {
      name: 'template - valid',
      params: { [N]: 'static-${volumesnapshotcontent.name}-${volumesnapshot.namespace}-${volumesnapshot.name}', [NS]: 'static-${volumesnapshotcontent.name}-${volumesnapshot.namespace}' },
      snapshot: snap,
      want: { ok: true, ref: { name: 'static-snapcontent-1-snapshotns-snapshot', namespace: 'static-snapcontent-1-snapshotns' } },
    },
    {
      name: 'template - invalid namespace tokens',
      params: { [N]: 'myname', [NS]: 'mynamespace${bar}' },
      snapshot: snap,
      want: { ok: false, message: 'error resolving value "mynamespace${bar}": invalid tokens: ["bar"]' },
    },
    {
      name: 'template - the snapshot name is not a namespace token',
      params: { [N]: 'myname', [NS]: '${volumesnapshot.name}' },
      snapshot: snap,
      want: { ok: false, message: 'error resolving value "${volumesnapshot.name}": invalid tokens: ["volumesnapshot.name"]' },
    },
    {
      name: 'template - invalid name tokens',
      params: { [N]: 'myname${foo}', [NS]: 'mynamespace' },
      snapshot: snap,
      want: { ok: false, message: 'error resolving value "myname${foo}": invalid tokens: ["foo"]' },
    },
    {
      name: 'template - resolved to an invalid name',
      params: { [N]: '${volumesnapshot.name}-', [NS]: 'ns' },
      snapshot: snap,
      want: { ok: false, message: '"${volumesnapshot.name}-" resolved to "snapshot-" which is not a valid secret name' },
    },
    { name: 'no snapshot (a deletion): its tokens are unknown', params: { [N]: '${volumesnapshot.name}', [NS]: 'ns' }, want: { ok: false, message: 'error resolving value "${volumesnapshot.name}": invalid tokens: ["volumesnapshot.name"]' } },
  ])('$name', ({ params, snapshot, want }) => expect(snapshotterSecretRef(params, 'snapcontent-1', snapshot)).toEqual(want));

  test('the snapshotter keys are reserved: a plugin never sees them', () => {
    expect(pluginParameters({ [N]: 'n', [NS]: 'ns', pool: 'p' })).toEqual({ pool: 'p' });
  });
});

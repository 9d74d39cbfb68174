import { describe, expect, test } from 'vitest';
import { strategies, strategyForKind, strategyForResource } from './registry';

describe('registry', () => {
  test('serves the seventeen kinds once each', () => {
    expect(strategies.map((s) => s.kind)).toEqual(['Namespace', 'Node', 'PersistentVolume', 'PersistentVolumeClaim', 'StorageClass', 'Pod', 'Event', 'ConfigMap', 'Secret', 'ResourceQuota', 'CSIStorageCapacity', 'VolumeSnapshotClass', 'VolumeSnapshot', 'VolumeSnapshotContent', 'SnapshotSchedule', 'BackupTarget', 'VolumeBackup']);
  });

  test.each([
    { kind: 'PersistentVolume', plural: 'persistentvolumes' },
    { kind: 'StorageClass', plural: 'storageclasses' },
    { kind: 'Pod', plural: 'pods' },
    { kind: 'Deployment', plural: undefined },
  ])('strategyForKind($kind)', ({ kind, plural }) => {
    expect(strategyForKind(kind)?.plural).toBe(plural);
  });

  test.each([
    { group: '', resource: 'persistentvolumes', kind: 'PersistentVolume' },
    { group: '', resource: 'persistentvolume', kind: 'PersistentVolume' },
    { group: '', resource: 'pv', kind: 'PersistentVolume' },
    { group: '', resource: 'PVC', kind: 'PersistentVolumeClaim' },
    { group: '', resource: 'ns', kind: 'Namespace' },
    { group: '', resource: 'no', kind: 'Node' },
    { group: '', resource: 'ev', kind: 'Event' },
    { group: '', resource: 'cm', kind: 'ConfigMap' },
    { group: '', resource: 'secrets', kind: 'Secret' },
    { group: '', resource: 'quota', kind: 'ResourceQuota' },
    { group: '', resource: 'resourcequotas', kind: 'ResourceQuota' },
    { group: 'storage.k8s.io', resource: 'sc', kind: 'StorageClass' },
    { group: 'stowage.io', resource: 'vb', kind: 'VolumeBackup' },
    { group: 'stowage.io', resource: 'backuptargets', kind: 'BackupTarget' },
    { group: 'storage.k8s.io', resource: 'storageclasses', kind: 'StorageClass' },
    { group: 'storage.k8s.io', resource: 'csistoragecapacities', kind: 'CSIStorageCapacity' },
    { group: '', resource: 'storageclasses', kind: undefined },
    { group: 'storage.k8s.io', resource: 'pv', kind: undefined },
    { group: '', resource: 'po', kind: 'Pod' },
    { group: '', resource: 'deployments', kind: undefined },
  ])('strategyForResource($group, $resource) is $kind', ({ group, resource, kind }) => {
    expect(strategyForResource(group, resource)?.kind).toBe(kind);
  });

  test('apiVersion agrees with group and version', () => {
    for (const s of strategies) expect(s.apiVersion).toBe(s.group ? `${s.group}/${s.version}` : s.version);
  });

  test('every table has exactly one name-formatted column', () => {
    for (const s of strategies) {
      const named = s.table.columns.filter((c) => c.format === 'name');
      expect(named).toHaveLength(1);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { persistentVolumeStrategy } from '../../resources/persistent-volume/strategy';
import { buildLocalVolume, isLocalVolume } from './volume';
import { localCleanupFinalizer } from '../../domain/well-known/finalizers';

const disk = (o: Partial<Parameters<typeof buildLocalVolume>[0]> = {}) => ({
  nodeName: 'node-a',
  className: 'local-disks',
  entryName: 'disk1',
  hostPath: '/mnt/disks/disk1',
  pvName: 'local-pv-1234abcd',
  volumeMode: 'Filesystem' as const,
  capacityBytes: String(10 * 1024 ** 3),
  ...o,
});

describe('buildLocalVolume', () => {
  it.each([
    { name: 'filesystem entry, class policy Delete', d: disk(), policy: 'Delete', mode: 'Filesystem', storage: '10Gi', reclaim: 'Delete' },
    { name: 'block entry, class policy Retain', d: disk({ volumeMode: 'Block', capacityBytes: '67108864' }), policy: 'Retain', mode: 'Block', storage: '64Mi', reclaim: 'Retain' },
    { name: 'no class object: Delete', d: disk(), policy: undefined, mode: 'Filesystem', storage: '10Gi', reclaim: 'Delete' },
  ])('$name', ({ d, policy, mode, storage, reclaim }) => {
    const pv = buildLocalVolume(d, policy);
    expect(pv.spec!.volumeMode).toBe(mode);
    expect(pv.spec!.capacity!.storage).toBe(storage);
    expect(pv.spec!.persistentVolumeReclaimPolicy).toBe(reclaim);
    expect(pv.spec!.local!.path).toBe(d.hostPath);
    expect(pv.spec!.storageClassName).toBe('local-disks');
    expect(pv.spec!.nodeAffinity!.required!.nodeSelectorTerms).toEqual([
      { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['node-a'] }] },
    ]);
    expect(pv.metadata.annotations?.['pv.kubernetes.io/provisioned-by']).toBe('local-volume-provisioner');
    expect(pv.metadata.finalizers).toEqual([localCleanupFinalizer]);
    expect(isLocalVolume(pv)).toBe(true);
    // The PV strategy's own validation accepts it (local volumes need node affinity).
    const obj = structuredClone(pv);
    persistentVolumeStrategy.applyDefaults(obj);
    expect(persistentVolumeStrategy.validateShape(obj)).toEqual([]);
    expect(persistentVolumeStrategy.validate(obj)).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { emptyVolumeDraft, volumeDraftErrors, volumeErrorFor, volumeFromDraft, type VolumeDraft } from './volume-draft';

const draft = (over: Partial<VolumeDraft> = {}): VolumeDraft => ({ ...emptyVolumeDraft(), name: 'pv-a', path: '/srv/data/a', ...over });

describe('volumeDraftErrors: the API’s own checks', () => {
  it.each([
    { name: 'a host-path volume', d: draft(), field: undefined },
    { name: 'a local volume on one node', d: draft({ source: 'local', nodes: ['node-1'] }), field: undefined },
    { name: 'an NFS volume', d: draft({ source: 'nfs', nfsServer: 'nfs.example.com', path: '/exports/a', accessModes: ['ReadWriteMany'] }), field: undefined },
    { name: 'a CSI volume', d: draft({ source: 'csi', csiDriver: 'csi.example.com', csiVolumeHandle: 'vol-1', path: '' }), field: undefined },
    { name: 'no name', d: draft({ name: '' }), field: 'metadata.name' },
    { name: 'a bad capacity', d: draft({ capacity: 'ten gigs' }), field: 'spec.capacity' },
    { name: 'no access mode', d: draft({ accessModes: [] }), field: 'spec.accessModes' },
    { name: 'a host path with ..', d: draft({ path: '/srv/../etc' }), field: 'spec.hostPath.path' },
    { name: 'a relative local path', d: draft({ source: 'local', nodes: ['n'], path: 'data' }), field: 'spec.local.path' },
    { name: 'a local volume without a node', d: draft({ source: 'local' }), field: 'spec.nodeAffinity' },
    { name: 'a local volume on two nodes', d: draft({ source: 'local', nodes: ['a', 'b'] }), field: 'spec.nodeAffinity' },
    { name: 'NFS without a server', d: draft({ source: 'nfs', path: '/exports/a' }), field: 'spec.nfs.server' },
    { name: 'CSI without a driver', d: draft({ source: 'csi', csiVolumeHandle: 'vol-1' }), field: 'spec.csi.driver' },
    { name: 'an unknown reclaim policy', d: draft({ reclaimPolicy: 'Keep' }), field: 'spec.persistentVolumeReclaimPolicy' },
  ])('$name', ({ d, field }) => {
    const errs = volumeDraftErrors(d);
    if (field === undefined) expect(errs).toEqual([]);
    else expect(volumeErrorFor(errs, field), JSON.stringify(errs)).toBeTruthy();
  });
});

describe('volumeFromDraft', () => {
  it('pins a volume to its nodes by hostname and keeps only the chosen source', () => {
    const pv = volumeFromDraft(draft({ source: 'local', nodes: ['node-1', 'node-1'], fsType: 'ext4', storageClassName: 'local', mountOptions: 'noatime\n' }));
    expect(pv.spec).toEqual({
      capacity: { storage: '10Gi' },
      accessModes: ['ReadWriteOnce'],
      volumeMode: 'Filesystem',
      persistentVolumeReclaimPolicy: 'Retain',
      storageClassName: 'local',
      mountOptions: ['noatime'],
      local: { path: '/srv/data/a', fsType: 'ext4' },
      nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['node-1'] }] }] } },
    });
  });
});

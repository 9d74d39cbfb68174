import { describe, expect, it } from 'vitest';
import { draftFromParams, emptyVolumeDraft, volumeDraftErrors, volumeErrorFor, volumeFormHref, volumeFromDraft, type VolumeDraft } from './volume-draft';

const draft = (over: Partial<VolumeDraft> = {}): VolumeDraft => ({ ...emptyVolumeDraft(), name: 'pv-a', path: '/srv/data/a', ...over });

describe('volumeDraftErrors: the API’s own checks', () => {
  it.each([
    { name: 'a host-path volume', d: draft(), field: undefined },
    { name: 'a local volume on one node', d: draft({ source: 'local', nodes: ['node-1'] }), field: undefined },
    { name: 'an NFS volume', d: draft({ source: 'nfs', nfsServer: 'nfs.example.com', path: '/exports/a', accessModes: ['ReadWriteMany'] }), field: undefined },
    { name: 'a CSI volume', d: draft({ source: 'csi', csiDriver: 'csi.example.com', csiVolumeHandle: 'vol-1', path: '' }), field: undefined },
    { name: 'no name', d: draft({ name: '' }), field: 'metadata.name' },
    { name: 'a bad capacity', d: draft({ capacity: { size: 'ten', unit: 'Gi' } }), field: 'spec.capacity' },
    { name: 'no access mode', d: draft({ accessModes: [] }), field: 'spec.accessModes' },
    { name: 'a host path with ..', d: draft({ path: '/srv/../etc' }), field: 'spec.hostPath.path' },
    { name: 'a local path with ..', d: draft({ source: 'local', nodes: ['n'], path: '/mnt/../etc' }), field: 'spec.local.path' },
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

describe('draftFromParams: the form prefilled from the claim page', () => {
  const from = (q: string) => {
    const p = new URLSearchParams(q);
    return draftFromParams((k) => p.get(k));
  };
  it.each([
    { name: 'nothing: the empty draft', q: '', want: emptyVolumeDraft() },
    {
      name: 'a claim’s shape',
      q: 'name=pv-data&capacity=5Gi&accessModes=ReadWriteOnce,ReadOnlyMany&volumeMode=Block&storageClassName=manual&labels=tier=gold,zone=a&claim=team-a/data',
      want: { name: 'pv-data', capacity: { size: '5', unit: 'Gi' }, accessModes: ['ReadWriteOnce', 'ReadOnlyMany'], volumeMode: 'Block', storageClassName: 'manual', labels: 'tier=gold\nzone=a', reservedFor: 'team-a/data' },
    },
    { name: 'unknown modes and a bad volume mode are dropped', q: 'accessModes=Everything,ReadWriteMany&volumeMode=Tape', want: { accessModes: ['ReadWriteMany'], volumeMode: 'Filesystem' } },
    { name: 'a malformed claim and labels are dropped', q: 'claim=a/b/c&labels=no-equals, =x,ok=1', want: { reservedFor: '', labels: 'ok=1' } },
  ])('$name', ({ q, want }) => expect(from(q)).toMatchObject(want));

  it('round-trips volumeFormHref', () => {
    const href = volumeFormHref({ capacity: '1Gi', accessModes: ['ReadWriteOnce'], volumeMode: 'Filesystem', storageClassName: 'manual', labels: { tier: 'gold' }, claim: 'team-a/data' });
    const d = from(href.split('?')[1]);
    const pv = volumeFromDraft({ ...d, name: 'pv-a', path: '/srv/a' });
    expect(pv.metadata.labels).toEqual({ tier: 'gold' });
    expect(pv.spec?.claimRef).toEqual({ kind: 'PersistentVolumeClaim', namespace: 'team-a', name: 'data' });
    expect(volumeDraftErrors({ ...d, name: 'pv-a', path: '/srv/a' })).toEqual([]);
  });

  it('a bad label is refused with the API’s message', () => {
    expect(volumeErrorFor(volumeDraftErrors(draft({ labels: 'bad key=1' })), 'metadata.labels')).toBeTruthy();
  });
});

import { describe, expect, it } from 'vitest';
import type { ProvisionedVolume } from '../../provisioners/plugin';
import type { PersistentVolumeClaim } from '../../resources/persistent-volume-claim/schema';
import type { StorageClass } from '../../resources/storage-class/schema';
import { buildVolume } from './volume';

const claim = (over: Record<string, unknown> = {}): PersistentVolumeClaim => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'data', namespace: 'ns', uid: 'u-1', resourceVersion: '7' },
  spec: { accessModes: ['ReadWriteOncePod'], resources: { requests: { storage: '1G' } }, storageClassName: 'fast', ...over },
});
const sc = (over: Record<string, unknown> = {}): StorageClass => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'StorageClass',
  metadata: { name: 'fast' },
  provisioner: 'stowage.io/loop',
  parameters: { basePath: '/d', secretName: 'never-copied' },
  ...over,
});
const made = (bytes: bigint, over: Partial<ProvisionedVolume> = {}): ProvisionedVolume => ({
  capacityBytes: bytes,
  volumeMode: 'Filesystem',
  source: { local: { path: '/d/mounts/pvc-u-1' } },
  asset: { file: '/d/x.img', node: 'n1' },
  ...over,
});

describe('buildVolume (seed 000: the created PV MUST ...)', () => {
  it('points back at the claim, names its provisioner and class, and keeps no parameters', () => {
    const pv = buildVolume('pvc-u-1', claim(), sc(), 'stowage.io/loop', made(1_000_000_000n));
    expect(pv.metadata.name).toBe('pvc-u-1');
    expect(pv.spec!.claimRef).toEqual({ kind: 'PersistentVolumeClaim', apiVersion: 'v1', namespace: 'ns', name: 'data', uid: 'u-1', resourceVersion: '7' });
    expect(pv.metadata.annotations).toEqual({
      'pv.kubernetes.io/provisioned-by': 'stowage.io/loop',
      'pv.kubernetes.io/bound-by-controller': 'yes',
      'stowage.io/asset': '{"file":"/d/x.img","node":"n1"}',
    });
    expect(JSON.stringify(pv)).not.toContain('never-copied');
    expect(pv.spec).toMatchObject({ storageClassName: 'fast', accessModes: ['ReadWriteOncePod'], volumeMode: 'Filesystem', local: { path: '/d/mounts/pvc-u-1' } });
  });

  it.each([
    { name: 'exactly the request keeps the claim\'s spelling', bytes: 1_000_000_000n, storage: '1G' },
    { name: 'more than asked is written as the exact byte count', bytes: 1_000_000_512n, storage: '976563Ki' },
    { name: 'a binary size is written as such', bytes: 1n << 30n, storage: '1Gi' },
  ])('capacity: $name', ({ bytes, storage }) => {
    expect(buildVolume('pvc-u-1', claim(), sc(), 'p', made(bytes)).spec!.capacity).toEqual({ storage });
  });

  it.each([
    { name: 'no policy on the class means Delete, guarded by the pv-controller finalizer', policy: undefined, want: 'Delete', finalizers: ['kubernetes.io/pv-protection', 'kubernetes.io/pv-controller'] },
    { name: 'Retain is kept, without the pv-controller finalizer', policy: 'Retain', want: 'Retain', finalizers: ['kubernetes.io/pv-protection'] },
  ])('reclaim policy: $name', ({ policy, want, finalizers }) => {
    const pv = buildVolume('pvc-u-1', claim(), sc({ reclaimPolicy: policy }), 'p', made(1_000_000_000n));
    expect(pv.spec!.persistentVolumeReclaimPolicy).toBe(want);
    expect(pv.metadata.finalizers).toEqual(finalizers);
  });

  it('carries the selector\'s labels, the plugin\'s labels, mount options and node affinity', () => {
    const affinity = { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['n1'] }] }] } };
    const pv = buildVolume(
      'pvc-u-1',
      claim({ selector: { matchLabels: { 'kubernetes.io/hostname': 'n1' } } }),
      sc({ mountOptions: ['noatime'] }),
      'p',
      made(1_000_000_000n, { labels: { tier: 'local' }, nodeAffinity: affinity }),
    );
    expect(pv.metadata.labels).toEqual({ tier: 'local', 'kubernetes.io/hostname': 'n1' });
    expect(pv.spec!.mountOptions).toEqual(['noatime']);
    expect(pv.spec!.nodeAffinity).toEqual(affinity);
  });
});

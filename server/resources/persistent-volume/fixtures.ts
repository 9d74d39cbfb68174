// Valid PersistentVolumes the tests start from.
import type { PersistentVolume } from './schema';

export const hostnameAffinity = (...hosts: string[]) => ({
  required: {
    nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: hosts }] }],
  },
});

export const localPV: PersistentVolume = {
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name: 'local-pv-1' },
  spec: {
    capacity: { storage: '10Gi' },
    accessModes: ['ReadWriteOnce'],
    storageClassName: 'local-storage',
    local: { path: '/mnt/disks/ssd1' },
    nodeAffinity: hostnameAffinity('node-1'),
  },
};

export const nfsPV: PersistentVolume = {
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name: 'nfs-pv' },
  spec: {
    capacity: { storage: '100Gi' },
    accessModes: ['ReadWriteMany', 'ReadOnlyMany'],
    persistentVolumeReclaimPolicy: 'Recycle',
    mountOptions: ['hard', 'nfsvers=4.1'],
    nfs: { server: 'nfs.example.com', path: '/exports/a' },
  },
};

export const hostPathPV: PersistentVolume = {
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name: 'host-path' },
  spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/data', type: 'DirectoryOrCreate' } },
};

export const csiPV: PersistentVolume = {
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name: 'pvc-0a1b2c' },
  spec: {
    capacity: { storage: '5Gi' },
    accessModes: ['ReadWriteOncePod'],
    persistentVolumeReclaimPolicy: 'Delete',
    volumeMode: 'Block',
    csi: {
      driver: 'ebs.csi.aws.com',
      volumeHandle: 'vol-0123',
      fsType: 'ext4',
      volumeAttributes: { 'storage.kubernetes.io/csiProvisionerIdentity': '1-2-3' },
      nodeStageSecretRef: { name: 'creds', namespace: 'kube-system' },
    },
  },
};

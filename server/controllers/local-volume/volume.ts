// The PV a discovered local disk becomes (seed 003 / upstream static provisioner): the
// hashed name, spec.local.path = the host path (not the agent's mountDir path), required
// node affinity on kubernetes.io/hostname, capacity from the filesystem or device, the
// volume mode and class the agent reported, the class's reclaim policy (default Delete),
// and pv.kubernetes.io/provisioned-by naming the local provisioner. Pure.
import { bytesToQuantity, formatQuantity } from '../../domain/quantity';
import type { PersistentVolume } from '../../resources/persistent-volume/schema';
import { annDynamicallyProvisioned, annLocalEntry, annLocalNode } from '../../domain/well-known/annotations';
import { localVolumeProvisioner } from '../../domain/well-known/provisioners';
import { localCleanupFinalizer } from '../../domain/well-known/finalizers';
import { labelHostname, labelLocalNode } from '../../domain/well-known/labels';

export interface LocalDisk {
  nodeName: string;
  className: string;
  entryName: string;
  hostPath: string;
  pvName: string;
  volumeMode: 'Filesystem' | 'Block';
  capacityBytes: string;
}

export function buildLocalVolume(disk: LocalDisk, reclaimPolicy: string | undefined): PersistentVolume {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: {
      name: disk.pvName,
      labels: { [labelLocalNode]: disk.nodeName },
      annotations: { [annDynamicallyProvisioned]: localVolumeProvisioner, [annLocalNode]: disk.nodeName, [annLocalEntry]: disk.entryName },
      finalizers: [localCleanupFinalizer],
    },
    spec: {
      capacity: { storage: formatQuantity(bytesToQuantity(BigInt(disk.capacityBytes))) },
      accessModes: ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: reclaimPolicy || 'Delete',
      storageClassName: disk.className,
      volumeMode: disk.volumeMode,
      local: { path: disk.hostPath },
      nodeAffinity: {
        required: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: labelHostname, operator: 'In', values: [disk.nodeName] }] }],
        },
      },
    },
  };
}

export function isLocalVolume(pv: PersistentVolume | undefined): boolean {
  return pv?.metadata?.annotations?.[annDynamicallyProvisioned] === localVolumeProvisioner;
}

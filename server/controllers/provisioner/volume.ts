// The PV a provisioned asset becomes (seed 000 "the created PV MUST have these
// properties"): deterministic name pvc-<claim uid>, claimRef with the claim's uid, the
// provisioned-by and bound-by-controller annotations, the class name, labels that satisfy
// the claim's selector, a capacity never below the request, the claim's access modes and
// volume mode, the class's reclaim policy (Delete by default) and mount options, and the
// finalizers that keep it (and its asset) from vanishing early. Pure.
import { bytesToQuantity, compareQuantities, formatQuantity, quantityFromJSON } from '../../domain/quantity';
import { claimClass } from '../../domain/matching';
import type { ProvisionedVolume } from '../../provisioners/plugin';
import type { PersistentVolume } from '../../resources/persistent-volume/schema';
import type { PersistentVolumeClaim } from '../../resources/persistent-volume-claim/schema';
import type { StorageClass } from '../../resources/storage-class/schema';
import { annAsset, annBoundByController, annDynamicallyProvisioned } from '../../domain/well-known/annotations';
import { pvControllerFinalizer, pvProtectionFinalizer } from '../../domain/well-known/finalizers';

/** The capacity to write: the claim's own request when that is the size, else the bytes. */
function capacityOf(claim: PersistentVolumeClaim, bytes: bigint): string {
  const asked = claim.spec?.resources?.requests?.storage;
  const q = quantityFromJSON(asked);
  if (q && compareQuantities(q, bytesToQuantity(bytes)) === 0) return String(asked);
  return formatQuantity(bytesToQuantity(bytes));
}

export function buildVolume(pvName: string, claim: PersistentVolumeClaim, storageClass: StorageClass, provisioner: string, v: ProvisionedVolume): PersistentVolume {
  const policy: string = storageClass.reclaimPolicy || 'Delete';
  const labels = { ...(v.labels ?? {}), ...(claim.spec?.selector?.matchLabels ?? {}) };
  const mountOptions: string[] = storageClass.mountOptions ?? [];
  const finalizers = [pvProtectionFinalizer, ...(policy === 'Delete' ? [pvControllerFinalizer] : [])];
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: {
      name: pvName,
      ...(Object.keys(labels).length > 0 ? { labels } : {}),
      annotations: {
        [annDynamicallyProvisioned]: provisioner,
        [annBoundByController]: 'yes',
        [annAsset]: JSON.stringify(v.asset),
      },
      finalizers,
    },
    spec: {
      capacity: { storage: capacityOf(claim, v.capacityBytes) },
      accessModes: [...(claim.spec?.accessModes ?? [])],
      claimRef: {
        kind: 'PersistentVolumeClaim',
        apiVersion: 'v1',
        namespace: claim.metadata.namespace,
        name: claim.metadata.name,
        uid: claim.metadata.uid,
        resourceVersion: claim.metadata.resourceVersion,
      },
      persistentVolumeReclaimPolicy: policy,
      storageClassName: claimClass(claim),
      volumeMode: v.volumeMode,
      ...(mountOptions.length > 0 ? { mountOptions: [...mountOptions] } : {}),
      ...(v.nodeAffinity ? { nodeAffinity: v.nodeAffinity } : {}),
      ...v.source,
    },
  };
}

// The PV a discovered local disk becomes, as upstream's static provisioner writes it
// (pkg/discovery createPV, pkg/common CreateLocalPVSpec): the hashed name; spec.local.path =
// the host path (not the agent's mountDir path) and spec.local.fsType when the class config
// names one; node affinity on kubernetes.io/hostname plus the config's selector terms; the
// capacity rounded down to a whole GiB (or MiB) once there are at least 10 of them; the
// class config's volumeMode and accessMode; the StorageClass's reclaim policy and mount
// options; pv.kubernetes.io/provisioned-by = local-volume-provisioner-<node>-<node uid>. Pure.
import { bytesToQuantity, formatQuantity } from '../../domain/quantity';
import type { NodeSelectorTermConfig } from '../../domain/local-volume-config';
import type { PersistentVolume } from '../../resources/persistent-volume/schema';
import { annDynamicallyProvisioned, annLocalEntry, annLocalNode } from '../../domain/well-known/annotations';
import { isLocalVolumeProvisioner } from '../../domain/well-known/provisioners';
import { localCleanupFinalizer } from '../../domain/well-known/finalizers';
import { labelHostname, labelLocalNode } from '../../domain/well-known/labels';
import type { DiskRow } from '../../store/local-disks';

/** A discovered disk as the PV is made from it: the agent's report row (store/local-disks.ts), the facts a PV needs. */
export type LocalDisk = Pick<DiskRow, 'nodeName' | 'className' | 'entryName' | 'hostPath' | 'pvName' | 'volumeMode' | 'capacityBytes'>;

/** What the class contributes: its config entry and its StorageClass. */
export interface LocalVolumeSettings {
  /** provisioned-by (localVolumeProvisionerName). */
  provisionerName: string;
  /** The StorageClass's reclaim policy (Retain or Delete). */
  reclaimPolicy: string;
  /** The StorageClass's mount options. */
  mountOptions?: string[];
  /** The class config's volumeMode: the PV's, whatever the entry is (a device may be a Filesystem PV). */
  volumeMode?: 'Filesystem' | 'Block';
  accessMode?: string;
  fsType?: string;
  selector?: NodeSelectorTermConfig[];
  /** Labels for the PV (upstream labelsForPV and the node's labels named by nodeLabelsForPV); Stowage's own node label wins. */
  labels?: Record<string, string>;
  /** The value node affinity names for kubernetes.io/hostname (upstream: the node's hostname label, or its name with useNodeNameOnly); the node's name when unset. */
  hostnameValue?: string;
  /** upstream setPVOwnerRef: the PV is owned by its Node. */
  ownerNode?: { name: string; uid: string };
}

/**
 * The PV's labels, node affinity value and owner from the ConfigMap's provisioner-wide keys
 * and the node, as upstream's discovery does: the node's labels named by nodeLabelsForPV (those
 * it has), then labelsForPV; the hostname label's value unless useNodeNameOnly (or the node
 * lacks the label); the Node as owner with setPVOwnerRef.
 */
export function nodeSettings(
  options: { nodeLabelsForPV: string[]; labelsForPV: Record<string, string>; setPVOwnerRef: boolean; useNodeNameOnly: boolean },
  node: { name: string; uid?: string; labels?: Record<string, string> },
): Pick<LocalVolumeSettings, 'labels' | 'hostnameValue' | 'ownerNode'> {
  const labels: Record<string, string> = {};
  for (const key of options.nodeLabelsForPV) {
    const v = node.labels && Object.prototype.hasOwnProperty.call(node.labels, key) ? node.labels[key] : undefined;
    if (v !== undefined) labels[key] = v;
  }
  for (const [k, v] of Object.entries(options.labelsForPV)) labels[k] = v;
  const hostname = node.labels?.[labelHostname];
  return {
    labels,
    hostnameValue: options.useNodeNameOnly || !hostname ? node.name : hostname,
    ...(options.setPVOwnerRef && node.uid ? { ownerNode: { name: node.name, uid: node.uid } } : {}),
  };
}

const GiB = 1024n ** 3n;
const MiB = 1024n ** 2n;

/** Upstream roundDownCapacityPretty: whole GiB when there are at least 10, else whole MiB when at least 10, else as is. */
export function roundDownCapacityPretty(bytes: bigint): bigint {
  for (const unit of [GiB, MiB]) {
    const size = bytes / unit;
    if (size >= 10n) return size * unit;
  }
  return bytes;
}

export function buildLocalVolume(disk: LocalDisk, s: LocalVolumeSettings): PersistentVolume {
  const mountOptions = s.mountOptions ?? [];
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: {
      name: disk.pvName,
      labels: { ...(s.labels ?? {}), [labelLocalNode]: disk.nodeName },
      annotations: { [annDynamicallyProvisioned]: s.provisionerName, [annLocalNode]: disk.nodeName, [annLocalEntry]: disk.entryName },
      finalizers: [localCleanupFinalizer],
      ...(s.ownerNode ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: s.ownerNode.name, uid: s.ownerNode.uid }] } : {}),
    },
    spec: {
      capacity: { storage: formatQuantity(bytesToQuantity(roundDownCapacityPretty(BigInt(disk.capacityBytes)))) },
      accessModes: [s.accessMode || 'ReadWriteOnce'],
      persistentVolumeReclaimPolicy: s.reclaimPolicy,
      storageClassName: disk.className,
      volumeMode: s.volumeMode ?? disk.volumeMode,
      ...(mountOptions.length > 0 ? { mountOptions: [...mountOptions] } : {}),
      local: { path: disk.hostPath, ...(s.fsType ? { fsType: s.fsType } : {}) },
      nodeAffinity: {
        required: {
          nodeSelectorTerms: [
            { matchExpressions: [{ key: labelHostname, operator: 'In', values: [s.hostnameValue ?? disk.nodeName] }] },
            ...(s.selector ?? []).map((t) => structuredClone(t)),
          ],
        },
      },
    },
  };
}

export function isLocalVolume(pv: PersistentVolume | undefined): boolean {
  return isLocalVolumeProvisioner(pv?.metadata?.annotations?.[annDynamicallyProvisioned]);
}

export interface PlanInput {
  disk: LocalDisk;
  /** The class's entry of the storageClassMap on the disk's node (undefined: no longer configured). */
  config?: { volumeMode: 'Filesystem' | 'Block'; accessMode?: string; declaredFsType?: string; selector?: NodeSelectorTermConfig[] };
  /** The StorageClass object of that name, if it exists. */
  storageClass?: { reclaimPolicy?: string; mountOptions?: string[] | null };
  provisionerName: string;
  /** Labels, affinity value and owner from the ConfigMap's provisioner-wide keys (nodeSettings). */
  nodeSettings?: Pick<LocalVolumeSettings, 'labels' | 'hostnameValue' | 'ownerNode'>;
  /** The local volumes already on the disk's node (to find the path in use under another name). */
  volumesOnNode: PersistentVolume[];
}

export type Plan = { pv: PersistentVolume } | { blocked: string };

/**
 * Whether the disk may get its PV now, and which (upstream discoverVolumesAtPath): a class
 * with no StorageClass, or one whose reclaim policy is neither Retain nor Delete, offers
 * nothing; a path another local volume of ours already has is not offered twice (as upstream,
 * only the provisioner's own volumes count: a PV made by hand does not block it); a
 * directory in a Block class is refused with upstream's words.
 */
export function planLocalVolume(i: PlanInput): Plan {
  const { disk } = i;
  if (!i.config) return { blocked: `class ${disk.className} is no longer in the storageClassMap` };
  if (!i.storageClass) return { blocked: `failed to get ReclaimPolicy from storage class "${disk.className}": storageclass.storage.k8s.io "${disk.className}" not found` };
  const policy = i.storageClass.reclaimPolicy ?? 'Delete';
  if (policy !== 'Retain' && policy !== 'Delete') {
    return { blocked: `unsupported ReclaimPolicy "${policy}" from storage class "${disk.className}", supported policy are Retain and Delete` };
  }
  if (disk.volumeMode === 'Filesystem' && i.config.volumeMode === 'Block') {
    return { blocked: `path "${disk.hostPath}" of filesystem mode cannot be used to create block volume` };
  }
  const taken = i.volumesOnNode.filter((pv) => isLocalVolume(pv) && pv.metadata.name !== disk.pvName && pv.spec?.local?.path === disk.hostPath);
  if (taken.length > 0) {
    return { blocked: `Volume path already in use: PV "${disk.pvName}" wants path "${disk.hostPath}" which was already found in "${taken.map((pv) => pv.metadata.name).join(',')}".` };
  }
  return {
    pv: buildLocalVolume(disk, {
      provisionerName: i.provisionerName,
      reclaimPolicy: policy,
      mountOptions: i.storageClass.mountOptions ?? [],
      volumeMode: i.config.volumeMode,
      accessMode: i.config.accessMode,
      fsType: i.config.declaredFsType,
      selector: i.config.selector,
      ...i.nodeSettings,
    }),
  };
}

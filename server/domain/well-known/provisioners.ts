// Provisioner names a StorageClass's `provisioner` (and a volume's
// pv.kubernetes.io/provisioned-by) may carry that Stowage itself understands.

/** Stowage's in-tree plugin: a directory per claim under the class's basePath. */
export const hostPathProvisioner = 'stowage.io/host-path';
/** Stowage's in-tree plugin: a sparse file per claim attached as a loop device. */
export const loopProvisioner = 'stowage.io/loop';
/** Upstream's name for "never provisions": volumes of the class are made by hand or by the local-volume manager. */
export const noProvisioner = 'kubernetes.io/no-provisioner';
/**
 * Names the local static provisioner as the maker of a local volume. Upstream writes
 * `local-volume-provisioner-<node>-<node uid>` (or `local-volume-provisioner-<node>` with
 * useNodeNameOnly); Stowage writes the former, and reads the bare name older releases wrote.
 */
export const localVolumeProvisioner = 'local-volume-provisioner';

/** The provisioned-by value upstream's static provisioner on this node writes. */
export function localVolumeProvisionerName(nodeName: string, nodeUid: string | undefined): string {
  return nodeUid ? `${localVolumeProvisioner}-${nodeName}-${nodeUid}` : `${localVolumeProvisioner}-${nodeName}`;
}

/** Whether a provisioned-by value names a local static provisioner (any node's, or the bare name). */
export function isLocalVolumeProvisioner(by: string | undefined): boolean {
  return by === localVolumeProvisioner || (by?.startsWith(`${localVolumeProvisioner}-`) ?? false);
}
/** Upstream: names under this prefix belong to in-tree plugins, never to an external provisioner. */
export const inTreeProvisionerPrefix = 'kubernetes.io/';
/** Stowage's in-tree plugin: a btrfs subvolume per claim in the class's pool, its size a qgroup limit, made by the node's agent. */
export const btrfsProvisioner = 'stowage.io/btrfs';
/** Provisioners that publish CSIStorageCapacity (upstream: CSIDriver storageCapacity: true); placement counts on it for their claims. */
export const capacityTrackedProvisioners: ReadonlySet<string> = new Set([btrfsProvisioner]);

// Finalizers Stowage sets and removes: upstream's (with upstream's meaning) and its own.

/** On a claim: in-use protection; removed once no pod uses the claim (upstream pvc-protection). */
export const pvcProtectionFinalizer = 'kubernetes.io/pvc-protection';
/** On a volume: in-use protection; removed once no claim is bound to it (upstream pv-protection). */
export const pvProtectionFinalizer = 'kubernetes.io/pv-protection';
/** On a volume with reclaim policy Delete: kept until its asset is deleted (upstream HonorPVReclaimPolicy). */
export const pvControllerFinalizer = 'kubernetes.io/pv-controller';
/** On a local volume: held until the manager has recorded what its disk needs (a cleanup job or nothing). */
export const localCleanupFinalizer = 'local.stowage.io/cleanup';
/** On a VolumeSnapshot: held while a claim is being restored from it (upstream VolumeSnapshotAsSourceFinalizer). */
export const volumeSnapshotAsSourceFinalizer = 'snapshot.storage.kubernetes.io/volumesnapshot-as-source-protection';
/** On a VolumeSnapshot bound to a content with deletionPolicy Delete: held until that content is gone (upstream VolumeSnapshotBoundFinalizer). */
export const volumeSnapshotBoundFinalizer = 'snapshot.storage.kubernetes.io/volumesnapshot-bound-protection';
/** On a bound VolumeSnapshotContent: held until its snapshot is deleted as its deletionPolicy says (upstream VolumeSnapshotContentFinalizer). */
export const volumeSnapshotContentFinalizer = 'snapshot.storage.kubernetes.io/volumesnapshotcontent-bound-protection';
/** On a claim: held while a VolumeSnapshot of it is being taken (upstream PVCFinalizer). */
export const pvcAsSnapshotSourceFinalizer = 'snapshot.storage.kubernetes.io/pvc-as-source-protection';
/** On a claim: held while claims cloned from it are being provisioned (upstream external-provisioner pvcCloneFinalizer). */
export const pvcCloneFinalizer = 'provisioner.storage.kubernetes.io/cloning-protection';
/** On an object deleted with propagationPolicy Orphan: held until the garbage collector has removed the object from its dependents' ownerReferences (upstream metav1.FinalizerOrphanDependents). */
export const orphanFinalizer = 'orphan';
/** On a VolumeBackup: held while its manifest may exist in the target (removed after the delete job removed it; at once for an imported backup). */
export const volumeBackupFinalizer = 'stowage.io/volume-backup';
/** On a VolumeSnapshot and its claim: held while a backup reads the snapshot (removed when the backup is Completed or Failed). */
export const backupSourceProtectionFinalizer = 'stowage.io/backup-source-protection';

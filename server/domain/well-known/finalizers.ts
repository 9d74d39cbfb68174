// Finalizers Stowage sets and removes: upstream's (with upstream's meaning) and its own.

/** On a claim: in-use protection; removed once no pod uses the claim (upstream pvc-protection). */
export const pvcProtectionFinalizer = 'kubernetes.io/pvc-protection';
/** On a volume: in-use protection; removed once no claim is bound to it (upstream pv-protection). */
export const pvProtectionFinalizer = 'kubernetes.io/pv-protection';
/** On a volume with reclaim policy Delete: kept until its asset is deleted (upstream HonorPVReclaimPolicy). */
export const pvControllerFinalizer = 'kubernetes.io/pv-controller';
/** On a local volume: held until the manager has recorded what its disk needs (a cleanup job or nothing). */
export const localCleanupFinalizer = 'local.stowage.io/cleanup';

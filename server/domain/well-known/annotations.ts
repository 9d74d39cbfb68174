// Annotation keys Stowage reads or writes: upstream's well-known ones (with upstream's
// meaning) and Stowage's own under stowage.io/ and local.stowage.io/. One home, imported by
// the server and the dashboard alike.

// --- Upstream: binding and provisioning (component-helpers/storage/volume) ---------------

/** On a claim: its binding has been completed once (value "yes"). */
export const annBindCompleted = 'pv.kubernetes.io/bind-completed';
/** On a volume or claim: the controller, not the user, wrote the binding (value "yes"). */
export const annBoundByController = 'pv.kubernetes.io/bound-by-controller';
/** On a volume: the name of the provisioner that created it (upstream AnnDynamicallyProvisioned). */
export const annDynamicallyProvisioned = 'pv.kubernetes.io/provisioned-by';
/** On a claim: the provisioner that should create its volume. */
export const annStorageProvisioner = 'volume.kubernetes.io/storage-provisioner';
/** On a claim: the deprecated beta twin of annStorageProvisioner, still written and read. */
export const annBetaStorageProvisioner = 'volume.beta.kubernetes.io/storage-provisioner';
/** On a claim: the node its first consumer was scheduled to (WaitForFirstConsumer). */
export const annSelectedNode = 'volume.kubernetes.io/selected-node';

// --- Upstream: classes and volumes --------------------------------------------------------

/** On a claim or volume: its StorageClass, the deprecated form of spec.storageClassName. */
export const annBetaStorageClass = 'volume.beta.kubernetes.io/storage-class';
/** On a volume: the alpha storage-class annotation; a volume carrying it is for dynamic provisioning only. */
export const annAlphaStorageClass = 'volume.alpha.kubernetes.io/storage-class';
/** On a volume: mount options, the deprecated form of spec.mountOptions. */
export const annMountOptions = 'volume.beta.kubernetes.io/mount-options';
/** On a StorageClass: "true" makes it the default class for claims that name none. */
export const annIsDefaultClass = 'storageclass.kubernetes.io/is-default-class';
/** On a StorageClass: the deprecated beta twin of annIsDefaultClass. */
export const annBetaIsDefaultClass = 'storageclass.beta.kubernetes.io/is-default-class';
/** On a StorageClass: a description for people. */
export const annClassDescription = 'storageclass.kubernetes.io/description';
/** On any object: a description for people (the general form). */
export const annDescription = 'kubernetes.io/description';
/** On a watch's BOOKMARK: "true" once the initial events of a sendInitialEvents watch are all sent. */
export const annInitialEventsEnd = 'k8s.io/initial-events-end';
/** On any object: kubectl apply's copy of the last applied configuration. */
export const annLastAppliedConfiguration = 'kubectl.kubernetes.io/last-applied-configuration';

// --- Stowage's own --------------------------------------------------------------------------

/** On a Pending claim: why it is not bound, compact JSON {evaluatedAt, summary, candidates:[{name, reasons}]}. */
export const annBindingExplanation = 'stowage.io/binding-explanation';
/** On a provisioned volume: where its asset is (path, device, node) as JSON, for people and the dashboard. Never secrets. */
export const annAsset = 'stowage.io/asset';
/** On a volume: the bytes used on it (decimal string). */
export const annUsedBytes = 'stowage.io/used-bytes';
/** On a volume: when annUsedBytes was measured (RFC 3339). */
export const annUsedBytesTime = 'stowage.io/used-bytes-time';
/** On a volume: when its claim was warned "nearly full" for the current crossing (RFC 3339); removed once below the mark. */
export const annNearlyFull = 'stowage.io/nearly-full';
/** On a volume: "true" when annUsedBytes is a lower bound (a bounded walk ran out of time). */
export const annUsedBytesPartial = 'stowage.io/used-bytes-partial';
/** On a local volume: the node whose disk it is. */
export const annLocalNode = 'local.stowage.io/node';
/** On a local volume: the disk's entry name inside its discovery directory. */
export const annLocalEntry = 'local.stowage.io/entry';
/** On a local volume: "true" while the node's agent no longer reports its disk. */
export const annDiskMissing = 'local.stowage.io/disk-missing';
/** On a local volume: "true" while its node's agent has stopped reporting. */
export const annNodeNotReporting = 'local.stowage.io/node-not-reporting';
/** On a pool's CSIStorageCapacity: the pool's path on its node. */
export const annPoolPath = 'pool.stowage.io/path';
/** On a pool's CSIStorageCapacity: its filesystem's size, free bytes, and the sum of its volumes' limits (decimal bytes). */
export const annPoolTotal = 'pool.stowage.io/total-bytes';
export const annPoolFree = 'pool.stowage.io/free-bytes';
export const annPoolAllocated = 'pool.stowage.io/allocated-bytes';
/** On a pool's CSIStorageCapacity: why the path cannot serve as a pool on that node (then capacity is 0). */
export const annPoolProblem = 'pool.stowage.io/problem';
/** On a Node, set by an admin: the most bytes any pool of that node may report (decimal bytes or a quantity). */
export const annPoolMaxBytes = 'pool.stowage.io/max-bytes';
/** On a VolumeSnapshotClass: "true" marks it its driver's default (upstream IsDefaultSnapshotClassAnnotation). */
export const annIsDefaultSnapshotClass = 'snapshot.storage.kubernetes.io/is-default-class';
/** On a VolumeSnapshotContent: its VolumeSnapshot is being deleted (upstream AnnVolumeSnapshotBeingDeleted). */
export const annVolumeSnapshotBeingDeleted = 'snapshot.storage.kubernetes.io/volumesnapshot-being-deleted';
/** On a dynamic VolumeSnapshotContent: the snapshotter Secret of its class, read to take and to delete it (upstream AnnDeletionSecretRefName / -Namespace). */
export const annDeletionSecretRefName = 'snapshot.storage.kubernetes.io/deletion-secret-name';
export const annDeletionSecretRefNamespace = 'snapshot.storage.kubernetes.io/deletion-secret-namespace';
/** On a VolumeSnapshotContent: a restore may change the volume mode of its source (upstream annAllowVolumeModeChange). */
export const annAllowVolumeModeChange = 'snapshot.storage.kubernetes.io/allow-volume-mode-change';
/** On a VolumeSnapshot whose snapshot is a copy: how far the copy has come, "<copied bytes>/<total bytes>". */
export const annSnapshotCopyProgress = 'snapshot.stowage.io/copy-progress';
/** On a VolumeBackup: a verify is asked for, at this time (the controller answers in status.verification). */
export const annVerifyRequested = 'backup.stowage.io/verify-requested';
/** A replicated pool volume's PV: the node whose copy is the writable, published one. */
export const annReplicationActiveNode = 'replication.stowage.io/active-node';
/** A replicated pool volume's PV: the epoch of the active copy (raised by every failover or move; an older copy is fenced). */
export const annReplicationEpoch = 'replication.stowage.io/epoch';
/** A replicated pool volume's PV: its replicas as JSON, `[{node, state, lastSyncTime?, progress?, error?}]`. */
export const annReplicationReplicas = 'replication.stowage.io/replicas';
/** On a Node, written by its agent's heartbeat: host:port where the agent takes replication transfers (its listener). */
export const annReplicationEndpoint = 'replication.stowage.io/endpoint';

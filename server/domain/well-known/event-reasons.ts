// The reasons of the Events Stowage records: upstream's (pkg/controller/volume/events, the
// scheduler, the kubelet, the expander) with upstream's meaning, and Stowage's own. The
// dashboard reads some of them back.
export const reasons = {
  // --- PV controller: binding (upstream pkg/controller/volume/events) ---
  /** A claim found no volume to bind to, or its volume is bound elsewhere. */
  failedBinding: 'FailedBinding',
  /** A claim and the volume it names do not fit (e.g. volume mode). */
  volumeMismatch: 'VolumeMismatch',
  /** A bound claim lost its volume: the data on it is lost. */
  claimLost: 'ClaimLost',
  /** Two claims are bound to one volume; this one is the wrong one. */
  claimMisbound: 'ClaimMisbound',
  /** The claim waits for an external provisioner to make its volume. */
  externalProvisioning: 'ExternalProvisioning',
  /** The claim waits for its first consumer before binding (WaitForFirstConsumer). */
  waitForFirstConsumer: 'WaitForFirstConsumer',
  /** A WaitForFirstConsumer claim's pods exist but none is placed on a node yet. */
  waitForPodScheduled: 'WaitForPodScheduled',
  /** A volume with reclaim policy Recycle could not be recycled. */
  volumeFailedRecycle: 'VolumeFailedRecycle',
  /** A volume's unknown reclaim policy. */
  volumeUnknownReclaimPolicy: 'VolumeUnknownReclaimPolicy',

  // --- PV controller: provisioning and deleting ---
  /** Provisioning a claim's volume failed (it is retried). */
  provisioningFailed: 'ProvisioningFailed',
  /** An external provisioner started provisioning a claim's volume (upstream external-provisioner). */
  provisioning: 'Provisioning',
  /** A claim's volume was provisioned. */
  provisioningSucceeded: 'ProvisioningSucceeded',
  /** An asset provisioned for a claim could not be cleaned up after its volume failed to save. */
  provisioningCleanupFailed: 'ProvisioningCleanupFailed',
  /** Deleting a volume's asset failed. */
  volumeFailedDelete: 'VolumeFailedDelete',
  /** A volume's asset was deleted. */
  volumeDeleted: 'VolumeDeleted',
  /** Upstream static provisioner: a block cleanup of a local volume started ("this may take a while"). */
  volumeDelete: 'VolumeDelete',
  /** Upstream static provisioner: a Released local volume's reclaim policy is Recycle, which it cannot do. */
  volumeUnsupportedReclaimPolicy: 'VolumeUnsupportedReclaimPolicy',

  // --- Expansion (upstream external-resizer and kubelet) ---
  /** The resizer is growing the volume. */
  resizing: 'Resizing',
  /** Growing the volume failed. */
  volumeResizeFailed: 'VolumeResizeFailed',
  /** The volume grew; its filesystem must grow on the node. */
  fileSystemResizeRequired: 'FileSystemResizeRequired',
  /** Growing the filesystem on the node failed. */
  fileSystemResizeFailed: 'FileSystemResizeFailed',
  /** The filesystem on the node grew. */
  fileSystemResizeSuccessful: 'FileSystemResizeSuccessful',
  /** The volume's resize is complete. */
  volumeResizeSuccessful: 'VolumeResizeSuccessful',
  /** Stowage: the backend cannot grow the asset; only the recorded size changed. */
  expansionAccountingOnly: 'ExpansionAccountingOnly',

  // --- Scheduler and kubelet ---
  /** No node fits the pod (the message says why, per node). */
  failedScheduling: 'FailedScheduling',
  /** The pod was assigned to a node. */
  scheduled: 'Scheduled',
  /** A pod's volume could not be published on its node. */
  failedMount: 'FailedMount',

  // --- Node lifecycle ---
  /** A node's agent stopped reporting. */
  nodeNotReady: 'NodeNotReady',
  /** A deleted node's intent records (volumes being made or removed there by its agent) ended with it. */
  nodeRecordsEnded: 'NodeRecordsEnded',

  // --- Stowage's local-volume manager ---
  /** A local volume's disk is no longer reported by its node's agent. */
  diskMissing: 'DiskMissing',
  /** A missing disk is reported again. */
  diskFound: 'DiskFound',
  /** A local volume's node stopped reporting. */
  nodeNotReporting: 'NodeNotReporting',
  /** A local volume's node reports again. */
  nodeReporting: 'NodeReporting',
  /** A cleanup of a local volume's disk was queued. */
  cleanupQueued: 'CleanupQueued',
  /** A local volume's disk was quarantined instead of wiped: an admin decides. */
  cleanupQuarantined: 'CleanupQuarantined',

  /** A controller's create for a user was refused (a quota): upstream's controllers' FailedCreate. */
  failedCreate: 'FailedCreate',
  /** A node's pool report claimed more than its filesystem or its bound allows, and was refused. */
  poolReportRefused: 'PoolReportRefused',

  // --- Stowage's reclaim center ---
  /** An admin made a Released volume Available again. */
  madeAvailable: 'MadeAvailable',
  /** An admin reserved a volume for a claim. */
  preBound: 'PreBound',
  /** An admin asked for a volume to be wiped and offered again. */
  recycleRequested: 'RecycleRequested',
  /** An admin deleted the object from the reclaim center. */
  deletedFromReclaimCenter: 'DeletedFromReclaimCenter',

  // --- Snapshot controllers (upstream external-snapshotter) ---
  /** A snapshot's class could not be read. */
  getSnapshotClassFailed: 'GetSnapshotClassFailed',
  /** A snapshot names no class and no default class could be chosen. */
  setDefaultSnapshotClassFailed: 'SetDefaultSnapshotClassFailed',
  /** The driver cut a snapshot. */
  snapshotCreated: 'SnapshotCreated',
  /** A snapshot became ready to use. */
  snapshotReady: 'SnapshotReady',
  /** A snapshot waits to be deleted while a claim is restored from it. */
  snapshotDeletePending: 'SnapshotDeletePending',
  /** A snapshot content names both or neither of a volume and a snapshot handle. */
  contentValidationError: 'ContentValidationError',
  /** A snapshot's content could not be made. */
  snapshotContentCreationFailed: 'SnapshotContentCreationFailed',
  /** A snapshot's source claim is missing. */
  snapshotPVCSourceMissing: 'SnapshotPVCSourceMissing',
  /** A snapshot's content was made: the driver is taking the snapshot. */
  creatingSnapshot: 'CreatingSnapshot',
  /** A snapshot's content object could not be written. */
  createSnapshotContentFailed: 'CreateSnapshotContentFailed',
  /** A snapshot and its content disagree on how it was made (dynamically or pre-provisioned). */
  snapshotContentMismatch: 'SnapshotContentMismatch',
  /** A snapshot's content is bound to another snapshot. */
  snapshotContentMisbound: 'SnapshotContentMisbound',
  /** A pre-provisioned content's ref does not name the snapshot that names it. */
  snapshotBindFailed: 'SnapshotBindFailed',
  /** A snapshot names both or neither of a claim and a content as its source. */
  snapshotValidationError: 'SnapshotValidationError',
  /** A snapshot's content is gone. */
  snapshotContentMissing: 'SnapshotContentMissing',
  /** A ready snapshot's content does not point back at it. */
  snapshotMisbound: 'SnapshotMisbound',
  /** The snapshotter (the CSI sidecar's part) could not take a snapshot. */
  snapshotCreationFailed: 'SnapshotCreationFailed',
  /** The snapshotter could not read a pre-provisioned content's snapshot from its driver. */
  snapshotContentCheckandUpdateFailed: 'SnapshotContentCheckandUpdateFailed',
  /** The snapshotter could not delete a snapshot. */
  snapshotDeleteError: 'SnapshotDeleteError',

  // --- Stowage's backups ---
  /** A backup's data job was queued on the node that holds its snapshot. */
  backupStarted: 'BackupStarted',
  /** A backup is complete in its target. */
  backupCompleted: 'BackupCompleted',
  /** A backup failed for good (or one attempt of it failed, with "will retry"). */
  backupFailed: 'BackupFailed',
  /** A restore from a backup started filling a new volume. */
  restoreStarted: 'RestoreStarted',
  /** A restore from a backup filled its volume. */
  restoreCompleted: 'RestoreCompleted',
  /** A restore from a backup failed (a damaged chunk, a missing backup). */
  restoreFailed: 'RestoreFailed',
  /** A verify found a backup damaged. */
  backupDamaged: 'BackupDamaged',
  /** A verify read every chunk of a backup back and found each as its id says. */
  backupVerified: 'BackupVerified',
  /** A snapshot schedule took a snapshot. */
  snapshotTaken: 'SnapshotTaken',
  /** A snapshot schedule deleted a snapshot beyond its keep. */
  snapshotPruned: 'SnapshotPruned',
  /** A snapshot schedule backed one of its snapshots up. */
  backupCreated: 'BackupCreated',
  /** A snapshot schedule deleted a backup beyond its keep. */
  backupPruned: 'BackupPruned',
  /** A backup is waiting: for its snapshot, its target, a node that reaches the target. */
  backupWaiting: 'BackupWaiting',
  /** A backup's data was removed from its target (or, imported, only its object). */
  backupDeleted: 'BackupDeleted',
  /** A backup found in a target, made by another installation, became a VolumeBackup here. */
  backupImported: 'BackupImported',
  /** A backup found in a target could not be imported (its namespace does not exist here). */
  backupNotImported: 'BackupNotImported',

  // --- Stowage: replicated pool volumes ---
  /** A replica of a volume is being made on a node (a full transfer). */
  replicaAdded: 'ReplicaAdded',
  /** A replica holds a complete snapshot again after being behind or rebuilt. */
  replicaInSync: 'ReplicaInSync',
  /** A replica fell behind the replication interval by more than the margin. */
  replicaBehind: 'ReplicaBehind',
  /** Not enough nodes have room for the replicas the class asks for. */
  replicaUnavailable: 'ReplicaUnavailable',
  /** The active copy's node is gone: a replica became the active copy (data as of its last transfer). */
  failedOver: 'FailedOver',
  /** An admin moved the active copy to a replica (a final transfer first: nothing lost). */
  replicaMoved: 'ReplicaMoved',
  /** A copy of an older epoch was removed from a node, which holds a replica again. */
  copyFenced: 'CopyFenced',
  /** A failover waits for something (a pod left on the dead node, a replica without data). */
  failoverWaiting: 'FailoverWaiting',
} as const;

// The components Stowage's Events name as their source (source.component and
// reportingComponent): upstream's names where Stowage does upstream's work.

/** Upstream's in-tree PV controller: binding, provisioning, deleting, expanding. */
export const persistentVolumeControllerComponent = 'persistentvolume-controller';
/** Upstream's scheduler: the source of placement's Events, and a pod's default spec.schedulerName. */
export const schedulerComponent = 'default-scheduler';
/** Upstream's kubelet: publishing a pod's volumes on its node. */
export const kubeletComponent = 'kubelet';
/** Upstream's node lifecycle controller: nodes that stop reporting. */
export const nodeLifecycleComponent = 'node-lifecycle-controller';
/** Stowage's local-volume manager: disks, their volumes and cleanups. */
export const localVolumeManagerComponent = 'local-volume-manager';
/** Stowage's reclaim center: one-click actions an admin applied. */
export const reclaimCenterComponent = 'stowage-reclaim-center';
/** Upstream's snapshot controller (external-snapshotter's common controller): VolumeSnapshots and their contents. */
export const snapshotControllerComponent = 'snapshot-controller';
/** Stowage's snapshot schedules: the snapshots they take and prune. */
export const snapshotScheduleComponent = 'snapshot-schedule-controller';
/** Stowage's volume usage: a claim's volume nearly full. */
export const volumeUsageComponent = 'stowage-volume-usage';
/** The agent API, for what it refuses of an agent (a pool report claiming more than the node may). */
export const agentApiComponent = 'stowage-agent-api';
/** Stowage's backups: VolumeBackups and their data jobs. */
export const volumeBackupComponent = 'stowage-backup-controller';
/** Stowage's backup targets: what the agents report, and backups imported from targets. */
export const backupTargetComponent = 'stowage-backup-target-controller';
/** Stowage's replication of pool volumes: transfers, failover, moves. */
export const replicationComponent = 'stowage-replication-controller';

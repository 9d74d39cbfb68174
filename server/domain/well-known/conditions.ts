// Condition types Stowage sets on objects' status.conditions beyond upstream's own.

/** On a claim: status "False" while the claim cannot be bound, with why (Stowage's own). */
export const conditionBindable = 'Bindable';

/** On a VolumeBackup: "True" once it is complete in its target; on a BackupTarget: a node reported it reachable and writable. */
export const conditionReady = 'Ready';
/** On a VolumeBackup: "True" while its data is being read. */
export const conditionProgressing = 'Progressing';
/** On a VolumeBackup: "True" once it failed for good. */
export const conditionFailed = 'Failed';

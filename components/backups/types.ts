// The two backup kinds as the dashboard reads them: the schemas' types (server/resources),
// and the few names the dashboard's views share.

export const BACKUP_API_VERSION = 'stowage.io/v1';
export const BACKUP_KIND = 'VolumeBackup';
export const TARGET_KIND = 'BackupTarget';
/** The annotation a verify request sets on a VolumeBackup (the controller answers it). */
export { annVerifyRequested as VERIFY_REQUESTED_ANNOTATION } from '@/server/domain/well-known/annotations';

export interface Condition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

export type BackupPhase = 'Pending' | 'InProgress' | 'Completed' | 'Failed';
export type BackupFormat = 'files' | 'image';

export type { BackupTarget } from '@/server/resources/backup-target/schema';
export type { VolumeBackup } from '@/server/resources/volume-backup/schema';
import type { BackupTarget } from '@/server/resources/backup-target/schema';
import type { VolumeBackup } from '@/server/resources/volume-backup/schema';

export type TargetNodeStatus = NonNullable<NonNullable<BackupTarget['status']>['nodes']>[number];

/** A target as a developer may learn it (names and readiness only, never its path). */
export interface TargetChoice {
  name: string;
  ready: boolean;
  default: boolean;
}

export function isVolumeBackup(o: { kind: string }): o is VolumeBackup {
  return o.kind === BACKUP_KIND;
}

export function isBackupTarget(o: { kind: string }): o is BackupTarget {
  return o.kind === TARGET_KIND;
}

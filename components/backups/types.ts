// The two backup kinds as the dashboard reads them, declared from the backups design until
// their schemas land (the lead swaps these for the schema types at merge). Field names are
// the design's; every field the API may leave out is optional.
import type { KubeObject } from '@/server/resources/types';

export const BACKUP_API_VERSION = 'stowage.io/v1';
export const BACKUP_KIND = 'VolumeBackup';
export const TARGET_KIND = 'BackupTarget';
/** The annotation a verify request sets on a VolumeBackup (the controller answers it). */
export { annVerifyRequested as VERIFY_REQUESTED_ANNOTATION } from '@/server/domain/well-known/annotations';

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown' | string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

export type BackupPhase = 'Pending' | 'InProgress' | 'Completed' | 'Failed';
export type BackupFormat = 'files' | 'image';

export interface TargetNodeStatus {
  node: string;
  reachable?: boolean;
  writable?: boolean;
  freeBytes?: string;
  totalBytes?: string;
  reason?: string;
  checkedAt?: string;
}

export interface BackupTarget extends KubeObject {
  kind: 'BackupTarget';
  spec?: { path: string; default?: boolean };
  status?: {
    nodes?: TargetNodeStatus[];
    backups?: number;
    storedBytes?: string;
    logicalBytes?: string;
    conditions?: Condition[];
  };
}

export interface VolumeBackup extends KubeObject {
  kind: 'VolumeBackup';
  spec?: {
    source?: { volumeSnapshotName?: string; persistentVolumeClaimName?: string };
    backupTargetName?: string;
  };
  status?: {
    phase?: BackupPhase;
    backupTargetName?: string;
    node?: string;
    snapshotName?: string;
    sourceClaimName?: string;
    storageClassName?: string;
    provisioner?: string;
    format?: BackupFormat;
    sizeBytes?: string;
    totalBytes?: string;
    doneBytes?: string;
    progress?: number;
    newBytes?: string;
    startTime?: string;
    completionTime?: string;
    imported?: boolean;
    error?: { time?: string; message?: string };
    conditions?: Condition[];
  };
}

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

// A claim restored from a VolumeBackup (backups-spec, "Restore"): the checks made before
// anything is provisioned. Pure: the provisioner reads the backup, this decides.
import { backupFormat, mayRestoreInto, restoreNeed, RESTORE_PROVISIONERS } from './backup-formats';

/** What the provisioner reads of a VolumeBackup (status fields and its uid, the backupId). */
export interface BackupFacts {
  uid: string;
  phase?: string;
  backupTargetName?: string;
  format?: 'files' | 'image';
  sizeBytes?: string;
}

export type RestoreCheck =
  | { ok: true; backupId: string; format: 'files' | 'image'; targetName: string }
  /** Not yet: the claim waits, Pending, saying why. */
  | { ok: false; wait: true; message: string }
  /** Never, as the claim is: refused before anything is made. */
  | { ok: false; wait: false; message: string };


export function checkRestore(name: string, backup: BackupFacts | undefined, provisioner: string, requestedBytes: bigint): RestoreCheck {
  if (!backup) return { ok: false, wait: true, message: `VolumeBackup "${name}" not found in the claim's namespace` };
  const want = backupFormat(provisioner);
  if (!want) return { ok: false, wait: false, message: `${provisioner} cannot restore a volume from a VolumeBackup (backups restore into ${RESTORE_PROVISIONERS.files.join(' and ')} classes)` };
  if (backup.phase !== 'Completed') return { ok: false, wait: true, message: `VolumeBackup "${name}" is ${backup.phase ?? 'not started'}; the restore waits until it is Completed` };
  if (backup.format && !mayRestoreInto(backup.format, provisioner)) {
    return { ok: false, wait: false, message: `VolumeBackup "${name}" holds ${backup.format === 'files' ? 'files' : 'an image'}; restoring it needs ${restoreNeed(backup.format)}, not ${provisioner}` };
  }
  const size = backup.sizeBytes && /^\d{1,20}$/.test(backup.sizeBytes) ? BigInt(backup.sizeBytes) : undefined;
  if (size !== undefined && requestedBytes < size) {
    return { ok: false, wait: false, message: `requested volume size ${requestedBytes} is less than the size ${size} of the VolumeBackup ${name}` };
  }
  if (!backup.backupTargetName) return { ok: false, wait: true, message: `VolumeBackup "${name}" names no backup target` };
  return { ok: true, backupId: backup.uid, format: want, targetName: backup.backupTargetName };
}

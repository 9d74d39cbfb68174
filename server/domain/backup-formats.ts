// The formats of volume backups, one table for the backup side and the restore side: a
// provisioner's snapshots are read as files (btrfs, host-path) or as one image (loop); a
// `files` backup restores into btrfs and host-path classes. An `image` backup restores into
// no class yet: the loop provisioner attaches and mounts a new image as it makes it, so a
// restore would write under a mounted filesystem. Pure.
import { btrfsProvisioner, hostPathProvisioner, loopProvisioner } from './well-known/provisioners';

export type BackupFormat = 'files' | 'image';

export const RESTORE_PROVISIONERS: Readonly<Record<BackupFormat, readonly string[]>> = {
  files: [btrfsProvisioner, hostPathProvisioner],
  image: [],
};

export function isBackupFormat(v: unknown): v is BackupFormat {
  return v === 'files' || v === 'image';
}

/** The format a provisioner's snapshot is read in, or undefined when Stowage cannot read its snapshots. */
export function backupFormat(provisioner: string | undefined): BackupFormat | undefined {
  if (provisioner === btrfsProvisioner || provisioner === hostPathProvisioner) return 'files';
  if (provisioner === loopProvisioner) return 'image';
  return undefined;
}

/** Whether a class of `provisioner` can be filled from a backup of `format`. */
export function mayRestoreInto(format: string | undefined, provisioner: string | undefined): boolean {
  return isBackupFormat(format) && provisioner !== undefined && RESTORE_PROVISIONERS[format].includes(provisioner);
}

/** What a backup of `format` needs to be restored, in words. */
export function restoreNeed(format: BackupFormat): string {
  const p = RESTORE_PROVISIONERS[format];
  return p.length > 0 ? `a class of ${p.join(' or ')}` : `a class that can take ${format === 'image' ? 'an image (a loop volume backup)' : format}, which no provisioner offers yet`;
}

// Which classes a volume backup restores into, by the backup's format: a `files` backup
// (btrfs and host-path volumes, read as files) into btrfs and host-path classes; an
// `image` backup (loop volumes, read as one image) into loop classes. Pure.
import { btrfsProvisioner, hostPathProvisioner, loopProvisioner } from './well-known/provisioners';

export type BackupFormat = 'files' | 'image';

export const RESTORE_PROVISIONERS: Readonly<Record<BackupFormat, readonly string[]>> = {
  files: [btrfsProvisioner, hostPathProvisioner],
  image: [loopProvisioner],
};

export function isBackupFormat(v: unknown): v is BackupFormat {
  return v === 'files' || v === 'image';
}

/** Whether a class of `provisioner` can be filled from a backup of `format`. */
export function mayRestoreInto(format: string | undefined, provisioner: string | undefined): boolean {
  return isBackupFormat(format) && provisioner !== undefined && RESTORE_PROVISIONERS[format].includes(provisioner);
}

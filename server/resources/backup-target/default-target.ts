// The default BackupTarget: a VolumeBackup created without a target gets the default's name
// (refused when there is none, or the named target does not exist), and a second default
// target is refused naming the current one. Pure: the caller passes the targets.
import type { FieldError } from '../../domain/errors';
import { invalid, required } from '../field-errors';
import type { VolumeBackup } from '../volume-backup/schema';
import type { BackupTarget } from './schema';
import { isDefaultTarget } from './strategy';

/** The default target (the oldest, should several ever be marked). */
export function defaultTarget(targets: BackupTarget[]): BackupTarget | undefined {
  return targets
    .filter((t) => isDefaultTarget(t) && !t.metadata.deletionTimestamp)
    .sort((a, b) => String(a.metadata.creationTimestamp ?? '').localeCompare(String(b.metadata.creationTimestamp ?? '')) || String(a.metadata.name).localeCompare(String(b.metadata.name)))[0];
}

/** Fills spec.backupTargetName of a backup about to be created; the errors when it cannot be. */
export function admitBackupTarget(b: VolumeBackup, targets: BackupTarget[]): FieldError[] {
  if (!b.spec || typeof b.spec !== 'object') return [];
  const named = b.spec.backupTargetName;
  if (named === undefined || named === null) {
    const def = defaultTarget(targets);
    if (!def) return [required('spec.backupTargetName', 'no BackupTarget is the default: name one')];
    b.spec = { ...b.spec, backupTargetName: def.metadata.name };
    return [];
  }
  if (typeof named !== 'string') return [];
  const t = targets.find((x) => x.metadata.name === named);
  if (!t) return [invalid('spec.backupTargetName', named, 'no BackupTarget of this name')];
  if (t.metadata.deletionTimestamp) return [invalid('spec.backupTargetName', named, 'the BackupTarget is being deleted')];
  return [];
}

/** A target written with default: true while another target is the default: refused naming that one. */
export function secondDefaultProblem(t: BackupTarget, targets: BackupTarget[]): FieldError[] {
  if (!isDefaultTarget(t)) return [];
  const other = targets.find((x) => isDefaultTarget(x) && x.metadata.name !== t.metadata.name);
  return other ? [invalid('spec.default', true, `BackupTarget "${other.metadata.name}" is the default already: at most one target may be`)] : [];
}

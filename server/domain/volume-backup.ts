// The decisions about backups that need no I/O: which format a provisioner's snapshots are
// read in, the name of the snapshot Stowage takes for a backup of a claim, progress in
// percent, what a data job's outcome means for the backup, which earlier backup a new one
// builds on, and the name an imported backup gets.
import { backupFormat, type BackupFormat } from './backup-formats';

export { backupFormat, type BackupFormat };

/** Attempts of a backup job before the backup is Failed (a non-retryable failure ends it at once). */
export const MAX_BACKUP_ATTEMPTS = 3;


const ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/**
 * The snapshot Stowage takes for a backup of a claim: `<backup>-<5 chars>`, the 5 chars
 * derived from the backup's uid (FNV-1a), so a restart computes the same name and never
 * takes a second snapshot. The backup's name is a DNS label; the result stays within 253.
 */
export function takenSnapshotName(backupName: string, uid: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < uid.length; i++) {
    h ^= uid.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  let suffix = '';
  for (let i = 0; i < 5; i++) {
    suffix += ALPHABET[h % ALPHABET.length];
    h = Math.floor(h / ALPHABET.length) ^ Math.imul(i + 1, 0x9e3779b1) >>> 0;
    h >>>= 0;
  }
  return `${backupName}-${suffix}`;
}

/** Percent done, an integer 0..100 (0 while the total is unknown). */
export function progressPercent(doneBytes: string | undefined, totalBytes: string | undefined): number {
  if (!doneBytes || !totalBytes || !/^\d+$/.test(doneBytes) || !/^\d+$/.test(totalBytes)) return 0;
  const total = BigInt(totalBytes);
  if (total === 0n) return 0;
  const pct = (BigInt(doneBytes) * 100n) / total;
  return Number(pct > 100n ? 100n : pct);
}

export type JobVerdict = 'running' | 'succeeded' | 'retry' | 'failed';

/** What a backup job's state means for the backup: failed for good when not retryable or after the last attempt. */
export function jobVerdict(job: { state: string; attempt: number; result?: { ok: boolean; retryable?: boolean } }): JobVerdict {
  if (job.state === 'queued' || job.state === 'running') return 'running';
  if (job.state === 'succeeded') return 'succeeded';
  const retryable = job.result && !job.result.ok ? job.result.retryable !== false : true;
  return retryable && job.attempt < MAX_BACKUP_ATTEMPTS ? 'retry' : 'failed';
}

export interface BackupCandidate {
  uid: string;
  pvName?: string;
  targetName?: string;
  phase?: string;
  completionTime?: string;
  snapshotName?: string;
}

/** The newest Completed backup of the same volume in the same target (never `selfUid`): what a new backup builds on. */
export function pickParent(candidates: BackupCandidate[], pvName: string, targetName: string, selfUid: string): BackupCandidate | undefined {
  return candidates
    .filter((c) => c.uid !== selfUid && c.phase === 'Completed' && c.pvName === pvName && c.targetName === targetName)
    .sort((a, b) => String(b.completionTime ?? '').localeCompare(String(a.completionTime ?? '')) || a.uid.localeCompare(b.uid))[0];
}

/**
 * The name an imported backup gets: the name it had where it was made, or that name + "-" +
 * 5 chars (from its backup id) when a backup of that name exists here already.
 */
export function importName(originName: string, backupId: string, taken: ReadonlySet<string>): string {
  const base = originName.slice(0, 57) || 'imported';
  if (!taken.has(base)) return base;
  return takenSnapshotName(base, backupId);
}

/**
 * A backup's id in its target (the name of its manifest there): the object's uid, or, for a
 * backup imported from another installation, the id the controller read from the target
 * (status, which only controllers write; never a label a user may change). Undefined: an
 * imported backup whose id is not known.
 */
export function backupIdOf(b: { metadata: { uid?: string | null }; status?: { imported?: boolean | null; backupId?: string | null } | null }): string | undefined {
  if (b.status?.imported) return b.status.backupId ?? undefined;
  return b.metadata.uid ?? undefined;
}

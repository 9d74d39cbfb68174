// What the backup pages show, decided from the objects: a backup's row (phase, progress,
// sizes, when), a claim's backups, the classes a backup may restore into, the restore's
// size rule and claim manifest, a target's health and dedupe ratio. Pure.
import { isBackupFormat, mayRestoreInto, RESTORE_PROVISIONERS } from '@/server/domain/backup-formats';
import { bytesOfSize, formatSize } from '../format/size';
import { BACKUP_API_VERSION, BACKUP_KIND, type BackupFormat, type BackupPhase, type BackupTarget, type TargetChoice, type VolumeBackup } from './types';

export interface BackupRow {
  namespace: string;
  name: string;
  /** The phase, or Terminating while the delete job removes the manifest. */
  phase: BackupPhase | 'Terminating';
  /** Percent read, while InProgress. */
  progress?: number;
  source: string;
  target?: string;
  format?: BackupFormat;
  sizeBytes?: string;
  newBytes?: string;
  /** When it finished, else when it started, else when it was made. */
  time?: string;
  imported: boolean;
  error?: string;
}

const PHASES: ReadonlySet<string> = new Set(['Pending', 'InProgress', 'Completed', 'Failed']);

function clampPercent(n: unknown): number | undefined {
  if (typeof n !== 'number' || !Number.isFinite(n)) return undefined;
  return Math.min(100, Math.max(0, Math.floor(n)));
}

export function backupRow(b: VolumeBackup): BackupRow {
  const st = b.status ?? {};
  const phase: BackupRow['phase'] = b.metadata.deletionTimestamp ? 'Terminating' : st.phase && PHASES.has(st.phase) ? (st.phase as BackupPhase) : 'Pending';
  const src = b.spec?.source ?? {};
  const source = st.sourceClaimName ?? src.persistentVolumeClaimName ?? (src.volumeSnapshotName ? `snapshot ${src.volumeSnapshotName}` : '');
  return {
    namespace: b.metadata.namespace ?? '',
    name: b.metadata.name ?? '',
    phase,
    progress: phase === 'InProgress' ? (clampPercent(st.progress) ?? 0) : undefined,
    source,
    target: st.backupTargetName ?? b.spec?.backupTargetName,
    format: isBackupFormat(st.format) ? st.format : undefined,
    sizeBytes: st.sizeBytes,
    newBytes: st.newBytes,
    time: st.completionTime ?? st.startTime ?? b.metadata.creationTimestamp,
    imported: st.imported === true,
    error: phase === 'Failed' || st.error?.message ? st.error?.message : undefined,
  };
}

/** Newest first (by when it was made), then by name. */
export function backupRows(items: VolumeBackup[]): BackupRow[] {
  return [...items]
    .sort((a, b) => (b.metadata.creationTimestamp ?? '').localeCompare(a.metadata.creationTimestamp ?? '') || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''))
    .map(backupRow);
}

/** The backups holding this claim's data: of the claim directly, or recorded as its source. */
export function backupsOfClaim(items: VolumeBackup[], namespace: string, claim: string): BackupRow[] {
  return backupRows(items.filter((b) => b.metadata.namespace === namespace && (b.status?.sourceClaimName ?? b.spec?.source?.persistentVolumeClaimName) === claim));
}

/** What the delete dialog says happens to the data. */
export function deleteNote(row: Pick<BackupRow, 'imported' | 'target'>): string {
  return row.imported
    ? 'It was imported from the target: deleting it removes only this object; its data stays in the target.'
    : `Deleting it removes the backup's data from the target${row.target ? ` ${row.target}` : ''} (chunks no other backup uses).`;
}

export { RESTORE_PROVISIONERS };

export interface ClassLike {
  metadata: { name?: string };
  provisioner?: string;
}

/** The classes whose provisioner can take the backup's format, by name. Unknown format: none. */
export function restoreClasses<C extends ClassLike>(format: BackupFormat | undefined, classes: C[]): C[] {
  return classes.filter((c) => mayRestoreInto(format, c.provisioner)).sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
}

/** Why a restore may not start yet, or undefined when it may. */
export function restoreBlocker(b: VolumeBackup): string | undefined {
  if (b.metadata.deletionTimestamp) return 'The backup is being deleted.';
  if (b.status?.phase !== 'Completed') return `The backup is ${b.status?.phase ?? 'Pending'}; only a Completed backup can be restored.`;
  if (!b.status.format) return 'The backup does not say its format yet.';
  return undefined;
}

/** The size rule of a restore: at least the backup's volume size. */
export function restoreSizeProblem(requested: string, sizeBytes: string | undefined): string | undefined {
  const want = bytesOfSize(requested);
  if (want === undefined || want <= 0n) return 'Enter a size above zero.';
  const min = bytesOfSize(sizeBytes);
  if (min !== undefined && want < min) return `At least the backup's size (${formatSize(min)}): a restore cannot be smaller than the volume it came from.`;
  return undefined;
}

export interface RestoreInput {
  namespace: string;
  claimName: string;
  backupName: string;
  storageClassName: string;
  /** A quantity ("10Gi") or bytes. */
  size: string;
  accessModes?: string[];
}

/** The claim a restore creates: the backup as its dataSourceRef (a volume populator). */
export function restoreClaim(input: RestoreInput) {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim' as const,
    metadata: { name: input.claimName, namespace: input.namespace },
    spec: {
      accessModes: input.accessModes?.length ? input.accessModes : ['ReadWriteOnce'],
      storageClassName: input.storageClassName,
      resources: { requests: { storage: input.size } },
      dataSourceRef: { apiGroup: 'stowage.io', kind: BACKUP_KIND, name: input.backupName },
    },
  };
}

/** A backup of a claim now, into `target` (the default target when absent). */
export function backupOfClaim(namespace: string, claim: string, target?: string) {
  return {
    apiVersion: BACKUP_API_VERSION,
    kind: BACKUP_KIND,
    metadata: { generateName: `${claim.slice(0, 200).replace(/[.-]+$/, '')}-`, namespace },
    spec: { source: { persistentVolumeClaimName: claim }, ...(target ? { backupTargetName: target } : {}) },
  };
}

/** The target chosen first: the default if it is ready, else the first ready one, else none. */
export function preselectedTarget(choices: TargetChoice[]): string | undefined {
  return (choices.find((c) => c.default && c.ready) ?? choices.find((c) => c.ready))?.name;
}

export interface TargetRow {
  name: string;
  path: string;
  isDefault: boolean;
  ready: 'Ready' | 'NotReady' | 'Unknown';
  readyMessage?: string;
  backups?: number;
  storedBytes?: string;
  logicalBytes?: string;
  /** logical / stored, e.g. "2.5×"; absent when nothing is stored yet. */
  dedupe?: string;
  nodes: { node: string; health: 'ok' | 'unreachable' | 'read-only'; freeBytes?: string; totalBytes?: string; reason?: string; checkedAt?: string }[];
}

/** logical ÷ stored to one decimal ("2.5×"); undefined without a positive stored size. */
export function dedupeRatio(logical: string | undefined, stored: string | undefined): string | undefined {
  const l = bytesOfSize(logical);
  const s = bytesOfSize(stored);
  if (l === undefined || s === undefined || s <= 0n) return undefined;
  const tenths = (l * 10n + s / 2n) / s;
  return `${tenths / 10n}.${tenths % 10n}×`;
}

export function targetRow(t: BackupTarget): TargetRow {
  const st = t.status ?? {};
  const ready = st.conditions?.find((c) => c.type === 'Ready');
  return {
    name: t.metadata.name ?? '',
    path: t.spec?.path ?? '',
    isDefault: t.spec?.default === true,
    ready: ready?.status === 'True' ? 'Ready' : ready?.status === 'False' ? 'NotReady' : 'Unknown',
    readyMessage: ready?.message || ready?.reason,
    backups: st.backups,
    storedBytes: st.storedBytes,
    logicalBytes: st.logicalBytes,
    dedupe: dedupeRatio(st.logicalBytes, st.storedBytes),
    nodes: (st.nodes ?? [])
      .filter((n): n is typeof n & { node: string } => typeof n.node === 'string')
      .sort((a, b) => a.node.localeCompare(b.node))
      .map((n) => ({
        node: n.node,
        health: !n.reachable ? 'unreachable' : !n.writable ? 'read-only' : 'ok',
        freeBytes: n.freeBytes,
        totalBytes: n.totalBytes,
        reason: n.reason || undefined,
        checkedAt: n.checkedAt,
      })),
  };
}

/** A new target's manifest; the path must be absolute. */
export function targetManifest(name: string, path: string, isDefault: boolean) {
  return { apiVersion: BACKUP_API_VERSION, kind: 'BackupTarget', metadata: { name }, spec: { path, ...(isDefault ? { default: true } : {}) } };
}

export function targetPathProblem(path: string): string | undefined {
  if (!path.trim()) return 'Enter the directory every node mounts, such as /mnt/backups.';
  if (!path.startsWith('/')) return 'The path must be absolute (start with /).';
  if (path.length > 4096) return 'The path is too long.';
  return undefined;
}

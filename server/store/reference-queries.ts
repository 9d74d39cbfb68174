// Who names an object that is about to be deleted: the claims and volumes of a storage
// class, the snapshots and schedules of a snapshot class, the backups and schedules of a
// backup target. Counts, a few names each and the claims' phases, never whole lists: a class
// with 10,000 claims answers in one grouped scan.
import { sqlOf, type Queryable } from './sql-handle';

export interface ReferenceCount {
  kind: string;
  /** How many, in total. */
  count: number;
  /** How many per phase (claims: Pending / Bound / Lost). */
  phases: Record<string, number>;
  /** Up to `sample` of them, oldest first: namespace/name or name. */
  names: string[];
}

/** Where each referring kind names the object (a column, or a path in objects.object). */
const REFERENCES: Record<string, { kind: string; where: string }[]> = {
  StorageClass: [
    { kind: 'PersistentVolumeClaim', where: `COALESCE(storage_class, '') = $1` },
    { kind: 'PersistentVolume', where: `COALESCE(storage_class, '') = $1` },
  ],
  VolumeSnapshotClass: [
    { kind: 'VolumeSnapshot', where: `object->'spec'->>'volumeSnapshotClassName' = $1` },
    { kind: 'SnapshotSchedule', where: `object->'spec'->>'snapshotClassName' = $1` },
  ],
  BackupTarget: [
    { kind: 'VolumeBackup', where: `object->'spec'->>'backupTargetName' = $1` },
    { kind: 'SnapshotSchedule', where: `object->'spec'->'backup'->>'targetName' = $1` },
  ],
};

/** The kinds whose deletion this module can say something about. */
export function hasReferences(kind: string): boolean {
  return Object.hasOwn(REFERENCES, kind);
}

export async function referencesTo(db: Queryable, kind: string, name: string, sample = 5): Promise<ReferenceCount[]> {
  if (!hasReferences(kind)) return [];
  const out: ReferenceCount[] = [];
  for (const r of REFERENCES[kind]) {
    const rows = await sqlOf(db).$queryRawUnsafe<{ phase: string | null; n: number; names: string[] }[]>(
      `SELECT phase, count(*)::int AS n,
              (array_agg(CASE WHEN namespace = '' THEN name ELSE namespace || '/' || name END ORDER BY created_at, namespace, name))[1:${Math.max(1, Math.min(sample, 20))}] AS names
         FROM objects WHERE kind = $2 AND deletion_timestamp IS NULL AND ${r.where}
        GROUP BY phase`,
      name,
      r.kind,
    );
    const phases: Record<string, number> = {};
    for (const row of rows) if (row.phase) phases[row.phase] = (phases[row.phase] ?? 0) + Number(row.n);
    const names = rows.flatMap((row) => row.names ?? []).slice(0, sample);
    out.push({ kind: r.kind, count: rows.reduce((s, row) => s + Number(row.n), 0), phases, names });
  }
  return out;
}

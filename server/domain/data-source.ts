// What a claim's data source asks for, as upstream's external-provisioner reads it: a
// VolumeSnapshot (apiGroup snapshot.storage.k8s.io: a restore), a claim of the core group
// (a clone), a VolumeBackup of apiGroup stowage.io (a restore from a backup), or anything else (a volume populator's kind, which provisioners leave alone).
// Pure: no I/O.
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';

export const snapshotApiGroup = 'snapshot.storage.k8s.io';

/** Stowage's own populator: a VolumeBackup of the claim's namespace (a restore from a backup target). */
export const backupApiGroup = 'stowage.io';

export type DataSourceKind = 'snapshot' | 'clone' | 'backup' | 'other';

/** The claim's data source (dataSourceRef, which the API fills from dataSource and back). */
export function dataSourceOf(claim: PersistentVolumeClaim): { apiGroup?: string | null; kind?: string; name?: string; namespace?: string | null } | undefined {
  return claim.spec?.dataSourceRef ?? claim.spec?.dataSource ?? undefined;
}

/** What the claim is populated from; undefined when it has no data source. */
export function dataSourceKind(claim: PersistentVolumeClaim): DataSourceKind | undefined {
  const ref = dataSourceOf(claim);
  if (!ref) return undefined;
  if (ref.kind === 'VolumeSnapshot' && ref.apiGroup === snapshotApiGroup) return 'snapshot';
  if (ref.kind === 'PersistentVolumeClaim' && !ref.apiGroup) return 'clone';
  if (ref.kind === 'VolumeBackup' && ref.apiGroup === backupApiGroup) return 'backup';
  return 'other';
}

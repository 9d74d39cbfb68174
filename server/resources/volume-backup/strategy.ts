// The VolumeBackup strategy (stowage.io/v1, namespaced): exactly one source (a snapshot or a
// claim of this namespace), a target name (defaulted at create by the ObjectService from the
// default target, which needs the store), and a spec that never changes after create.
// Status is the controller's.
import type { FieldError } from '../../domain/errors';
import { ageOf } from '../../domain/duration';
import { nameIsDNSLabel, nameIsDNSSubdomain } from '../../domain/names';
import { roundedQuantity } from '../../domain/quantity';
import { ageColumn, column, nameColumn, noColumns } from '../columns';
import { fieldImmutable, immutable, invalid, required } from '../field-errors';
import { keepAllButStatus, keepStatus, keepSystemMetadata, shapeErrors, stripNulls, validateObjectMeta, validateObjectMetaUpdate, validateTypeMeta } from '../metadata';
import { BACKUP_API_VERSION } from '../backup-target/schema';
import type { Strategy } from '../types';
import { volumeBackupSchema, type VolumeBackup } from './schema';

function validateSource(source: NonNullable<VolumeBackup['spec']>['source']): FieldError[] {
  if (!source) return [required('spec.source', 'a volumeSnapshotName or a persistentVolumeClaimName')];
  const snap = source.volumeSnapshotName;
  const claim = source.persistentVolumeClaimName;
  if ((snap === undefined) === (claim === undefined)) {
    return [invalid('spec.source', 'object', 'exactly one of volumeSnapshotName and persistentVolumeClaimName must be set')];
  }
  if (snap !== undefined) return nameIsDNSSubdomain(snap, false).map((m) => invalid('spec.source.volumeSnapshotName', snap, m));
  return nameIsDNSSubdomain(claim!, false).map((m) => invalid('spec.source.persistentVolumeClaimName', claim, m));
}

function validateBackup(b: VolumeBackup): FieldError[] {
  // The name is a label value on the snapshot Stowage takes for it: a DNS label.
  const errs = [...validateTypeMeta(b, BACKUP_API_VERSION, 'VolumeBackup'), ...validateObjectMeta(b.metadata, { namespaced: true, name: 'dns-label' })];
  if (!b.spec) return [...errs, required('spec')];
  errs.push(...validateSource(b.spec.source));
  const t = b.spec.backupTargetName;
  if (t !== undefined) errs.push(...nameIsDNSLabel(t, false).map((m) => invalid('spec.backupTargetName', t, m)));
  return errs;
}

function validateBackupUpdate(next: VolumeBackup, prev: VolumeBackup): FieldError[] {
  const errs = validateObjectMetaUpdate(next.metadata, prev.metadata);
  // As upstream's immutable fields: the whole spec, one error naming it.
  const changed = immutable('spec', next.spec, prev.spec);
  return changed.length ? [...errs, invalid('spec', 'object', fieldImmutable)] : errs;
}

/** The SOURCE cell: what the backup reads. */
export function backupSource(b: VolumeBackup): string {
  const s = b.spec?.source;
  if (s?.persistentVolumeClaimName !== undefined) return `claim/${s.persistentVolumeClaimName}`;
  if (s?.volumeSnapshotName !== undefined) return `snapshot/${s.volumeSnapshotName}`;
  return '';
}

/** A decimal byte count as a person reads it ("1Gi"), or "" when absent or not a count. */
export function bytesCell(v: string | undefined): string {
  return v !== undefined && /^\d{1,20}$/.test(v) ? roundedQuantity(BigInt(v)) : '';
}

export const volumeBackupStrategy: Strategy<VolumeBackup> = {
  kind: 'VolumeBackup',
  group: 'stowage.io',
  version: 'v1',
  apiVersion: BACKUP_API_VERSION,
  plural: 'volumebackups',
  singular: 'volumebackup',
  shortNames: ['vb'],
  namespaced: true,
  hasStatus: true,
  fieldSelectors: {},

  validateShape: (obj) => shapeErrors(volumeBackupSchema, obj),
  schema: volumeBackupSchema,

  applyDefaults(b) {
    stripNulls(b);
  },
  prepareForCreate(b) {
    delete b.status;
  },
  prepareForUpdate(next, prev) {
    keepSystemMetadata(next, prev);
    keepStatus(next, prev);
  },
  prepareForStatusUpdate(next, prev) {
    keepAllButStatus(next, prev);
  },

  validate: validateBackup,
  validateUpdate: validateBackupUpdate,

  columns: (b) => ({
    ...noColumns(),
    phase: b.status?.phase ?? null,
    claimName: b.spec?.source?.persistentVolumeClaimName ?? b.status?.sourceClaimName ?? null,
    nodeName: b.status?.node ?? null,
  }),

  table: {
    columns: [
      nameColumn,
      column('Source', 'What the backup reads: claim/<name> (Stowage takes a snapshot first) or snapshot/<name>.'),
      column('Target', 'The BackupTarget the backup is kept in.'),
      column('Phase', 'Pending, InProgress, Completed or Failed.'),
      { name: 'Progress', type: 'string', description: 'How much of the data was read, in percent.', priority: 0 },
      column('Size', "The volume's size: the smallest claim a restore may ask for."),
      column('New', 'Bytes written to the target that it did not hold before.'),
      ageColumn,
    ],
    row: (b, now) => [
      b.metadata?.name ?? '',
      backupSource(b),
      b.status?.backupTargetName ?? b.spec?.backupTargetName ?? '',
      b.status?.phase ?? 'Pending',
      b.status?.progress === undefined ? '' : `${b.status.progress}%`,
      bytesCell(b.status?.sizeBytes),
      bytesCell(b.status?.newBytes),
      ageOf(b.metadata?.creationTimestamp, now),
    ],
  },
};

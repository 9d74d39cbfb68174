// The VolumeSnapshot strategy (snapshot.storage.k8s.io/v1, namespaced): the rules of
// upstream's CRD (spec and spec.source required; exactly one source; the source's fields
// immutable and required once set; a class name never empty; restoreSize a quantity), its
// status subresource, and its additionalPrinterColumns.
import type { FieldError } from '../../domain/errors';
import { ageOf } from '../../domain/duration';
import { quantityFromJSON } from '../../domain/quantity';
import { ageColumn, column, nameColumn, noColumns } from '../columns';
import { invalid, required } from '../field-errors';
import { keepAllButStatus, keepSystemMetadata, shapeErrors, stripNulls, validateObjectMeta, validateObjectMetaUpdate, validateTypeMeta, keepStatus } from '../metadata';
import { celError, celExactlyOne, celImmutable, celRequiredOnceSet, SNAPSHOT_API_VERSION } from '../snapshot-fields';
import type { Strategy, TableColumn } from '../types';
import { volumeSnapshotSchema, type VolumeSnapshot } from './schema';

/** The CRD's pattern for status.restoreSize (a resource.Quantity). */
export const QUANTITY_PATTERN = '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$';
const quantityPattern = new RegExp(QUANTITY_PATTERN);

function validateSnapshot(vs: VolumeSnapshot): FieldError[] {
  const errs = [...validateTypeMeta(vs, SNAPSHOT_API_VERSION, 'VolumeSnapshot'), ...validateObjectMeta(vs.metadata, { namespaced: true, name: 'dns-subdomain' })];
  const spec = vs.spec;
  if (!spec) return [...errs, required('spec')];
  if (!spec.source) errs.push(required('spec.source'));
  else {
    errs.push(
      ...celExactlyOne(
        'spec.source',
        spec.source,
        spec.source.volumeSnapshotContentName,
        spec.source.persistentVolumeClaimName,
        'exactly one of volumeSnapshotContentName and persistentVolumeClaimName must be set',
      ),
    );
  }
  if (spec.volumeSnapshotClassName !== undefined && spec.volumeSnapshotClassName.length === 0) {
    errs.push(celError('spec.volumeSnapshotClassName', spec.volumeSnapshotClassName, 'volumeSnapshotClassName must not be the empty string when set'));
  }
  const size = vs.status?.restoreSize;
  if (size !== undefined && typeof size === 'string' && !quantityPattern.test(size)) {
    errs.push(invalid('status.restoreSize', size, `status.restoreSize in body should match '${QUANTITY_PATTERN}'`));
  }
  return errs;
}

function validateSnapshotUpdate(next: VolumeSnapshot, prev: VolumeSnapshot): FieldError[] {
  const errs = validateObjectMetaUpdate(next.metadata, prev.metadata);
  const n = next.spec?.source;
  const p = prev.spec?.source;
  if (n && p) {
    errs.push(
      ...celImmutable('spec.source.persistentVolumeClaimName', 'persistentVolumeClaimName', n.persistentVolumeClaimName, p.persistentVolumeClaimName),
      ...celImmutable('spec.source.volumeSnapshotContentName', 'volumeSnapshotContentName', n.volumeSnapshotContentName, p.volumeSnapshotContentName),
      ...celRequiredOnceSet('spec.source', n, 'persistentVolumeClaimName', p.persistentVolumeClaimName, n.persistentVolumeClaimName),
      ...celRequiredOnceSet('spec.source', n, 'volumeSnapshotContentName', p.volumeSnapshotContentName, n.volumeSnapshotContentName),
    );
  }
  return errs;
}

const dateColumn = (name: string, description: string): TableColumn => ({ name, type: 'date', description, priority: 0 });

export const volumeSnapshotStrategy: Strategy<VolumeSnapshot> = {
  kind: 'VolumeSnapshot',
  group: 'snapshot.storage.k8s.io',
  version: 'v1',
  apiVersion: SNAPSHOT_API_VERSION,
  plural: 'volumesnapshots',
  singular: 'volumesnapshot',
  shortNames: ['vs'],
  namespaced: true,
  hasStatus: true,
  fieldSelectors: {},

  validateShape: (obj) => shapeErrors(volumeSnapshotSchema, obj),
  schema: volumeSnapshotSchema,

  applyDefaults(vs) {
    stripNulls(vs);
    const size = vs.status?.restoreSize;
    // A number is a Quantity too (x-kubernetes-int-or-string); it is kept as its string.
    if (typeof size === 'number' && quantityFromJSON(size)) vs.status!.restoreSize = String(size);
  },
  // As the apiserver does for a CRD with a status subresource: status is the controllers'.
  prepareForCreate(vs) {
    delete vs.status;
  },
  prepareForUpdate(next, prev) {
    keepSystemMetadata(next, prev);
    keepStatus(next, prev);
  },
  prepareForStatusUpdate(next, prev) {
    keepAllButStatus(next, prev);
  },

  validate: validateSnapshot,
  validateUpdate: validateSnapshotUpdate,

  columns: (vs) => ({ ...noColumns(), claimName: vs.spec?.source?.persistentVolumeClaimName ?? null }),

  table: {
    columns: [
      nameColumn,
      { name: 'ReadyToUse', type: 'boolean', description: 'Indicates if the snapshot is ready to be used to restore a volume.', priority: 0 },
      column('SourcePVC', 'If a new snapshot needs to be created, this contains the name of the source PVC from which this snapshot was (or will be) created.'),
      column('SourceSnapshotContent', 'If a snapshot already exists, this contains the name of the existing VolumeSnapshotContent object representing the existing snapshot.'),
      column('RestoreSize', 'Represents the minimum size of volume required to rehydrate from this snapshot.'),
      column('SnapshotClass', 'The name of the VolumeSnapshotClass requested by the VolumeSnapshot.'),
      column(
        'SnapshotContent',
        'Name of the VolumeSnapshotContent object to which the VolumeSnapshot object intends to bind to. Please note that verification of binding actually requires checking both VolumeSnapshot and VolumeSnapshotContent to ensure both are pointing at each other. Binding MUST be verified prior to usage of this object.',
      ),
      dateColumn('CreationTime', 'Timestamp when the point-in-time snapshot was taken by the underlying storage system.'),
      ageColumn,
    ],
    row: (vs, now) => [
      vs.metadata?.name ?? '',
      vs.status?.readyToUse ?? '',
      vs.spec?.source?.persistentVolumeClaimName ?? '',
      vs.spec?.source?.volumeSnapshotContentName ?? '',
      vs.status?.restoreSize === undefined ? '' : String(vs.status.restoreSize),
      vs.spec?.volumeSnapshotClassName ?? '',
      vs.status?.boundVolumeSnapshotContentName ?? '',
      vs.status?.creationTime ? ageOf(vs.status.creationTime, now) : '',
      ageOf(vs.metadata?.creationTimestamp, now),
    ],
  },
};

// The VolumeSnapshotContent strategy (snapshot.storage.k8s.io/v1, cluster-scoped): the
// rules of upstream's CRD (deletionPolicy, driver, source and volumeSnapshotRef required;
// exactly one of volumeHandle and snapshotHandle, both immutable and required once set;
// sourceVolumeMode immutable; the ref names both name and namespace; restoreSize ≥ 0),
// its status subresource, and its additionalPrinterColumns.
import type { FieldError } from '../../domain/errors';
import { ageOf } from '../../domain/duration';
import { ageColumn, column, nameColumn, noColumns } from '../columns';
import { invalid, required } from '../field-errors';
import { keepAllButStatus, keepSystemMetadata, shapeErrors, stripNulls, validateObjectMeta, validateObjectMetaUpdate, validateTypeMeta, keepStatus } from '../metadata';
import { celError, celExactlyOne, celImmutable, celRequiredOnceSet, deletionPolicyErrors, requiredField, SNAPSHOT_API_VERSION } from '../snapshot-fields';
import type { Strategy } from '../types';
import { volumeSnapshotContentSchema, type VolumeSnapshotContent } from './schema';

function validateContent(c: VolumeSnapshotContent): FieldError[] {
  const errs = [...validateTypeMeta(c, SNAPSHOT_API_VERSION, 'VolumeSnapshotContent'), ...validateObjectMeta(c.metadata, { namespaced: false, name: 'dns-subdomain' })];
  const spec = c.spec;
  if (!spec) return [...errs, required('spec')];
  errs.push(...deletionPolicyErrors('spec.deletionPolicy', spec.deletionPolicy), ...requiredField('spec.driver', spec.driver));
  if (!spec.source) errs.push(required('spec.source'));
  else errs.push(...celExactlyOne('spec.source', spec.source, spec.source.volumeHandle, spec.source.snapshotHandle, 'exactly one of volumeHandle and snapshotHandle must be set'));
  const ref = spec.volumeSnapshotRef;
  if (!ref) errs.push(required('spec.volumeSnapshotRef'));
  else if (ref.name === undefined || ref.namespace === undefined) {
    errs.push(celError('spec.volumeSnapshotRef', ref, 'both spec.volumeSnapshotRef.name and spec.volumeSnapshotRef.namespace must be set'));
  }
  const created = c.status?.creationTime;
  if (created !== undefined && !Number.isInteger(created)) errs.push(invalid('status.creationTime', created, 'status.creationTime in body must be of type integer: "number"'));
  const size = c.status?.restoreSize;
  if (size !== undefined && size < 0) errs.push(invalid('status.restoreSize', size, 'status.restoreSize in body should be greater than or equal to 0'));
  return errs;
}

function validateContentUpdate(next: VolumeSnapshotContent, prev: VolumeSnapshotContent): FieldError[] {
  const errs = validateObjectMetaUpdate(next.metadata, prev.metadata);
  const n = next.spec;
  const p = prev.spec;
  if (!n || !p) return errs;
  errs.push(...celRequiredOnceSet('spec', n, 'sourceVolumeMode', p.sourceVolumeMode, n.sourceVolumeMode));
  errs.push(...celImmutable('spec.sourceVolumeMode', 'sourceVolumeMode', n.sourceVolumeMode, p.sourceVolumeMode));
  if (n.source && p.source) {
    errs.push(
      ...celImmutable('spec.source.snapshotHandle', 'snapshotHandle', n.source.snapshotHandle, p.source.snapshotHandle),
      ...celImmutable('spec.source.volumeHandle', 'volumeHandle', n.source.volumeHandle, p.source.volumeHandle),
      ...celRequiredOnceSet('spec.source', n.source, 'volumeHandle', p.source.volumeHandle, n.source.volumeHandle),
      ...celRequiredOnceSet('spec.source', n.source, 'snapshotHandle', p.source.snapshotHandle, n.source.snapshotHandle),
    );
  }
  return errs;
}

export const volumeSnapshotContentStrategy: Strategy<VolumeSnapshotContent> = {
  kind: 'VolumeSnapshotContent',
  group: 'snapshot.storage.k8s.io',
  version: 'v1',
  apiVersion: SNAPSHOT_API_VERSION,
  plural: 'volumesnapshotcontents',
  singular: 'volumesnapshotcontent',
  shortNames: ['vsc', 'vscs'],
  namespaced: false,
  hasStatus: true,
  fieldSelectors: {},

  validateShape: (obj) => shapeErrors(volumeSnapshotContentSchema, obj),
  schema: volumeSnapshotContentSchema,

  applyDefaults(c) {
    stripNulls(c);
  },
  prepareForCreate(c) {
    delete c.status;
  },
  prepareForUpdate(next, prev) {
    keepSystemMetadata(next, prev);
    keepStatus(next, prev);
  },
  prepareForStatusUpdate(next, prev) {
    keepAllButStatus(next, prev);
  },

  validate: validateContent,
  validateUpdate: validateContentUpdate,

  columns: (c) => ({
    ...noColumns(),
    claimNamespace: c.spec?.volumeSnapshotRef?.namespace ?? null,
    claimName: c.spec?.volumeSnapshotRef?.name ?? null,
    claimUid: c.spec?.volumeSnapshotRef?.uid ?? null,
  }),

  table: {
    columns: [
      nameColumn,
      { name: 'ReadyToUse', type: 'boolean', description: 'Indicates if the snapshot is ready to be used to restore a volume.', priority: 0 },
      { name: 'RestoreSize', type: 'integer', description: 'Represents the complete size of the snapshot in bytes', priority: 0 },
      column(
        'DeletionPolicy',
        'Determines whether this VolumeSnapshotContent and its physical snapshot on the underlying storage system should be deleted when its bound VolumeSnapshot is deleted.',
      ),
      column('Driver', 'Name of the CSI driver used to create the physical snapshot on the underlying storage system.'),
      column('VolumeSnapshotClass', 'Name of the VolumeSnapshotClass to which this snapshot belongs.'),
      column('VolumeSnapshot', 'Name of the VolumeSnapshot object to which this VolumeSnapshotContent object is bound.'),
      column('VolumeSnapshotNamespace', 'Namespace of the VolumeSnapshot object to which this VolumeSnapshotContent object is bound.'),
      ageColumn,
    ],
    row: (c, now) => [
      c.metadata?.name ?? '',
      c.status?.readyToUse ?? '',
      c.status?.restoreSize ?? '',
      c.spec?.deletionPolicy ?? '',
      c.spec?.driver ?? '',
      c.spec?.volumeSnapshotClassName ?? '',
      c.spec?.volumeSnapshotRef?.name ?? '',
      c.spec?.volumeSnapshotRef?.namespace ?? '',
      ageOf(c.metadata?.creationTimestamp, now),
    ],
  },
};

// The VolumeSnapshotClass strategy (snapshot.storage.k8s.io/v1, cluster-scoped): the rules
// of upstream's CRD (driver and deletionPolicy required, deletionPolicy Delete|Retain) and
// its additionalPrinterColumns (Driver, DeletionPolicy, Age).
import { ageOf } from '../../domain/duration';
import { annIsDefaultSnapshotClass } from '../../domain/well-known/annotations';
import { ageColumn, column, nameColumn, noColumns } from '../columns';
import { keepSystemMetadata, shapeErrors, stripNulls, validateObjectMeta, validateObjectMetaUpdate, validateTypeMeta } from '../metadata';
import { deletionPolicyErrors, requiredField, SNAPSHOT_API_VERSION } from '../snapshot-fields';
import type { Strategy } from '../types';
import { volumeSnapshotClassSchema, type VolumeSnapshotClass } from './schema';

/** Whether the class is its driver's default (upstream IsVolumeSnapshotClassDefaultAnnotation: exactly "true"). */
export function isDefaultSnapshotClass(c: VolumeSnapshotClass): boolean {
  return c.metadata?.annotations?.[annIsDefaultSnapshotClass] === 'true';
}

export const volumeSnapshotClassStrategy: Strategy<VolumeSnapshotClass> = {
  kind: 'VolumeSnapshotClass',
  group: 'snapshot.storage.k8s.io',
  version: 'v1',
  apiVersion: SNAPSHOT_API_VERSION,
  plural: 'volumesnapshotclasses',
  singular: 'volumesnapshotclass',
  shortNames: ['vsclass', 'vsclasses'],
  namespaced: false,
  hasStatus: false,
  fieldSelectors: {},

  validateShape: (obj) => shapeErrors(volumeSnapshotClassSchema, obj),
  schema: volumeSnapshotClassSchema,

  applyDefaults(c) {
    stripNulls(c);
  },
  prepareForCreate() {},
  prepareForUpdate(next, prev) {
    keepSystemMetadata(next, prev);
  },
  prepareForStatusUpdate(next, prev) {
    keepSystemMetadata(next, prev);
  },

  validate(c) {
    return [
      ...validateTypeMeta(c, SNAPSHOT_API_VERSION, 'VolumeSnapshotClass'),
      ...validateObjectMeta(c.metadata, { namespaced: false, name: 'dns-subdomain' }),
      ...deletionPolicyErrors('deletionPolicy', c.deletionPolicy),
      ...requiredField('driver', c.driver),
    ];
  },
  // The CRD has no transition rules: every field of a class may change.
  validateUpdate: (next, prev) => validateObjectMetaUpdate(next.metadata, prev.metadata),

  columns: () => noColumns(),

  table: {
    columns: [
      nameColumn,
      column('Driver', ''),
      column(
        'DeletionPolicy',
        'Determines whether a VolumeSnapshotContent created through the VolumeSnapshotClass should be deleted when its bound VolumeSnapshot is deleted.',
      ),
      ageColumn,
    ],
    row: (c, now) => [c.metadata?.name ?? '', c.driver ?? '', c.deletionPolicy ?? '', ageOf(c.metadata?.creationTimestamp, now)],
  },
};

// The CSIStorageCapacity strategy (storage.k8s.io/v1): shape, validation
// (pkg/apis/storage/validation ValidateCSIStorageCapacity and its update: only capacity and
// maximumVolumeSize may change) and the table (upstream's printer: name, storage class,
// capacity, age).
import type { FieldError } from '../../domain/errors';
import { ageOf } from '../../domain/duration';
import { validateLabelSelector } from '../../domain/label-selector';
import { isDNS1123Subdomain } from '../../domain/names';
import { formatQuantity, quantityFromJSON, quantityToBytes } from '../../domain/quantity';
import { ageColumn, column, nameColumn, noColumns } from '../columns';
import { immutable, invalid, required } from '../field-errors';
import { keepSystemMetadata, shapeErrors, stripNulls, validateObjectMeta, validateObjectMetaUpdate, validateTypeMeta } from '../metadata';
import { validateNonNegativeQuantity } from '../resource-list';
import type { Strategy } from '../types';
import { csiStorageCapacitySchema, type CSIStorageCapacity } from './schema';

function validateCapacity(c: CSIStorageCapacity): FieldError[] {
  const errs = [...validateTypeMeta(c, 'storage.k8s.io/v1', 'CSIStorageCapacity'), ...validateObjectMeta(c.metadata, { namespaced: true, name: 'dns-subdomain' })];
  if (!c.storageClassName) errs.push(required('storageClassName'));
  else for (const m of isDNS1123Subdomain(c.storageClassName)) errs.push(invalid('storageClassName', c.storageClassName, m));
  if (c.nodeTopology) errs.push(...validateLabelSelector(c.nodeTopology, 'nodeTopology'));
  if (c.capacity !== undefined) errs.push(...validateNonNegativeQuantity(c.capacity, 'capacity'));
  if (c.maximumVolumeSize !== undefined) errs.push(...validateNonNegativeQuantity(c.maximumVolumeSize, 'maximumVolumeSize'));
  return errs;
}

/** A quantity in canonical form ("1024Mi" -> "1Gi"); left as it is when it does not parse (validation says so). */
function canonical<T>(v: T): T | string {
  const q = quantityFromJSON(v);
  return q ? formatQuantity(q) : v;
}

/** Bytes of a capacity quantity, when it parses. */
export function capacityBytes(c: CSIStorageCapacity): bigint | undefined {
  const q = quantityFromJSON(c.capacity);
  return q ? quantityToBytes(q) : undefined;
}

export const csiStorageCapacityStrategy: Strategy<CSIStorageCapacity> = {
  kind: 'CSIStorageCapacity',
  group: 'storage.k8s.io',
  version: 'v1',
  apiVersion: 'storage.k8s.io/v1',
  plural: 'csistoragecapacities',
  singular: 'csistoragecapacity',
  shortNames: [],
  namespaced: true,
  hasStatus: false,
  fieldSelectors: {},

  validateShape: (obj) => shapeErrors(csiStorageCapacitySchema, obj),
  schema: csiStorageCapacitySchema,

  applyDefaults(c) {
    stripNulls(c);
    if (c.capacity !== undefined) c.capacity = canonical(c.capacity);
    if (c.maximumVolumeSize !== undefined) c.maximumVolumeSize = canonical(c.maximumVolumeSize);
  },
  prepareForCreate() {},
  prepareForUpdate(next, prev) {
    keepSystemMetadata(next, prev);
  },
  prepareForStatusUpdate(next, prev) {
    keepSystemMetadata(next, prev);
  },

  validate: validateCapacity,
  validateUpdate(next, prev) {
    return [
      ...validateObjectMetaUpdate(next.metadata, prev.metadata),
      ...immutable('storageClassName', next.storageClassName, prev.storageClassName),
      ...immutable('nodeTopology', next.nodeTopology, prev.nodeTopology),
    ];
  },

  columns: (c) => ({ ...noColumns(), storageClass: c.storageClassName ?? null, capacityBytes: capacityBytes(c)?.toString() ?? null }),

  table: {
    columns: [
      nameColumn,
      column('StorageClassName', 'storageClassName represents the name of the StorageClass that the reported capacity applies to.'),
      column('Capacity', 'capacity is the value reported by the CSI driver in its GetCapacityResponse.'),
      ageColumn,
    ],
    row: (c, now) => [c.metadata?.name ?? '', c.storageClassName ?? '', c.capacity === undefined ? '<unset>' : String(c.capacity), ageOf(c.metadata?.creationTimestamp, now)],
  },
};

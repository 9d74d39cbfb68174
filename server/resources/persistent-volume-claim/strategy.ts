// The PersistentVolumeClaim strategy: defaults, what create and update reset
// (pkg/registry/core/persistentvolumeclaim/strategy.go), indexed columns and the table.
import { abbreviateAccessModes, accessModesToBits } from '../../domain/access-modes';
import { ageOf } from '../../domain/duration';
import { ageColumn, column, nameColumn, noColumns } from '../columns';
import { keepAllButStatus, keepSystemMetadata, shapeErrors, stripNulls, keepStatus } from '../metadata';
import { bytesOf, canonicalizeResourceList, showQuantity } from '../resource-list';
import type { Strategy } from '../types';
import { persistentVolumeClaimWarnings } from '../volume-warnings';
import { persistentVolumeClaimSchema, type PersistentVolumeClaim } from './schema';
import { dropDisabledDataSourceFields, prepareDataSourcesForCreate } from './data-sources';
import { validatePersistentVolumeClaim, validatePersistentVolumeClaimUpdate } from './validation';
import { annBetaStorageClass, annBetaStorageProvisioner, annStorageProvisioner } from '../../domain/well-known/annotations';

export { persistentVolumeClaimSchema } from './schema';

/** The claim's class: the beta annotation wins; undefined when neither is set ("" is a class: none). */
export function persistentVolumeClaimClass(pvc: PersistentVolumeClaim): string | undefined {
  return pvc.metadata?.annotations?.[annBetaStorageClass] ?? pvc.spec?.storageClassName;
}

function canonicalizeQuantities(pvc: PersistentVolumeClaim): void {
  canonicalizeResourceList(pvc.spec?.resources?.requests);
  canonicalizeResourceList(pvc.spec?.resources?.limits);
  canonicalizeResourceList(pvc.status?.capacity);
  canonicalizeResourceList(pvc.status?.allocatedResources);
}

export const persistentVolumeClaimStrategy: Strategy<PersistentVolumeClaim> = {
  kind: 'PersistentVolumeClaim',
  group: '',
  version: 'v1',
  apiVersion: 'v1',
  plural: 'persistentvolumeclaims',
  singular: 'persistentvolumeclaim',
  shortNames: ['pvc'],
  namespaced: true,
  hasStatus: true,
  // Upstream selects claims by metadata.name/namespace only, plus the legacy "name".
  fieldSelectors: {
    name: (pvc) => pvc.metadata?.name ?? '',
  },

  warnings: persistentVolumeClaimWarnings,
  validateShape: (obj) => shapeErrors(persistentVolumeClaimSchema, obj),
  schema: persistentVolumeClaimSchema,

  applyDefaults(pvc) {
    stripNulls(pvc);
    pvc.spec ??= {};
    pvc.spec.volumeMode ??= 'Filesystem';
    canonicalizeQuantities(pvc);
    pvc.status ??= {};
    if (!pvc.status.phase) pvc.status.phase = 'Pending';
  },

  prepareForCreate(pvc) {
    pvc.status = { phase: 'Pending' };
    if (pvc.spec) prepareDataSourcesForCreate(pvc.spec);
  },

  prepareForUpdate(next, prev) {
    keepSystemMetadata(next, prev);
    keepStatus(next, prev);
    // Upstream PrepareForUpdate: DropDisabledFields against the stored spec.
    if (next.spec) dropDisabledDataSourceFields(next.spec, prev.spec ?? undefined);
  },

  prepareForStatusUpdate(next, prev) {
    keepAllButStatus(next, prev);
  },

  validate: validatePersistentVolumeClaim,
  validateUpdate: validatePersistentVolumeClaimUpdate,

  columns(pvc) {
    const spec = pvc.spec ?? {};
    const annotations = pvc.metadata?.annotations ?? {};
    return {
      ...noColumns(),
      phase: pvc.status?.phase ?? null,
      storageClass: persistentVolumeClaimClass(pvc) ?? null,
      capacityBytes: bytesOf(spec.resources?.requests?.storage),
      accessModes: accessModesToBits(spec.accessModes ?? []),
      volumeMode: spec.volumeMode ?? null,
      volumeName: spec.volumeName || null,
      provisioning:
        annotations[annStorageProvisioner] !== undefined || annotations[annBetaStorageProvisioner] !== undefined,
    };
  },

  table: {
    columns: [
      nameColumn,
      column('Status', 'phase represents the current phase of PersistentVolumeClaim.'),
      column('Volume', 'volumeName is the binding reference to the PersistentVolume backing this claim.'),
      column('Capacity', 'capacity represents the actual resources of the underlying volume.'),
      column('Access Modes', 'accessModes contains the actual access modes the volume backing the PVC has.'),
      column('StorageClass', 'StorageClass of the pvc'),
      ageColumn,
      column(
        'VolumeMode',
        'volumeMode defines what type of volume is required by the claim. Value of Filesystem is implied when not included in claim spec.',
        1,
      ),
    ],
    row(pvc, now) {
      const spec = pvc.spec ?? {};
      const bound = Boolean(spec.volumeName);
      const capacity = pvc.status?.capacity?.storage;
      return [
        pvc.metadata?.name ?? '',
        pvc.metadata?.deletionTimestamp ? 'Terminating' : (pvc.status?.phase ?? ''),
        spec.volumeName ?? '',
        bound ? (capacity === undefined ? '0' : showQuantity(capacity)) : '',
        bound ? abbreviateAccessModes(pvc.status?.accessModes ?? []) : '',
        persistentVolumeClaimClass(pvc) ?? '',
        ageOf(pvc.metadata?.creationTimestamp, now),
        spec.volumeMode ?? '<unset>',
      ];
    },
  },
};

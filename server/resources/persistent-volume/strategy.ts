// The PersistentVolume strategy: defaults (pkg/apis/core/v1/defaults.go), what create
// and update reset (pkg/registry/core/persistentvolume/strategy.go), indexed columns and
// the table kubectl prints (pkg/printers/internalversion/printers.go).
import { usageOf } from '../../domain/volume-usage';
import { abbreviateAccessModes, accessModesToBits } from '../../domain/access-modes';
import { ageOf } from '../../domain/duration';
import { ageColumn, column, nameColumn, noColumns } from '../columns';
import { keepAllButStatus, keepSystemMetadata, shapeErrors, stripNulls, timestampNow, keepStatus } from '../metadata';
import { pinnedHostname } from '../node-selector';
import { bytesOf, canonicalizeResourceList, showQuantity } from '../resource-list';
import type { Strategy } from '../types';
import { persistentVolumeWarnings } from '../volume-warnings';
import { persistentVolumeSchema, type PersistentVolume } from './schema';
import { validatePersistentVolume, validatePersistentVolumeUpdate } from './validation';
import { annAlphaStorageClass, annBetaStorageClass } from '../../domain/well-known/annotations';

export { persistentVolumeSchema } from './schema';

/** The PV's class: the beta annotation wins over spec.storageClassName; "" when none. */
export function persistentVolumeClass(pv: PersistentVolume): string {
  return pv.metadata?.annotations?.[annBetaStorageClass] ?? pv.spec?.storageClassName ?? '';
}

export const persistentVolumeStrategy: Strategy<PersistentVolume> = {
  kind: 'PersistentVolume',
  group: '',
  version: 'v1',
  apiVersion: 'v1',
  plural: 'persistentvolumes',
  singular: 'persistentvolume',
  shortNames: ['pv'],
  namespaced: false,
  hasStatus: true,
  // Upstream selects PVs by metadata.name only, plus the legacy "name".
  fieldSelectors: {
    name: (pv) => pv.metadata?.name ?? '',
  },

  warnings: persistentVolumeWarnings,
  validateShape: (obj) => shapeErrors(persistentVolumeSchema, obj),
  schema: persistentVolumeSchema,

  applyDefaults(pv) {
    stripNulls(pv);
    pv.spec ??= {};
    if (!pv.spec.persistentVolumeReclaimPolicy) pv.spec.persistentVolumeReclaimPolicy = 'Retain';
    pv.spec.volumeMode ??= 'Filesystem';
    if (pv.spec.hostPath && pv.spec.hostPath.type === undefined) pv.spec.hostPath.type = '';
    canonicalizeResourceList(pv.spec.capacity);
    pv.status ??= {};
    if (!pv.status.phase) pv.status.phase = 'Pending';
  },

  prepareForCreate(pv) {
    pv.status = { phase: 'Pending', lastPhaseTransitionTime: timestampNow() };
  },

  prepareForUpdate(next, prev) {
    keepSystemMetadata(next, prev);
    keepStatus(next, prev);
  },

  prepareForStatusUpdate(next, prev) {
    const status = (next.status ??= {});
    const before = prev.status ?? {};
    // Absent and null alike: the request did not set a time.
    if (status.phase === before.phase) {
      if (status.lastPhaseTransitionTime == null && before.lastPhaseTransitionTime != null) {
        status.lastPhaseTransitionTime = before.lastPhaseTransitionTime;
      }
    } else if (status.lastPhaseTransitionTime == null || status.lastPhaseTransitionTime === before.lastPhaseTransitionTime) {
      status.lastPhaseTransitionTime = timestampNow();
    }
    keepAllButStatus(next, prev);
  },

  validate: validatePersistentVolume,
  validateUpdate: validatePersistentVolumeUpdate,

  columns(pv) {
    const spec = pv.spec ?? {};
    return {
      ...noColumns(),
      phase: pv.status?.phase ?? null,
      storageClass: persistentVolumeClass(pv),
      capacityBytes: bytesOf(spec.capacity?.storage),
      accessModes: accessModesToBits(spec.accessModes ?? []),
      volumeMode: spec.volumeMode ?? null,
      claimNamespace: spec.claimRef?.namespace ?? null,
      claimName: spec.claimRef?.name ?? null,
      claimUid: spec.claimRef?.uid ?? null,
      nodeName: pinnedHostname(spec.nodeAffinity) ?? null,
      provisioning: pv.metadata?.annotations?.[annAlphaStorageClass] !== undefined,
      usedBytes: usageOf(pv)?.bytes.toString() ?? null,
    };
  },

  table: {
    columns: [
      nameColumn,
      column('Capacity', "capacity is the description of the persistent volume's resources and capacity."),
      column('Access Modes', 'accessModes contains all ways the volume can be mounted.'),
      column(
        'Reclaim Policy',
        'persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim. Valid options are Retain (default for manually created PersistentVolumes), Delete (default for dynamically provisioned PersistentVolumes), and Recycle (deprecated).',
      ),
      column('Status', 'phase indicates if a volume is available, bound to a claim, or released by a claim.'),
      column(
        'Claim',
        'claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim. Expected to be non-nil when bound.',
      ),
      column('StorageClass', 'StorageClass of the pv'),
      column('Reason', 'reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy display in the CLI.'),
      ageColumn,
      column(
        'VolumeMode',
        'volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state. Value of Filesystem is implied when not included in spec.',
        1,
      ),
    ],
    row(pv, now) {
      const spec = pv.spec ?? {};
      const claim = spec.claimRef ? `${spec.claimRef.namespace ?? ''}/${spec.claimRef.name ?? ''}` : '';
      const phase = pv.metadata?.deletionTimestamp ? 'Terminating' : (pv.status?.phase ?? '');
      return [
        pv.metadata?.name ?? '',
        spec.capacity?.storage === undefined ? '0' : showQuantity(spec.capacity.storage),
        abbreviateAccessModes(spec.accessModes ?? []),
        spec.persistentVolumeReclaimPolicy ?? '',
        phase,
        claim,
        persistentVolumeClass(pv),
        pv.status?.reason ?? '',
        ageOf(pv.metadata?.creationTimestamp, now),
        spec.volumeMode ?? '<unset>',
      ];
    },
  },
};

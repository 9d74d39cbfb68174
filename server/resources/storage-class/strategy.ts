// The StorageClass strategy (storage.k8s.io/v1): shape, defaults
// (pkg/apis/storage/v1/defaults.go), validation (pkg/apis/storage/validation) and table.
import type { FieldError } from '../../domain/errors';
import { ageOf } from '../../domain/duration';
import { isQualifiedName } from '../../domain/names';
import { ageColumn, column, nameColumn, noColumns } from '../columns';
import { child, deepEqual, duplicate, forbidden, immutable, invalid, notSupported, required, tooLong } from '../field-errors';
import { keepSystemMetadata, shapeErrors, stripNulls, validateObjectMeta, validateObjectMetaUpdate, validateTypeMeta } from '../metadata';
import { sameTopologyTerm, validateTopologySelectorTerm } from '../node-selector';
import type { Strategy } from '../types';
import { storageClassSchema, type StorageClass } from './schema';
import { inTreeParameterProblems } from './in-tree-parameters';
import { annBetaIsDefaultClass, annIsDefaultClass } from '../../domain/well-known/annotations';


export const storageClassReclaimPolicies = ['Delete', 'Retain'] as const;
export const volumeBindingModes = ['Immediate', 'WaitForFirstConsumer'] as const;

/** Whether the class is marked as the default one (either annotation set to "true"). */
export function isDefaultClass(sc: StorageClass): boolean {
  const a = sc.metadata?.annotations ?? {};
  return a[annIsDefaultClass] === 'true' || a[annBetaIsDefaultClass] === 'true';
}

const maxParameters = 512;
const maxParametersSize = 256 * 1024;

function validateStorageClass(sc: StorageClass): FieldError[] {
  const errs = [
    ...validateTypeMeta(sc, 'storage.k8s.io/v1', 'StorageClass'),
    ...validateObjectMeta(sc.metadata, { namespaced: false, name: 'dns-subdomain' }),
  ];
  const provisioner: string = sc.provisioner ?? '';
  if (!provisioner) errs.push(required('provisioner'));
  else for (const msg of isQualifiedName(provisioner.toLowerCase())) errs.push(invalid('provisioner', provisioner, msg));

  const params: Record<string, string> = sc.parameters ?? {};
  const entries = Object.entries(params);
  // Upstream validateParameters: over 512 entries is one TooLong (in "bytes", as upstream words
  // it) and nothing else; otherwise keys plus values may total 256 KiB, counted in bytes.
  if (entries.length > maxParameters) {
    errs.push(tooLong('parameters', maxParameters));
  } else {
    let size = 0;
    for (const [k, v] of entries) {
      if (k.length < 1) errs.push(invalid('parameters', k, 'field can not be empty.'));
      size += Buffer.byteLength(k, 'utf8') + Buffer.byteLength(String(v), 'utf8');
    }
    if (size > maxParametersSize) errs.push(tooLong('parameters', maxParametersSize));
  }
  // Stowage's own provisioners: a class that could never provision is refused now, parameter named.
  for (const p of inTreeParameterProblems(provisioner, params)) {
    errs.push(p.parameter === undefined ? invalid('parameters', params, p.message) : invalid(child('parameters', p.parameter), params[p.parameter] ?? '', p.message));
  }

  // Only an absent policy defaults to Delete; upstream checks a policy only when it is not empty.
  if (sc.reclaimPolicy && !(storageClassReclaimPolicies as readonly string[]).includes(sc.reclaimPolicy)) {
    errs.push(notSupported('reclaimPolicy', sc.reclaimPolicy, storageClassReclaimPolicies));
  }
  if (sc.volumeBindingMode === undefined) errs.push(required('volumeBindingMode'));
  else if (!(volumeBindingModes as readonly string[]).includes(sc.volumeBindingMode)) {
    errs.push(notSupported('volumeBindingMode', sc.volumeBindingMode, volumeBindingModes));
  }

  const terms = sc.allowedTopologies ?? [];
  terms.forEach((term, i) => {
    errs.push(...validateTopologySelectorTerm(term, child('allowedTopologies', i)));
    if (terms.slice(0, i).some((earlier) => sameTopologyTerm(earlier, term))) {
      errs.push(duplicate(child('allowedTopologies', i, 'matchLabelExpressions'), ''));
    }
  });
  return errs;
}

function validateStorageClassUpdate(next: StorageClass, prev: StorageClass): FieldError[] {
  const errs = validateObjectMetaUpdate(next.metadata, prev.metadata);
  if (!deepEqual(next.parameters, prev.parameters)) {
    errs.push(forbidden('parameters', 'updates to parameters are forbidden.'));
  }
  if ((next.provisioner ?? '') !== (prev.provisioner ?? '')) {
    errs.push(forbidden('provisioner', 'updates to provisioner are forbidden.'));
  }
  if ((next.reclaimPolicy ?? '') !== (prev.reclaimPolicy ?? '')) {
    errs.push(forbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
  }
  errs.push(...immutable('volumeBindingMode', next.volumeBindingMode, prev.volumeBindingMode));
  return errs;
}

export const storageClassStrategy: Strategy<StorageClass> = {
  kind: 'StorageClass',
  group: 'storage.k8s.io',
  version: 'v1',
  apiVersion: 'storage.k8s.io/v1',
  plural: 'storageclasses',
  singular: 'storageclass',
  shortNames: ['sc'],
  namespaced: false,
  hasStatus: false,
  fieldSelectors: {},

  validateShape: (obj) => shapeErrors(storageClassSchema, obj),
  schema: storageClassSchema,

  applyDefaults(sc) {
    stripNulls(sc);
    sc.reclaimPolicy ??= 'Delete';
    sc.volumeBindingMode ??= 'Immediate';
  },

  prepareForCreate() {},

  prepareForUpdate(next, prev) {
    keepSystemMetadata(next, prev);
  },

  // No status subresource: nothing to keep apart.
  prepareForStatusUpdate(next, prev) {
    keepSystemMetadata(next, prev);
  },

  validate: validateStorageClass,
  validateUpdate: validateStorageClassUpdate,

  columns: () => noColumns(),

  table: {
    columns: [
      nameColumn,
      column('Provisioner', 'provisioner indicates the type of the provisioner.'),
      column(
        'ReclaimPolicy',
        'reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class. Defaults to Delete.',
      ),
      column(
        'VolumeBindingMode',
        'volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound. When unset, VolumeBindingImmediate is used.',
      ),
      column('AllowVolumeExpansion', 'allowVolumeExpansion shows whether the storage class allow volume expand.'),
      ageColumn,
    ],
    row(sc, now) {
      const name = sc.metadata?.name ?? '';
      return [
        isDefaultClass(sc) ? `${name} (default)` : name,
        sc.provisioner ?? '',
        sc.reclaimPolicy ?? 'Delete',
        sc.volumeBindingMode ?? 'Immediate',
        sc.allowVolumeExpansion ?? false,
        ageOf(sc.metadata?.creationTimestamp, now),
      ];
    },
  },
};

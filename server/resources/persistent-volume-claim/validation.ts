// PersistentVolumeClaim validation, after upstream ValidatePersistentVolumeClaim(Spec|Update).
import type { FieldError } from '../../domain/errors';
import { validateLabelSelector } from '../../domain/label-selector';
import { isDNS1123Subdomain, nameIsDNSLabel, nameIsDNSSubdomain } from '../../domain/names';
import type { PersistentVolumeClaim } from './schema';
import { child, deepEqual, forbidden, immutable, invalid, notSupported, required } from '../field-errors';
import { validateObjectMeta, validateObjectMetaUpdate, validateTypeMeta } from '../metadata';
import { compareQuantityValues, validatePositiveQuantity, validateQuantities, validateResourceList } from '../resource-list';
import { validateAccessModes, validateVolumeMode } from '../volume-fields';
import { claimPhases } from './schema';
import { annBetaStorageClass } from '../../domain/well-known/annotations';

type Spec = NonNullable<PersistentVolumeClaim['spec']>;
/** spec.dataSource, or spec.dataSourceRef (which may also name a namespace). */
type DataSource = NonNullable<Spec['dataSourceRef']>;

/**
 * Upstream reports a disagreement of dataSource and dataSourceRef on `spec` with the value
 * fldPath.Child("dataSource"), a *field.Path: its fields are unexported, so the message shows
 * it as `{}` (`spec: Invalid value: {}: must match dataSourceRef`).
 */
const fieldPathValue = {};

export function validatePersistentVolumeClaim(pvc: PersistentVolumeClaim): FieldError[] {
  const errs = [
    ...validateTypeMeta(pvc, 'v1', 'PersistentVolumeClaim'),
    ...validateObjectMeta(pvc.metadata, { namespaced: true, name: 'dns-subdomain' }),
  ];
  const spec: Spec = pvc.spec ?? {};

  const modes = spec.accessModes ?? [];
  if (modes.length === 0) errs.push(required('spec.accessModes', 'at least 1 access mode is required'));
  if (spec.selector) errs.push(...validateLabelSelector(spec.selector, 'spec.selector'));
  errs.push(...validateAccessModes(modes, 'spec.accessModes'));

  // Upstream names the storage request `spec.resources[storage]` (fldPath.Child("resources").Key("storage"))
  // and checks no other request or limit beyond decoding it.
  const requests = spec.resources?.requests ?? {};
  if (requests.storage === undefined) errs.push(required('spec.resources[storage]'));
  else errs.push(...validatePositiveQuantity(requests.storage, 'spec.resources[storage]'));
  const { storage: _storage, ...otherRequests } = requests;
  errs.push(...validateQuantities(otherRequests, 'spec.resources.requests'));
  errs.push(...validateQuantities(spec.resources?.limits ?? undefined, 'spec.resources.limits'));

  if (spec.storageClassName) {
    for (const msg of nameIsDNSSubdomain(spec.storageClassName, false)) {
      errs.push(invalid('spec.storageClassName', spec.storageClassName, msg));
    }
  }
  errs.push(...validateVolumeMode(spec.volumeMode, 'spec.volumeMode'));
  if (spec.dataSource) errs.push(...validateDataSource(spec.dataSource, 'spec.dataSource'));
  if (spec.dataSourceRef) errs.push(...validateDataSource(spec.dataSourceRef, 'spec.dataSourceRef'));
  if (spec.dataSourceRef?.namespace) {
    if (spec.dataSource) {
      errs.push(invalid('spec', fieldPathValue, 'may not be specified when dataSourceRef.namespace is specified'));
    }
  } else if (spec.dataSource && spec.dataSourceRef) {
    const [ds, ref] = [spec.dataSource, spec.dataSourceRef];
    const same = (['apiGroup', 'kind', 'name'] as const).every((k) => (ds[k] ?? '') === (ref[k] ?? ''));
    if (!same) errs.push(invalid('spec', fieldPathValue, 'must match dataSourceRef'));
  }
  if (spec.volumeAttributesClassName) {
    for (const msg of nameIsDNSSubdomain(spec.volumeAttributesClassName, false)) {
      errs.push(invalid('spec.volumeAttributesClassName', spec.volumeAttributesClassName, msg));
    }
  }

  const status = pvc.status ?? {};
  if (status.phase && !(claimPhases as readonly string[]).includes(status.phase)) {
    errs.push(notSupported('status.phase', status.phase, claimPhases));
  }
  errs.push(...validateResourceList(status.capacity, 'status.capacity'));
  errs.push(...validateResourceList(status.allocatedResources, 'status.allocatedResources'));
  return errs;
}

function validateDataSource(ref: DataSource, at: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!ref.name) errs.push(required(child(at, 'name')));
  if (!ref.kind) errs.push(required(child(at, 'kind')));
  const apiGroup = ref.apiGroup ?? '';
  if (!apiGroup && ref.kind !== 'PersistentVolumeClaim') {
    errs.push(invalid(at, ref.kind ?? '', "must be 'PersistentVolumeClaim' when referencing the default apiGroup"));
  }
  if (apiGroup) for (const msg of isDNS1123Subdomain(apiGroup)) errs.push(invalid(child(at, 'apiGroup'), apiGroup, msg));
  if (ref.namespace) {
    for (const msg of nameIsDNSLabel(ref.namespace, false)) errs.push(invalid(child(at, 'namespace'), ref.namespace, msg));
  }
  return errs;
}

const specImmutable = 'spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims';

/** Rules for an update (ValidatePersistentVolumeClaimUpdate). */
export function validatePersistentVolumeClaimUpdate(next: PersistentVolumeClaim, prev: PersistentVolumeClaim): FieldError[] {
  const errs = validateObjectMetaUpdate(next.metadata, prev.metadata);
  const n: Spec = structuredClone(next.spec ?? {});
  const p: Spec = structuredClone(prev.spec ?? {});

  // The binder sets volumeName once.
  if (!p.volumeName) p.volumeName = n.volumeName;

  const oldAnnotations = prev.metadata?.annotations ?? {};
  const newAnnotations = next.metadata?.annotations ?? {};
  const oldAnn: string | undefined = oldAnnotations[annBetaStorageClass];
  const newAnn: string | undefined = newAnnotations[annBetaStorageClass];
  const fromAnnotation =
    oldAnn !== undefined &&
    p.storageClassName === undefined &&
    n.storageClassName === oldAnn &&
    (newAnn === undefined || newAnn === oldAnn);
  if (fromAnnotation) {
    delete n.storageClassName;
  } else {
    if ((newAnn ?? '') !== (oldAnn ?? '')) {
      // ValidateImmutableAnnotation names it with Child(): dots, no brackets.
      errs.push(invalid(`metadata.annotations.${annBetaStorageClass}`, newAnn ?? '', 'field is immutable'));
    }
    const fromNil =
      n.storageClassName !== undefined && p.storageClassName === undefined && (oldAnn === undefined || n.storageClassName === oldAnn);
    if (fromNil) n.storageClassName = p.storageClassName;
  }

  const bound = next.status?.phase === 'Bound';
  if (bound && n.resources?.requests) {
    if (p.resources?.requests?.storage === undefined) delete n.resources.requests.storage;
    else n.resources.requests.storage = p.resources.requests.storage;
  }
  // Upstream copies the old volumeAttributesClassName into the compared spec for every claim,
  // bound or not: its changes have their own rules below.
  if (p.volumeAttributesClassName === undefined) delete n.volumeAttributesClassName;
  else n.volumeAttributesClassName = p.volumeAttributesClassName;

  // volumeMode gets its own error below.
  const { volumeMode: newMode, ...nRest } = n;
  const { volumeMode: oldMode, ...pRest } = p;
  // Upstream reports one error on spec, whichever fields changed (its message then adds a
  // Go diff of the two specs, which is not reproduced).
  const field = (o: object, key: string) => (o as Record<string, unknown>)[key];
  const changed = [...new Set([...Object.keys(nRest), ...Object.keys(pRest)])].some((key) => !deepEqual(field(nRest, key), field(pRest, key)));
  if (changed) errs.push(forbidden('spec', specImmutable));

  const newSize = next.spec?.resources?.requests?.storage;
  const oldSize = prev.spec?.resources?.requests?.storage;
  if (newSize !== undefined && oldSize !== undefined && compareQuantityValues(newSize, oldSize) < 0) {
    // Shrinking is allowed only to recover from a failed expansion, never to status.capacity or below.
    if (compareQuantityValues(newSize, prev.status?.capacity?.storage) <= 0) {
      errs.push(forbidden('spec.resources.requests.storage', 'field can not be less than status.capacity'));
    }
  }
  // Upstream names it without "spec." (field.NewPath("volumeMode")).
  errs.push(...immutable('volumeMode', newMode, oldMode));

  const oldVac = prev.spec?.volumeAttributesClassName;
  const newVac = next.spec?.volumeAttributesClassName;
  if (oldVac !== undefined && newVac === undefined) {
    errs.push(forbidden('spec.volumeAttributesClassName', 'update from non-nil value to nil is forbidden'));
  } else if (oldVac !== undefined && newVac === '') {
    errs.push(forbidden('spec.volumeAttributesClassName', 'update from non-nil value to an empty string is forbidden'));
  }
  return errs;
}

// PersistentVolume validation, after upstream ValidatePersistentVolume(Spec|Update)
// and pkg/volume/validation (mount options).
import type { FieldError } from '../../domain/errors';
import { isDNS1123Label, isDNS1123Subdomain, nameIsDNSSubdomain } from '../../domain/names';
import type { PersistentVolume } from './schema';
import { child, deepEqual, forbidden, immutable, invalid, key, notSupported, required, tooLong } from '../field-errors';
import { validateObjectMeta, validateObjectMetaUpdate, validateTypeMeta } from '../metadata';
import { sameNodeAffinityAllowingGALabels, validateVolumeNodeAffinity } from '../node-selector';
import { validateBasicAndPositive } from '../resource-list';
import { validateAccessModes, validateVolumeMode } from '../volume-fields';
import {
  hostPathTypes,
  looseSourceRequiredFields,
  mountOptionAnnotationSources,
  reclaimPolicies,
  volumePhases,
  volumeSources,
  type VolumeSourceName,
} from './schema';
import { annDynamicallyProvisioned, annMountOptions, annReplicationActiveNode } from '../../domain/well-known/annotations';
import { btrfsProvisioner } from '../../domain/well-known/provisioners';

type Spec = NonNullable<PersistentVolume['spec']>;

/** The volume sources set on a spec, in upstream's order. */
export function sourcesOf(spec: Spec | undefined): VolumeSourceName[] {
  return volumeSources.filter((s) => spec?.[s] !== undefined && spec?.[s] !== null);
}

export function validatePersistentVolume(pv: PersistentVolume): FieldError[] {
  const errs = [
    ...validateTypeMeta(pv, 'v1', 'PersistentVolume'),
    ...validateObjectMeta(pv.metadata, { namespaced: false, name: 'dns-subdomain' }),
  ];
  const spec: Spec = pv.spec ?? {};

  const modes = spec.accessModes ?? [];
  if (modes.length === 0) errs.push(required('spec.accessModes'));
  errs.push(...validateAccessModes(modes, 'spec.accessModes'));

  errs.push(...validateCapacity(spec.capacity));

  const policy = spec.persistentVolumeReclaimPolicy ?? '';
  if (policy && !(reclaimPolicies as readonly string[]).includes(policy)) {
    errs.push(notSupported('spec.persistentVolumeReclaimPolicy', policy, reclaimPolicies));
  }
  if (spec.nodeAffinity) errs.push(...validateVolumeNodeAffinity(spec.nodeAffinity, 'spec.nodeAffinity'));

  const sources = sourcesOf(spec);
  sources.forEach((source, i) => {
    const at = child('spec', source);
    if (i > 0) errs.push(forbidden(at, 'may not specify more than 1 volume type'));
    else errs.push(...validateSource(spec, source, at));
  });
  if (sources.length === 0) errs.push(required('spec', 'must specify a volume type'));
  if (sources[0] === 'local' && !spec.nodeAffinity) {
    errs.push(required('spec.nodeAffinity', 'Local volume requires node affinity'));
  }
  if (spec.hostPath && cleanPath(String(spec.hostPath.path ?? '')) === '/' && policy === 'Recycle') {
    errs.push(forbidden('spec.persistentVolumeReclaimPolicy', "may not be 'recycle' for a hostPath mount of '/'"));
  }

  if (spec.storageClassName) {
    for (const msg of nameIsDNSSubdomain(spec.storageClassName, false)) {
      errs.push(invalid('spec.storageClassName', spec.storageClassName, msg));
    }
  }
  errs.push(...validateVolumeMode(spec.volumeMode, 'spec.volumeMode'));
  if (spec.volumeAttributesClassName !== undefined) {
    const vac = spec.volumeAttributesClassName;
    if (vac === '') errs.push(required('spec.volumeAttributesClassName', 'an empty string is disallowed'));
    else for (const msg of nameIsDNSSubdomain(vac, false)) errs.push(invalid('spec.volumeAttributesClassName', vac, msg));
    if (!spec.csi) errs.push(required('spec.csi', 'has to be specified when using volumeAttributesClassName'));
  }

  // Upstream (pkg/volume/validation checkMountOption) checks only the deprecated annotation,
  // never spec.mountOptions, and names it with Child(): dots, no brackets.
  if (pv.metadata?.annotations?.[annMountOptions] !== undefined && !sources.some((src) => mountOptionAnnotationSources.includes(src))) {
    errs.push(forbidden(`metadata.annotations.${annMountOptions}`, 'may not specify mount options for this volume type'));
  }

  const phase = pv.status?.phase;
  if (phase && !(volumePhases as readonly string[]).includes(phase)) {
    errs.push(notSupported('status.phase', phase, volumePhases));
  }
  return errs;
}

function validateCapacity(capacity: Spec['capacity']): FieldError[] {
  const errs: FieldError[] = [];
  const keys = Object.keys(capacity ?? {});
  if (keys.length === 0) errs.push(required('spec.capacity'));
  if (!keys.includes('storage') || keys.length > 1) errs.push(notSupported('spec.capacity', capacity ?? {}, ['storage']));
  // Upstream: validateBasicResource, then ValidatePositiveQuantityValue, on capacity[name].
  for (const k of keys) errs.push(...validateBasicAndPositive(capacity?.[k], key('spec.capacity', k)));
  return errs;
}

/** The source set on the spec (sourcesOf found it there, so never the `?? {}`). */
function validateSource(spec: Spec, source: VolumeSourceName, at: string): FieldError[] {
  switch (source) {
    case 'hostPath':
      return validateHostPath(spec.hostPath ?? {}, at);
    case 'local':
      return validateLocal(spec.local ?? {}, at);
    case 'nfs':
      return validateNFS(spec.nfs ?? {}, at);
    case 'csi':
      return validateCSI(spec.csi ?? {}, at);
    default: {
      const value = spec[source] ?? {};
      return looseSourceRequiredFields[source]
        .filter((f) => isBlank(value[f]))
        .map((f) => required(child(at, f)));
    }
  }
}

function isBlank(v: unknown): boolean {
  return v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);
}

function validateHostPath(hp: NonNullable<Spec['hostPath']>, at: string): FieldError[] {
  const path = hp.path ?? '';
  if (!path) return [required(child(at, 'path'))];
  const errs = noBacksteps(path, child(at, 'path'));
  if (hp.type !== undefined && !(hostPathTypes as readonly string[]).includes(hp.type)) {
    errs.push(notSupported(child(at, 'type'), hp.type, hostPathTypes));
  }
  return errs;
}

function validateLocal(local: NonNullable<Spec['local']>, at: string): FieldError[] {
  const path = local.path ?? '';
  if (!path) return [required(child(at, 'path'))];
  // Upstream requires no absolute path here (it dropped that check); only no `..` element.
  return noBacksteps(path, child(at, 'path'));
}

function validateNFS(nfs: NonNullable<Spec['nfs']>, at: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!nfs.server) errs.push(required(child(at, 'server')));
  const path = nfs.path ?? '';
  if (!path) errs.push(required(child(at, 'path')));
  else if (!path.startsWith('/')) errs.push(invalid(child(at, 'path'), path, 'must be an absolute path'));
  return errs;
}

const csiSecretRefs = [
  'controllerPublishSecretRef',
  'nodeStageSecretRef',
  'nodePublishSecretRef',
  'controllerExpandSecretRef',
  'nodeExpandSecretRef',
] as const;

function validateCSI(csi: NonNullable<Spec['csi']>, at: string): FieldError[] {
  const errs: FieldError[] = [];
  const driver = csi.driver ?? '';
  const driverPath = child(at, 'driver');
  if (!driver) errs.push(required(driverPath));
  if (driver.length > 63) errs.push(tooLong(driverPath, 63));
  if (driver) for (const msg of isDNS1123Subdomain(driver.toLowerCase())) errs.push(invalid(driverPath, driver, msg));
  if (!csi.volumeHandle) errs.push(required(child(at, 'volumeHandle')));
  for (const ref of csiSecretRefs) {
    const secret = csi[ref];
    if (!secret) continue;
    const name = secret.name ?? '';
    const namespace = secret.namespace ?? '';
    if (!name) errs.push(required(child(at, ref, 'name')));
    else for (const msg of isDNS1123Subdomain(name)) errs.push(invalid(child(at, ref, 'name'), name, msg));
    if (!namespace) errs.push(required(child(at, ref, 'namespace')));
    else for (const msg of isDNS1123Label(namespace)) errs.push(invalid(child(at, ref, 'namespace'), namespace, msg));
  }
  return errs;
}

/** No `..` element (upstream validatePathNoBacksteps). */
export function noBacksteps(path: string, field: string): FieldError[] {
  return path.split('/').includes('..') ? [invalid(field, path, "must not contain '..'")] : [];
}

/** Lexical path cleaning as Go's path.Clean, enough to recognise "/". */
export function cleanPath(p: string): string {
  const absolute = p.startsWith('/');
  const out: string[] = [];
  for (const part of p.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
      else if (!absolute) out.push('..');
    } else out.push(part);
  }
  const joined = out.join('/');
  return absolute ? `/${joined}` : joined || '.';
}

/** Rules for an update of the main resource (ValidatePersistentVolumeUpdate). */
export function validatePersistentVolumeUpdate(next: PersistentVolume, prev: PersistentVolume): FieldError[] {
  const errs = validateObjectMetaUpdate(next.metadata, prev.metadata);
  const ns: Spec = next.spec ?? {};
  const ps: Spec = prev.spec ?? {};
  // Upstream reports one error on spec.persistentvolumesource, however many sources differ.
  let sourceChanged = false;
  for (const source of volumeSources) {
    let n: unknown = ns[source];
    // A CSI volume may gain a controllerExpandSecretRef it did not have.
    if (source === 'csi' && ps.csi && !ps.csi.controllerExpandSecretRef && ns.csi?.controllerExpandSecretRef) {
      const { controllerExpandSecretRef: _added, ...rest } = ns.csi;
      n = rest;
    }
    if (!deepEqual(n, ps[source])) sourceChanged = true;
  }
  if (sourceChanged) errs.push(forbidden('spec.persistentvolumesource', 'spec.persistentvolumesource is immutable after creation'));
  // Upstream names these two without the "spec." prefix (field.NewPath("volumeMode")).
  errs.push(...immutable('volumeMode', ns.volumeMode, ps.volumeMode));
  // A replicated pool volume's affinity names the nodes holding its copies, which change
  // (a failover, a replica rebuilt elsewhere): mutable for those only, as upstream's
  // MutablePVNodeAffinity lets a volume's driver move it.
  const replicated = [next, prev].every((pv) => pv.metadata?.annotations?.[annDynamicallyProvisioned] === btrfsProvisioner && !!pv.metadata?.annotations?.[annReplicationActiveNode]);
  if (ps.nodeAffinity && !replicated && !sameNodeAffinityAllowingGALabels(ns.nodeAffinity, ps.nodeAffinity)) {
    errs.push(invalid('nodeAffinity', ns.nodeAffinity ?? null, 'field is immutable, except for updating from beta label to GA'));
  }
  if (ps.volumeAttributesClassName !== undefined && ns.volumeAttributesClassName === undefined) {
    errs.push(forbidden('spec.volumeAttributesClassName', 'update from non-nil value to nil is forbidden'));
  }
  return errs;
}

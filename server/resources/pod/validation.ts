// Pod validation, after upstream ValidatePod / ValidatePodUpdate for the fields Stowage
// interprets: containers and their names, volumes (unique names, claim names), volume
// mounts and devices naming declared volumes, nodeSelector and node affinity. Fields
// Stowage does not interpret are kept as sent and not validated.
import type { FieldError } from '../../domain/errors';
import { isDNS1123Label, isQualifiedName, isValidLabelValue, nameIsDNSSubdomain } from '../../domain/names';
import { child, deepEqual, duplicate, forbidden, invalid, notSupported, required } from '../field-errors';
import { validateObjectMeta, validateObjectMetaUpdate, validateTypeMeta } from '../metadata';
import { validateNodeSelector } from '../node-selector';
import { podPhases, type Pod } from './schema';

type Spec = NonNullable<Pod['spec']>;
type Container = NonNullable<Spec['containers']>[number];
type PodVolume = NonNullable<Spec['volumes']>[number];

const notFound = (field: string, value: string): FieldError => ({ field, reason: 'FieldValueNotFound', message: `Not found: ${JSON.stringify(value)}` });

function validateContainers(list: Container[], at: string, volumes: Map<string, PodVolume>, names: Set<string>): FieldError[] {
  const errs: FieldError[] = [];
  list.forEach((c, i) => {
    const base = child(at, i);
    const name = c.name ?? '';
    if (!name) errs.push(required(child(base, 'name')));
    else {
      for (const msg of isDNS1123Label(name)) errs.push(invalid(child(base, 'name'), name, msg));
      if (names.has(name)) errs.push(duplicate(child(base, 'name'), name));
      names.add(name);
    }
    const mountPaths = new Set<string>();
    (c.volumeMounts ?? []).forEach((m, j) => {
      const mat = child(base, 'volumeMounts', j);
      if (!m.name) errs.push(required(child(mat, 'name')));
      else if (!volumes.has(m.name)) errs.push(notFound(child(mat, 'name'), m.name));
      else if (volumes.get(m.name)?.persistentVolumeClaim && isBlockOnly(c, m.name)) {
        errs.push(invalid(child(mat, 'name'), m.name, 'can not be used as both a volumeMount and a volumeDevice'));
      }
      if (!m.mountPath) errs.push(required(child(mat, 'mountPath')));
      else if (mountPaths.has(m.mountPath)) errs.push(invalid(child(mat, 'mountPath'), m.mountPath, 'must be unique'));
      else mountPaths.add(m.mountPath);
    });
    const devicePaths = new Set<string>();
    (c.volumeDevices ?? []).forEach((d, j) => {
      const dat = child(base, 'volumeDevices', j);
      if (!d.name) errs.push(required(child(dat, 'name')));
      else if (!volumes.has(d.name)) errs.push(notFound(child(dat, 'name'), d.name));
      else if (!volumes.get(d.name)?.persistentVolumeClaim) {
        errs.push(invalid(child(dat, 'name'), d.name, 'can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode'));
      }
      if (!d.devicePath) errs.push(required(child(dat, 'devicePath')));
      else if (devicePaths.has(d.devicePath)) errs.push(invalid(child(dat, 'devicePath'), d.devicePath, 'must be unique'));
      else devicePaths.add(d.devicePath);
    });
  });
  return errs;
}

/** A volume both mounted and used as a device in one container. */
function isBlockOnly(container: Container, volume: string): boolean {
  return (container.volumeDevices ?? []).some((d) => d.name === volume);
}

export function validatePod(pod: Pod): FieldError[] {
  const errs = [...validateTypeMeta(pod, 'v1', 'Pod'), ...validateObjectMeta(pod.metadata, { namespaced: true, name: 'dns-subdomain' })];
  const spec: Spec = pod.spec ?? {};

  const volumes = new Map<string, PodVolume>();
  (spec.volumes ?? []).forEach((v, i) => {
    const at = child('spec.volumes', i);
    const name = v.name ?? '';
    if (!name) errs.push(required(child(at, 'name')));
    else {
      for (const msg of isDNS1123Label(name)) errs.push(invalid(child(at, 'name'), name, msg));
      if (volumes.has(name)) errs.push(duplicate(child(at, 'name'), name));
      volumes.set(name, v);
    }
    if (v.persistentVolumeClaim) {
      const claimName = v.persistentVolumeClaim.claimName ?? '';
      const cat = child(at, 'persistentVolumeClaim', 'claimName');
      if (!claimName) errs.push(required(cat));
      else for (const msg of nameIsDNSSubdomain(claimName, false)) errs.push(invalid(cat, claimName, msg));
    }
  });

  const containers = spec.containers ?? [];
  if (containers.length === 0) errs.push(required('spec.containers'));
  const names = new Set<string>();
  errs.push(...validateContainers(containers, 'spec.containers', volumes, names));
  errs.push(...validateContainers(spec.initContainers ?? [], 'spec.initContainers', volumes, names));

  if (spec.nodeName) {
    for (const msg of nameIsDNSSubdomain(spec.nodeName, false)) errs.push(invalid('spec.nodeName', spec.nodeName, msg));
  }
  for (const [k, v] of Object.entries(spec.nodeSelector ?? {})) {
    for (const msg of isQualifiedName(k)) errs.push(invalid(child('spec.nodeSelector', k), k, msg));
    for (const msg of isValidLabelValue(v)) errs.push(invalid(child('spec.nodeSelector', k), v, msg));
  }
  const required_ = spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (required_) {
    errs.push(...validateNodeSelector(required_, 'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution'));
  }
  const restart = spec.restartPolicy;
  if (restart !== undefined && !['Always', 'OnFailure', 'Never'].includes(restart)) {
    errs.push(notSupported('spec.restartPolicy', restart, ['Always', 'OnFailure', 'Never']));
  }
  const phase = pod.status?.phase;
  if (phase !== undefined && !(podPhases as readonly string[]).includes(phase)) errs.push(notSupported('status.phase', phase, podPhases));
  return errs;
}

export const podUpdateMessage =
  'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,' +
  '`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),' +
  '`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

/** What may change in a pod's spec: container images, activeDeadlineSeconds, added tolerations, and nodeName once (placement). */
export function validatePodUpdate(next: Pod, prev: Pod): FieldError[] {
  const errs = validateObjectMetaUpdate(next.metadata, prev.metadata);
  const n: Spec = structuredClone(next.spec ?? {});
  const p: Spec = structuredClone(prev.spec ?? {});
  const sameImages = (a: Container[] | undefined, b: Container[] | undefined) => {
    (a ?? []).forEach((c, i) => {
      if (b?.[i] && 'image' in c) b[i].image = c.image;
    });
  };
  sameImages(n.containers, p.containers);
  sameImages(n.initContainers, p.initContainers);
  p.activeDeadlineSeconds = n.activeDeadlineSeconds;
  if (p.activeDeadlineSeconds === undefined) delete p.activeDeadlineSeconds;
  // Tolerations are kept as sent (not in the schema): a value that is not a list is not
  // taken over, so changing it is refused below (it used to throw on the list methods).
  const oldTolerations = p.tolerations ?? [];
  const newTolerations = n.tolerations ?? [];
  const lists = Array.isArray(oldTolerations) && Array.isArray(newTolerations);
  if (lists && oldTolerations.every((t) => newTolerations.some((u) => deepEqual(t, u)))) {
    if (n.tolerations === undefined) delete p.tolerations;
    else p.tolerations = n.tolerations;
  }
  if (!p.nodeName && n.nodeName) p.nodeName = n.nodeName;
  if (!deepEqual(n, p)) errs.push(forbidden('spec', podUpdateMessage));
  return errs;
}

// StorageClass parameters that name a Secret, as upstream CSI provisioning does
// (external-provisioner, "CSI Secrets"): `csi.storage.k8s.io/provisioner-secret-name` and
// `-namespace` (and the deprecated `csiProvisionerSecretName` / `-Namespace`), whose values
// may use the templates ${pv.name}, ${pvc.namespace}, ${pvc.name}. The names are not
// secrets; the Secret they name is read by the provisioner only. Reserved
// `csi.storage.k8s.io/` keys are for the provisioner, not the plugin. Pure: no I/O.
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';
import { isDNS1123Label, isDNS1123Subdomain } from './names';

export const CSI_PREFIX = 'csi.storage.k8s.io/';

export interface SecretRef {
  namespace: string;
  name: string;
}

const KEYS = [
  { name: `${CSI_PREFIX}provisioner-secret-name`, namespace: `${CSI_PREFIX}provisioner-secret-namespace` },
  { name: 'csiProvisionerSecretName', namespace: 'csiProvisionerSecretNamespace' },
];

function expand(template: string, vars: Record<string, string>): string | undefined {
  let bad = false;
  const out = template.replace(/\$\{([^}]*)\}/g, (_m, v: string) => {
    if (v in vars) return vars[v];
    bad = true;
    return '';
  });
  return bad ? undefined : out;
}

/**
 * The Secret the provisioner reads for a claim of this class, undefined when the class
 * names none; throws with a message (never a value) when only half is set or a template
 * is unknown.
 */
export function provisionerSecretRef(parameters: Record<string, string>, claim: PersistentVolumeClaim, pvName: string): SecretRef | undefined {
  for (const k of KEYS) {
    const name = parameters[k.name];
    const namespace = parameters[k.namespace];
    if (name === undefined && namespace === undefined) continue;
    if (!name || !namespace) throw new Error(`both ${k.name} and ${k.namespace} must be set`);
    const vars = { 'pv.name': pvName, 'pvc.namespace': claim.metadata.namespace ?? '', 'pvc.name': claim.metadata.name ?? '' };
    const nsVars = { 'pv.name': pvName, 'pvc.namespace': claim.metadata.namespace ?? '' };
    const n = expand(name, vars);
    const ns = expand(namespace, nsVars);
    if (n === undefined) throw new Error(`${k.name} uses an unknown template`);
    if (ns === undefined) throw new Error(`${k.namespace} uses an unknown template`);
    return { namespace: ns, name: n };
  }
  return undefined;
}

/** The parameters a plugin sees: without the provisioner's reserved keys. */
export function pluginParameters(parameters: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(parameters)) {
    if (k.startsWith(CSI_PREFIX) || k === 'csiProvisionerSecretName' || k === 'csiProvisionerSecretNamespace') continue;
    out[k] = v;
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Snapshotter secrets (external-snapshotter pkg/utils/util.go GetSecretReference): the
// VolumeSnapshotClass parameters csi.storage.k8s.io/snapshotter-secret-name / -namespace,
// with the templates ${volumesnapshotcontent.name}, ${volumesnapshot.namespace} and (name
// only) ${volumesnapshot.name}; the reference is put on a dynamic content as the
// deletion-secret annotations, which the snapshotter reads to take and to delete.

export const SNAPSHOTTER_SECRET_NAME = `${CSI_PREFIX}snapshotter-secret-name`;
export const SNAPSHOTTER_SECRET_NAMESPACE = `${CSI_PREFIX}snapshotter-secret-namespace`;

export type SecretRefChoice = { ok: true; ref?: SecretRef } | { ok: false; message: string };

/** Go's os.Expand with upstream's resolveTemplate: unknown tokens are an error, listed sorted. */
function resolveTemplate(template: string, params: Record<string, string>): { value: string } | { error: string } {
  const missing = new Set<string>();
  const value = template.replace(/\$\{([^}]*)\}|\$([A-Za-z0-9_]+)/g, (_m, braced: string | undefined, bare: string | undefined) => {
    const k = braced ?? bare ?? '';
    if (Object.hasOwn(params, k)) return params[k];
    missing.add(k);
    return '';
  });
  if (missing.size > 0) return { error: `invalid tokens: [${[...missing].sort().map((m) => JSON.stringify(m)).join(' ')}]` };
  return { value };
}

/**
 * The snapshotter Secret of a content taken with a class of these parameters, in upstream's
 * words on error (never a secret value: only the class's templates and the names they give).
 * `snapshot` is absent when the snapshot is gone (a deletion).
 */
export function snapshotterSecretRef(parameters: Record<string, string>, contentName: string, snapshot?: { name: string; namespace: string }): SecretRefChoice {
  const nameTemplate = parameters[SNAPSHOTTER_SECRET_NAME];
  const namespaceTemplate = parameters[SNAPSHOTTER_SECRET_NAMESPACE];
  const fail = (m: string): SecretRefChoice => ({ ok: false, message: m });
  if ((nameTemplate === undefined) !== (namespaceTemplate === undefined)) {
    return fail('failed to get name and namespace template from params: either name and namespace for Snapshotter secrets specified, Both must be specified');
  }
  if (nameTemplate === undefined || namespaceTemplate === undefined) return { ok: true };
  if (nameTemplate === '' || namespaceTemplate === '') {
    return fail('failed to get name and namespace template from params: Snapshotter secrets specified in parameters but value of either namespace or name is empty');
  }
  const nsParams: Record<string, string> = { 'volumesnapshotcontent.name': contentName };
  if (snapshot) nsParams['volumesnapshot.namespace'] = snapshot.namespace;
  const ns = resolveTemplate(namespaceTemplate, nsParams);
  if ('error' in ns) return fail(`error resolving value ${JSON.stringify(namespaceTemplate)}: ${ns.error}`);
  if (isDNS1123Label(ns.value).length > 0) {
    return fail(namespaceTemplate !== ns.value ? `${JSON.stringify(namespaceTemplate)} resolved to ${JSON.stringify(ns.value)} which is not a valid namespace name` : `${JSON.stringify(namespaceTemplate)} is not a valid namespace name`);
  }
  const nameParams: Record<string, string> = { 'volumesnapshotcontent.name': contentName };
  if (snapshot) {
    nameParams['volumesnapshot.name'] = snapshot.name;
    nameParams['volumesnapshot.namespace'] = snapshot.namespace;
  }
  const name = resolveTemplate(nameTemplate, nameParams);
  if ('error' in name) return fail(`error resolving value ${JSON.stringify(nameTemplate)}: ${name.error}`);
  if (isDNS1123Subdomain(name.value).length > 0) {
    return fail(nameTemplate !== name.value ? `${JSON.stringify(nameTemplate)} resolved to ${JSON.stringify(name.value)} which is not a valid secret name` : `${JSON.stringify(nameTemplate)} is not a valid secret name`);
  }
  return { ok: true, ref: { namespace: ns.value, name: name.value } };
}

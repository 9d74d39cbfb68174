// StorageClass parameters that name a Secret, as upstream CSI provisioning does
// (external-provisioner, "CSI Secrets"): `csi.storage.k8s.io/provisioner-secret-name` and
// `-namespace` (and the deprecated `csiProvisionerSecretName` / `-Namespace`), whose values
// may use the templates ${pv.name}, ${pvc.namespace}, ${pvc.name}. The names are not
// secrets; the Secret they name is read by the provisioner only. Reserved
// `csi.storage.k8s.io/` keys are for the provisioner, not the plugin. Pure: no I/O.
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';

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
    if (v in vars) return vars[v]!;
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

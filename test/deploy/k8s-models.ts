// An offline check of Kubernetes manifests against the API's types, as kubeconform checks
// against the OpenAPI schema: the models of @kubernetes/client-node are generated from
// upstream's OpenAPI document and list every field of every type with its type. A field no
// type has (a typo such as `mountPropogation`), a value of the wrong type, or a value
// outside the enums below is reported with its path. No API server needed.
import * as k8s from '@kubernetes/client-node';

interface Attribute {
  baseName: string;
  type: string;
}
type Model = { getAttributeTypeMap(): Attribute[] };

/** Enumerated string fields the manifests use, with upstream's values. */
const ENUMS: Record<string, string[]> = {
  'V1VolumeMount.mountPropagation': ['None', 'HostToContainer', 'Bidirectional'],
  'V1HostPathVolumeSource.type': ['', 'DirectoryOrCreate', 'Directory', 'FileOrCreate', 'File', 'Socket', 'CharDevice', 'BlockDevice'],
  'V1HTTPGetAction.scheme': ['HTTP', 'HTTPS'],
  'V1Container.imagePullPolicy': ['Always', 'IfNotPresent', 'Never'],
  'V1DaemonSetUpdateStrategy.type': ['RollingUpdate', 'OnDelete'],
  'V1ServicePort.protocol': ['TCP', 'UDP', 'SCTP'],
};

function modelOf(type: string): Model | undefined {
  const m = (k8s as unknown as Record<string, unknown>)[type] as Partial<Model> | undefined;
  return typeof m?.getAttributeTypeMap === 'function' ? (m as Model) : undefined;
}

function check(value: unknown, type: string, at: string): string[] {
  if (value === null || value === undefined) return [];
  const list = /^Array<(.+)>$/.exec(type);
  if (list) return Array.isArray(value) ? value.flatMap((v, i) => check(v, list[1], `${at}[${i}]`)) : [`${at}: must be a list`];
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map) {
    if (typeof value !== 'object' || Array.isArray(value)) return [`${at}: must be a map`];
    return Object.entries(value).flatMap(([k, v]) => check(v, map[1], `${at}[${k}]`));
  }
  switch (type) {
    case 'string':
    case 'Date':
      return typeof value === 'string' ? [] : [`${at}: must be a string, got ${JSON.stringify(value)}`];
    case 'number':
      return typeof value === 'number' ? [] : [`${at}: must be a number, got ${JSON.stringify(value)}`];
    case 'boolean':
      return typeof value === 'boolean' ? [] : [`${at}: must be a boolean, got ${JSON.stringify(value)}`];
    case 'IntOrString':
      return typeof value === 'string' || typeof value === 'number' ? [] : [`${at}: must be a number or a string`];
    case 'any':
    case 'object':
      return [];
  }
  const model = modelOf(type);
  if (!model) return [`${at}: no model for type ${type}`];
  if (typeof value !== 'object' || Array.isArray(value)) return [`${at}: must be an object (${type})`];
  const attrs = new Map(model.getAttributeTypeMap().map((a) => [a.baseName, a.type]));
  const errs: string[] = [];
  for (const [key, v] of Object.entries(value)) {
    const t = attrs.get(key);
    if (!t) {
      errs.push(`${at}.${key}: unknown field (${type})`);
      continue;
    }
    const allowed = ENUMS[`${type}.${key}`];
    if (allowed && !allowed.includes(v as string)) errs.push(`${at}.${key}: unsupported value ${JSON.stringify(v)} (${allowed.join(', ')})`);
    errs.push(...check(v, t, `${at}.${key}`));
  }
  return errs;
}

/** What is wrong with one object (apiVersion v1, apps/v1 or rbac.authorization.k8s.io/v1), as "path: problem" lines. */
export function manifestErrors(obj: { apiVersion?: unknown; kind?: unknown }): string[] {
  const version = String(obj.apiVersion ?? '').split('/').pop();
  if (version !== 'v1') return [`${String(obj.kind)}: apiVersion ${String(obj.apiVersion)} is not checked here`];
  return check(obj, `V1${String(obj.kind)}`, String(obj.kind));
}

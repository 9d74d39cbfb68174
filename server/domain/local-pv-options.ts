// The local-volume ConfigMap's provisioner-wide keys beside storageClassMap, as upstream's
// static provisioner reads them (pkg/common ProvisionerConfiguration): each a data key whose
// value is YAML. Pure: parses and validates text, does no I/O.
//
//   nodeLabelsForPV: |      # node labels copied onto each PV of the node (when the node has them)
//     - topology.kubernetes.io/zone
//   labelsForPV: |          # labels put on every PV
//     team: storage
//   setPVOwnerRef: "true"   # each PV is owned by its Node (ownerReferences)
//   useNodeNameOnly: "true" # node affinity names the node, not its kubernetes.io/hostname label
import { parseDocument } from 'yaml';
import { isQualifiedName, isValidLabelValue } from './names';

export const localPvOptionKeys = ['nodeLabelsForPV', 'labelsForPV', 'setPVOwnerRef', 'useNodeNameOnly'] as const;

export interface LocalPvOptions {
  nodeLabelsForPV: string[];
  labelsForPV: Record<string, string>;
  setPVOwnerRef: boolean;
  useNodeNameOnly: boolean;
}

export const defaultLocalPvOptions: LocalPvOptions = { nodeLabelsForPV: [], labelsForPV: {}, setPVOwnerRef: false, useNodeNameOnly: false };

export type LocalPvOptionsParse = { ok: true; options: LocalPvOptions } | { ok: false; errors: { field: string; message: string }[] };

const maxEntries = 64;

function yamlOf(text: string): { value?: unknown; error?: string } {
  if (text.length > 64 * 1024) return { error: 'must be no more than 65536 bytes' };
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false, version: '1.2' });
  if (doc.errors.length > 0) return { error: `invalid YAML: ${doc.errors[0].message.split('\n')[0]}` };
  try {
    // Maps stay Maps: a key such as "__proto__" is data, never an object's prototype.
    return { value: doc.toJS({ mapAsMap: true, maxAliasCount: 10 }) };
  } catch (e) {
    return { error: `invalid YAML: ${(e as Error).message}` };
  }
}

function bool(text: string): boolean | undefined {
  const v = yamlOf(text).value;
  return typeof v === 'boolean' ? v : undefined;
}

/** The provisioner-wide keys of the ConfigMap's data; every error names its key. */
export function parseLocalPvOptions(data: Readonly<Record<string, string>> | undefined): LocalPvOptionsParse {
  const options: LocalPvOptions = { nodeLabelsForPV: [], labelsForPV: {}, setPVOwnerRef: false, useNodeNameOnly: false };
  const errors: { field: string; message: string }[] = [];
  const text = (key: string) => (data && Object.prototype.hasOwnProperty.call(data, key) ? data[key] : undefined);

  const nodeLabels = text('nodeLabelsForPV');
  if (nodeLabels !== undefined) {
    const { value, error } = yamlOf(nodeLabels);
    if (error) errors.push({ field: 'nodeLabelsForPV', message: error });
    else if (value !== null && value !== undefined && !Array.isArray(value)) errors.push({ field: 'nodeLabelsForPV', message: 'must be a list of label keys' });
    else if ((value ?? []).length > maxEntries) errors.push({ field: 'nodeLabelsForPV', message: `must have no more than ${maxEntries} entries` });
    else {
      for (const [i, k] of ((value ?? []) as unknown[]).entries()) {
        const errs = typeof k === 'string' ? isQualifiedName(k) : ['must be a string'];
        if (errs.length > 0) errors.push({ field: `nodeLabelsForPV[${i}]`, message: errs.join('; ') });
        else if (!options.nodeLabelsForPV.includes(k as string)) options.nodeLabelsForPV.push(k as string);
      }
    }
  }

  const labels = text('labelsForPV');
  if (labels !== undefined) {
    const { value, error } = yamlOf(labels);
    if (error) errors.push({ field: 'labelsForPV', message: error });
    else if (value !== null && value !== undefined && !(value instanceof Map)) errors.push({ field: 'labelsForPV', message: 'must be a map of label key to value' });
    else if (value instanceof Map && value.size > maxEntries) errors.push({ field: 'labelsForPV', message: `must have no more than ${maxEntries} entries` });
    else if (value instanceof Map) {
      const out: Record<string, string> = Object.create(null);
      for (const [k, v] of value) {
        const keyErrs = typeof k === 'string' ? isQualifiedName(k) : ['keys must be strings'];
        const val = typeof v === 'number' || typeof v === 'boolean' ? String(v) : v;
        const valErrs = typeof val === 'string' ? isValidLabelValue(val) : ['must be a string'];
        if (keyErrs.length > 0) errors.push({ field: `labelsForPV[${String(k)}]`, message: `invalid label key: ${keyErrs.join('; ')}` });
        else if (valErrs.length > 0) errors.push({ field: `labelsForPV[${String(k)}]`, message: `invalid label value: ${valErrs.join('; ')}` });
        else out[k as string] = val as string;
      }
      options.labelsForPV = { ...out };
    }
  }

  for (const key of ['setPVOwnerRef', 'useNodeNameOnly'] as const) {
    const t = text(key);
    if (t === undefined) continue;
    const b = bool(t);
    if (b === undefined) errors.push({ field: key, message: 'must be true or false' });
    else options[key] = b;
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, options };
}

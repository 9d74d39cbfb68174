// The ConfigMap strategy (core/v1): shape, validation (ValidateConfigMap /
// ValidateConfigMapUpdate: keys, total size, immutability) and the table. One ConfigMap has
// a meaning to Stowage: kube-system/local-volume-config, whose data.storageClassMap is the
// node agents' configuration; a malformed map is refused here, at write time, with its field.
import type { FieldError } from '../../domain/errors';
import { ageOf } from '../../domain/duration';
import { parseStorageClassMap } from '../../domain/local-volume-config';
import { parseLocalPvOptions } from '../../domain/local-pv-options';
import { ageColumn, column, nameColumn, noColumns } from '../columns';
import { child, forbidden, invalid, required } from '../field-errors';
import {
  keepSystemMetadata,
  shapeErrors,
  stripNulls,
  validateObjectMeta,
  validateObjectMetaUpdate,
  validateTypeMeta,
} from '../metadata';
import type { Strategy } from '../types';
import { configMapSchema, type ConfigMap } from './schema';

/** Where the node agents' storageClassMap lives (seed 003). */
export const localVolumeConfigNamespace = 'kube-system';
export const localVolumeConfigName = 'local-volume-config';
export const storageClassMapKey = 'storageClassMap';

/** Upstream's limit on a ConfigMap's data (corev1.MaxSecretSize). */
export const maxConfigMapBytes = 1024 * 1024;
const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;

export function isLocalVolumeConfig(o: { metadata?: { namespace?: string; name?: string } }): boolean {
  return o.metadata?.namespace === localVolumeConfigNamespace && o.metadata?.name === localVolumeConfigName;
}

function keyErrors(field: string, key: string): string[] {
  const out: string[] = [];
  if (key.length > 253) out.push('must be no more than 253 characters');
  if (!CONFIG_KEY.test(key)) out.push("a valid config key must consist of alphanumeric characters, '-', '_' or '.'");
  if (key === '.' || key === '..' || key.startsWith('..')) out.push(`must not be '.' or '..' or start with '..'`);
  void field;
  return out;
}

function validateConfigMap(cm: ConfigMap): FieldError[] {
  const errs = [...validateTypeMeta(cm, 'v1', 'ConfigMap'), ...validateObjectMeta(cm.metadata, { namespaced: true, name: 'dns-subdomain' })];
  let total = 0;
  const data: Record<string, string> = cm.data ?? {};
  const binary: Record<string, string> = cm.binaryData ?? {};
  for (const [k, v] of Object.entries(data)) {
    for (const m of keyErrors('data', k)) errs.push(invalid(child('data', k), k, m));
    total += Buffer.byteLength(v);
  }
  for (const [k, v] of Object.entries(binary)) {
    for (const m of keyErrors('binaryData', k)) errs.push(invalid(child('binaryData', k), k, m));
    if (Object.prototype.hasOwnProperty.call(data, k)) errs.push(invalid(child('binaryData', k), k, 'duplicate of key present in data'));
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(v) || v.length % 4 !== 0) errs.push(invalid(child('binaryData', k), '<binary>', 'must be base64 encoded'));
    total += Math.floor((v.length * 3) / 4);
  }
  if (total > maxConfigMapBytes) errs.push(invalid('data', '<data>', `ConfigMap data must not exceed ${maxConfigMapBytes} bytes`));
  if (isLocalVolumeConfig(cm)) errs.push(...validateLocalVolumeConfig(cm));
  return errs;
}

/** The storageClassMap of kube-system/local-volume-config must parse: each problem named by its field. */
export function validateLocalVolumeConfig(cm: ConfigMap): FieldError[] {
  const text = cm.data?.[storageClassMapKey];
  const field = child('data', storageClassMapKey);
  if (text === undefined) return [required(field, 'the node agents read their storage classes from it')];
  const options = parseLocalPvOptions(cm.data);
  const optionErrors = options.ok ? [] : options.errors.map((e) => invalid(`data.${e.field}`, `<${e.field.split('[')[0]}>`, e.message));
  const parsed = parseStorageClassMap(text);
  if (parsed.ok) return optionErrors;
  // The parser names fields from "storageClassMap" down (storageClassMap[fast].hostDir).
  return [...optionErrors, ...parsed.errors.map((e) => invalid(e.field.startsWith(storageClassMapKey) ? `data.${e.field}` : child(field, e.field), '<storageClassMap>', e.message))];
}

export const configMapStrategy: Strategy<ConfigMap> = {
  kind: 'ConfigMap',
  group: '',
  version: 'v1',
  apiVersion: 'v1',
  plural: 'configmaps',
  singular: 'configmap',
  shortNames: ['cm'],
  namespaced: true,
  hasStatus: false,
  fieldSelectors: {},

  validateShape: (obj) => shapeErrors(configMapSchema, obj),
  schema: configMapSchema,

  applyDefaults(cm) {
    stripNulls(cm);
  },

  prepareForCreate() {},

  prepareForUpdate(next, prev) {
    keepSystemMetadata(next, prev);
  },

  prepareForStatusUpdate(next, prev) {
    keepSystemMetadata(next, prev);
  },

  validate: validateConfigMap,

  validateUpdate(next, prev) {
    const errs = validateObjectMetaUpdate(next.metadata, prev.metadata);
    if (prev.immutable === true) {
      if (next.immutable !== true) errs.push(forbidden('immutable', 'field is immutable when `immutable` is set'));
      if (JSON.stringify(next.data ?? {}) !== JSON.stringify(prev.data ?? {})) errs.push(forbidden('data', 'field is immutable when `immutable` is set'));
      if (JSON.stringify(next.binaryData ?? {}) !== JSON.stringify(prev.binaryData ?? {})) {
        errs.push(forbidden('binaryData', 'field is immutable when `immutable` is set'));
      }
    }
    return errs;
  },

  columns: () => noColumns(),

  table: {
    columns: [nameColumn, { ...column('Data', 'The number of keys in data and binaryData'), type: 'integer' }, ageColumn],
    row: (cm, now) => [
      cm.metadata?.name ?? '',
      Object.keys(cm.data ?? {}).length + Object.keys(cm.binaryData ?? {}).length,
      ageOf(cm.metadata?.creationTimestamp, now),
    ],
  },
};

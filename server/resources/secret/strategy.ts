// The Secret strategy (core/v1): shape, defaults, validation (ValidateSecret in
// pkg/apis/core/validation), what create and update keep (pkg/registry/core/secret) and
// the table. Only admins may read or write Secrets; provisioners read them internally
// for StorageClass parameters that name one (csi.storage.k8s.io/*-secret-name).
// `stringData` is write-only, as upstream: merged into `data` (base64) when written.
// Validation errors never echo a value.
import type { FieldError } from '../../domain/errors';
import { ageOf } from '../../domain/duration';
import { ageColumn, column, nameColumn, noColumns } from '../columns';
import { child, deepEqual, forbidden, immutable, invalid, required, tooLong } from '../field-errors';
import { keepSystemMetadata, shapeErrors, stripNulls, validateObjectMeta, validateObjectMetaUpdate, validateTypeMeta } from '../metadata';
import type { Strategy } from '../types';
import { secretSchema, type Secret } from './schema';

export const SECRET_TYPE_OPAQUE = 'Opaque';
/** Upstream's MaxSecretSize: the decoded data of one Secret. */
export const maxSecretBytes = 1024 * 1024;
const configKey = /^[-._a-zA-Z0-9]+$/;
const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Folds write-only stringData into data (base64), as the upstream conversion does. */
function foldStringData(s: Secret): void {
  if (!s.stringData) return;
  s.data = { ...(s.data ?? {}) };
  for (const [k, v] of Object.entries<string>(s.stringData)) s.data[k] = Buffer.from(v, 'utf8').toString('base64');
  delete s.stringData;
}

function validateSecret(s: Secret): FieldError[] {
  const errs = [...validateTypeMeta(s, 'v1', 'Secret'), ...validateObjectMeta(s.metadata, { namespaced: true, name: 'dns-subdomain' })];
  let total = 0;
  for (const [k, v] of Object.entries<string>(s.data ?? {})) {
    if (k.length > 253 || !configKey.test(k)) {
      errs.push(invalid(child('data', k), k, "a valid config key must consist of alphanumeric characters, '-', '_' or '.'"));
    }
    if (!base64.test(v)) errs.push({ field: child('data', k), reason: 'FieldValueInvalid', message: 'Invalid value: must be base64 encoded' });
    else total += Buffer.byteLength(v, 'base64');
  }
  if (total > maxSecretBytes) errs.push(tooLong('data', maxSecretBytes));
  if ((s.type ?? '') === '') errs.push(required('type'));
  return errs;
}

function validateSecretUpdate(next: Secret, prev: Secret): FieldError[] {
  const errs = validateObjectMetaUpdate(next.metadata, prev.metadata);
  errs.push(...immutable('type', next.type, prev.type));
  if (prev.immutable) {
    if (!deepEqual(next.data ?? {}, prev.data ?? {})) errs.push(forbidden('data', 'field is immutable when `immutable` is set'));
    if (!next.immutable) errs.push(forbidden('immutable', 'field is immutable when `immutable` is set'));
  }
  return errs;
}

export const secretStrategy: Strategy<Secret> = {
  kind: 'Secret',
  group: '',
  version: 'v1',
  apiVersion: 'v1',
  plural: 'secrets',
  singular: 'secret',
  shortNames: [],
  namespaced: true,
  hasStatus: false,
  fieldSelectors: { type: (s) => s.type ?? '' },

  validateShape: (obj) => shapeErrors(secretSchema, obj),
  schema: secretSchema,

  applyDefaults(s) {
    stripNulls(s);
    foldStringData(s);
    s.type ||= SECRET_TYPE_OPAQUE;
  },

  prepareForCreate() {},

  prepareForUpdate(next, prev) {
    keepSystemMetadata(next, prev);
  },

  // No status subresource.
  prepareForStatusUpdate(next, prev) {
    keepSystemMetadata(next, prev);
  },

  validate: validateSecret,
  validateUpdate: validateSecretUpdate,

  columns: () => noColumns(),

  table: {
    columns: [nameColumn, column('Type', 'Used to facilitate programmatic handling of secret data.'), { ...column('Data', 'The number of keys in the secret.'), type: 'integer' }, ageColumn],
    row(s, now) {
      return [s.metadata?.name ?? '', s.type ?? SECRET_TYPE_OPAQUE, Object.keys(s.data ?? {}).length, ageOf(s.metadata?.creationTimestamp, now)];
    },
  },
};

/** A Secret's data, decoded: what a provisioner receives for a parameter that names it. */
export function secretData(s: Secret): Record<string, string> {
  return Object.fromEntries(Object.entries<string>(s.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
}

// ObjectMeta: its zod shape and the rules every kind shares (as apimachinery's
// ValidateObjectMeta / ValidateObjectMetaUpdate), plus the turning of zod results into
// field errors. Pure; importable by the browser.
import { z } from 'zod';
import type { FieldError } from '../domain/errors';
import {
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  validateAnnotations,
  validateFinalizers,
  validateLabels,
} from '../domain/names';
import type { KubeObject, ObjectMeta } from './types';
import { child, fieldPath, forbidden, immutable, invalid, notSupported, required, typeInvalid } from './field-errors';

/** A string-to-string map whose keys are not fixed (labels, annotations, parameters ...). */
export const stringMap = z.record(z.string(), z.string());

const ownerReferenceSchema = z.strictObject({
  apiVersion: z.string().nullish(),
  kind: z.string().nullish(),
  name: z.string().nullish(),
  uid: z.string().nullish(),
  controller: z.boolean().nullish(),
  blockOwnerDeletion: z.boolean().nullish(),
});

/** A status condition (type, status, reason, message, lastTransitionTime) plus a kind's own time fields. */
export function conditionSchema<T extends z.ZodRawShape>(extra: T) {
  return z.strictObject({
    type: z.string().nullish(),
    status: z.string().nullish(),
    ...extra,
    lastTransitionTime: z.string().nullish(),
    reason: z.string().nullish(),
    message: z.string().nullish(),
  });
}

export const objectMetaSchema = z.strictObject({
  name: z.string().nullish(),
  generateName: z.string().nullish(),
  namespace: z.string().nullish(),
  uid: z.string().nullish(),
  resourceVersion: z.string().nullish(),
  generation: z.number().int().nullish(),
  creationTimestamp: z.string().nullish(),
  deletionTimestamp: z.string().nullish(),
  deletionGracePeriodSeconds: z.number().int().nullish(),
  labels: stringMap.nullish(),
  annotations: stringMap.nullish(),
  finalizers: z.array(z.string()).nullish(),
  ownerReferences: z.array(ownerReferenceSchema).nullish(),
  // Server-side apply bookkeeping: kept as sent, never interpreted.
  managedFields: z.array(z.looseObject({})).nullish(),
  selfLink: z.string().nullish(),
});

/** The top level every kind shares: `apiVersion`, `kind`, `metadata`, then the kind's own fields. */
export function kubeObjectSchema<T extends z.ZodRawShape>(fields: T) {
  return z.strictObject({
    apiVersion: z.string().nullish(),
    kind: z.string().nullish(),
    metadata: objectMetaSchema.nullish(),
    ...fields,
  });
}

export type NameRule = 'dns-subdomain' | 'dns-label';

export interface MetaRules {
  namespaced: boolean;
  name: NameRule;
}

/** Shape errors of a zod result, with dotted paths; unknown fields are named as such. */
export function shapeErrors(schema: z.ZodType, obj: unknown): FieldError[] {
  const result = schema.safeParse(obj, { reportInput: true });
  if (result.success) return [];
  const out: FieldError[] = [];
  for (const issue of result.error.issues) out.push(...issueToErrors(issue));
  return out;
}

function issueToErrors(issue: z.core.$ZodIssue): FieldError[] {
  const path = fieldPath(...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p)));
  const input = (issue as { input?: unknown }).input;
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((key) => {
        const f = child(path, key);
        return { field: f, reason: 'FieldValueNotSupported', message: `unknown field "${f}"` } satisfies FieldError;
      });
    case 'invalid_type':
      if (input === undefined) return [required(path)];
      return [typeInvalid(path, typeName(input), `must be of type ${expectedName(issue.expected)}`)];
    case 'invalid_union': {
      const expected = issue.errors
        .flat()
        .filter((e) => e.code === 'invalid_type' && e.path.length === 0)
        .map((e) => expectedName((e as z.core.$ZodIssueInvalidType).expected));
      if (expected.length === issue.errors.length) {
        return [typeInvalid(path, typeName(input), `must be of type ${expected.join(' or ')}`)];
      }
      return [invalid(path, input, issue.message)];
    }
    case 'invalid_value':
      return [notSupported(path, input, issue.values.map((v) => String(v)))];
    default:
      return [invalid(path, input, issue.message)];
  }
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

function expectedName(expected: string): string {
  if (expected === 'int') return 'integer';
  if (expected === 'record') return 'object';
  return expected;
}

/** Removes `null` fields everywhere, as Go's JSON decoding treats them as absent. */
export function stripNulls(value: unknown): void {
  if (Array.isArray(value)) {
    for (const v of value) stripNulls(v);
  } else if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      if (o[k] === null) delete o[k];
      else stripNulls(o[k]);
    }
  }
}

/** `apiVersion` and `kind`, when given, must name this kind. */
export function validateTypeMeta(obj: KubeObject, apiVersion: string, kind: string): FieldError[] {
  const errs: FieldError[] = [];
  if (obj.apiVersion !== undefined && obj.apiVersion !== apiVersion) {
    errs.push(invalid('apiVersion', obj.apiVersion, `must be ${apiVersion}`));
  }
  if (obj.kind !== undefined && obj.kind !== kind) errs.push(invalid('kind', obj.kind, `must be ${kind}`));
  return errs;
}

function nameMessages(rule: NameRule, name: string, prefix: boolean): string[] {
  return rule === 'dns-label' ? nameIsDNSLabel(name, prefix) : nameIsDNSSubdomain(name, prefix);
}

/** ObjectMeta on create (and again on every update): names, scope, labels, annotations, finalizers. */
export function validateObjectMeta(meta: ObjectMeta | undefined, rules: MetaRules): FieldError[] {
  const m = meta ?? {};
  const errs: FieldError[] = [];
  if (m.generateName) {
    for (const msg of nameMessages(rules.name, m.generateName, true)) {
      errs.push(invalid('metadata.generateName', m.generateName, msg));
    }
  }
  if (!m.name) {
    // The store derives the name from generateName before it writes.
    if (!m.generateName) errs.push(required('metadata.name', 'name or generateName is required'));
  } else {
    for (const msg of nameMessages(rules.name, m.name, false)) errs.push(invalid('metadata.name', m.name, msg));
  }
  if (rules.namespaced) {
    if (!m.namespace) errs.push(required('metadata.namespace'));
    else for (const msg of nameIsDNSLabel(m.namespace, false)) errs.push(invalid('metadata.namespace', m.namespace, msg));
  } else if (m.namespace) {
    errs.push(forbidden('metadata.namespace', 'not allowed on this type'));
  }
  if (m.generation !== undefined && m.generation < 0) {
    errs.push(invalid('metadata.generation', m.generation, 'must be greater than or equal to 0'));
  }
  if (m.deletionGracePeriodSeconds !== undefined && m.deletionGracePeriodSeconds < 0) {
    errs.push(invalid('metadata.deletionGracePeriodSeconds', m.deletionGracePeriodSeconds, 'must be greater than or equal to 0'));
  }
  errs.push(...validateLabels(m.labels ?? {}, 'metadata.labels'));
  errs.push(...validateAnnotations(m.annotations ?? {}, 'metadata.annotations'));
  errs.push(...validateFinalizers(m.finalizers ?? [], 'metadata.finalizers'));
  errs.push(...validateKubeFinalizerNames(m.finalizers ?? [], 'metadata.finalizers'));
  errs.push(...validateOwnerReferences(m.ownerReferences ?? [], 'metadata.ownerReferences'));
  return errs;
}

const standardFinalizers = ['kubernetes', 'orphan', 'foregroundDeletion'];

/** A finalizer without a `/` must be one of the standard ones (upstream validateKubeFinalizerName). */
export function validateKubeFinalizerNames(finalizers: string[], base: string): FieldError[] {
  const errs: FieldError[] = [];
  finalizers.forEach((f, i) => {
    if (typeof f === 'string' && !f.includes('/') && !standardFinalizers.includes(f)) {
      errs.push(invalid(child(base, i), f, 'name is neither a standard finalizer name nor is it fully qualified'));
    }
  });
  return errs;
}

function validateOwnerReferences(refs: unknown[], base: string): FieldError[] {
  const errs: FieldError[] = [];
  const controllers: string[] = [];
  refs.forEach((raw, i) => {
    const ref = (raw ?? {}) as Record<string, unknown>;
    const at = (f: string) => child(base, i, f);
    const apiVersion = String(ref.apiVersion ?? '');
    const version = apiVersion.includes('/') ? apiVersion.slice(apiVersion.indexOf('/') + 1) : apiVersion;
    if (!version) errs.push(invalid(at('apiVersion'), apiVersion, 'version must not be empty'));
    if (!ref.kind) errs.push(invalid(at('kind'), ref.kind ?? '', 'must not be empty'));
    if (!ref.name) errs.push(invalid(at('name'), ref.name ?? '', 'must not be empty'));
    if (!ref.uid) errs.push(invalid(at('uid'), ref.uid ?? '', 'must not be empty'));
    if (ref.controller === true) controllers.push(`${String(ref.kind)}/${String(ref.name)}`);
  });
  if (controllers.length > 1) {
    errs.push(
      invalid(base, controllers, `Only one reference can have Controller set to true. Found "true" in references for ${controllers.join(' and ')}`),
    );
  }
  return errs;
}

/** ObjectMeta rules that compare an update with the stored object. */
export function validateObjectMetaUpdate(next: ObjectMeta | undefined, prev: ObjectMeta | undefined): FieldError[] {
  const n = next ?? {};
  const p = prev ?? {};
  const errs: FieldError[] = [];
  if (p.deletionTimestamp) {
    const added = (n.finalizers ?? []).filter((f) => !(p.finalizers ?? []).includes(f));
    if (added.length > 0) {
      errs.push(
        forbidden(
          'metadata.finalizers',
          `no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`,
        ),
      );
    }
  }
  if ((n.generation ?? 0) < (p.generation ?? 0)) {
    errs.push(invalid('metadata.generation', n.generation ?? 0, 'must not be decremented'));
  }
  errs.push(...immutable('metadata.name', n.name, p.name));
  errs.push(...immutable('metadata.namespace', n.namespace, p.namespace));
  errs.push(...immutable('metadata.uid', n.uid, p.uid));
  errs.push(...immutable('metadata.creationTimestamp', n.creationTimestamp, p.creationTimestamp));
  return errs;
}

/**
 * What an update may not change in metadata, taken from the stored object as the
 * apiserver does before validation: a missing uid, the creation timestamp, and a
 * deletion timestamp once set.
 */
export function keepSystemMetadata(next: KubeObject, prev: KubeObject): void {
  next.metadata ??= {};
  const n = next.metadata;
  const p = prev.metadata ?? {};
  if (!n.uid && p.uid) n.uid = p.uid;
  if (p.creationTimestamp) n.creationTimestamp = p.creationTimestamp;
  if (p.deletionTimestamp) {
    n.deletionTimestamp = p.deletionTimestamp;
    if (p.deletionGracePeriodSeconds !== undefined) n.deletionGracePeriodSeconds = p.deletionGracePeriodSeconds;
  }
}

/** For an update of the object (not its status subresource): `status` stays as stored. */
export function keepStatus(next: KubeObject, prev: KubeObject): void {
  if (prev.status === undefined) delete next.status;
  else next.status = structuredClone(prev.status);
}

/**
 * For a status update: everything but `status` comes from the stored object. The
 * sent resourceVersion is kept, so that a stale one still fails as a conflict.
 */
export function keepAllButStatus(next: KubeObject, prev: KubeObject): void {
  const status = next.status;
  const resourceVersion = next.metadata?.resourceVersion;
  for (const k of Object.keys(next)) delete next[k];
  Object.assign(next, structuredClone(prev));
  if (status === undefined) delete next.status;
  else next.status = status;
  next.metadata ??= {};
  if (resourceVersion !== undefined) next.metadata.resourceVersion = resourceVersion;
}

/** Now as a Kubernetes metav1.Time (RFC 3339, whole seconds). */
export function timestampNow(now: Date = new Date()): string {
  return now.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

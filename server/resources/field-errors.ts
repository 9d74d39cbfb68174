// Field paths, and the field errors the domain's builders (domain/names.ts) do not cover,
// in the shape the Kubernetes apiserver reports them: the message is the error body,
// e.g. `Required value`, `Invalid value: "0": must be greater than zero`.
import type { FieldError } from '../domain/errors';
import {
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  fieldTooLong,
  fieldTypeInvalid,
  goJSON,
  goQuote,
} from '../domain/names';

export type PathSegment = string | number;

const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * Joins segments into a dotted path: `spec.capacity.storage`, `spec.accessModes[0]`.
 * Map keys that are not plain identifiers are bracketed: `metadata.labels[app.kubernetes.io/name]`.
 */
export function fieldPath(...segments: PathSegment[]): string {
  let out = '';
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`;
    else if (s === '') continue;
    else if (out === '') out = identifier.test(s) ? s : `[${s}]`;
    else out += identifier.test(s) ? `.${s}` : `[${s}]`;
  }
  return out;
}

/** A map key as upstream's field.Path.Key renders it, always bracketed: `spec.capacity[storage]`. */
export function key(base: string, name: string): string {
  return `${base}[${name}]`;
}

/** Extends a path that is already a string. */
export function child(base: string, ...segments: PathSegment[]): string {
  const rest = fieldPath(...segments);
  if (!base) return rest;
  if (!rest) return base;
  return rest.startsWith('[') ? base + rest : `${base}.${rest}`;
}

/** Go-like rendering of a value inside a message: strings as %q, the rest as JSON. */
export function showValue(value: unknown): string {
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return goJSON(value ?? null);
}

export function required(field: string, detail = ''): FieldError {
  return fieldRequired(field, detail);
}

export const invalid = fieldInvalid;
export const notSupported = fieldNotSupported;
export const forbidden = fieldForbidden;
export const tooLong = fieldTooLong;
export const typeInvalid = fieldTypeInvalid;

export function duplicate(field: string, value: unknown): FieldError {
  return { field, reason: 'FieldValueDuplicate', message: `Duplicate value: ${showValue(value)}` };
}

export function tooMany(field: string, actual: number, max: number): FieldError {
  return { field, reason: 'FieldValueTooMany', message: `Too many: ${actual}: must have at most ${max} items` };
}

export const fieldImmutable = 'field is immutable';

/** `field is immutable` when the two JSON values differ. */
export function immutable(field: string, next: unknown, prev: unknown): FieldError[] {
  return deepEqual(next, prev) ? [] : [invalid(field, next ?? null, fieldImmutable)];
}

/**
 * Structural equality of JSON values. As after a JSON round trip with `omitempty`,
 * absent, null, `[]` and `{}` are all equal.
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (isEmpty(a)) return isEmpty(b);
  if (isEmpty(b)) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => deepEqual(v, b[i]));
  }
  if (typeof a === 'object' && typeof b === 'object') {
    const ao = a as Record<string, unknown>;
    const bo = b as Record<string, unknown>;
    const keys = new Set([...Object.keys(ao), ...Object.keys(bo)]);
    for (const k of keys) if (!deepEqual(ao[k], bo[k])) return false;
    return true;
  }
  return false;
}

function isEmpty(v: unknown): boolean {
  if (v === null || v === undefined) return true;
  if (Array.isArray(v)) return v.length === 0;
  return typeof v === 'object' && Object.keys(v).length === 0;
}

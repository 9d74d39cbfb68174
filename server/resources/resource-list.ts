// Resource lists (`{storage: "10Gi"}`): their shape, canonical form and checks.
import { z } from 'zod';
import type { FieldError } from '../domain/errors';
import { compareQuantities, formatQuantity, isNegative, isZero, parseQuantity, quantityErrors, quantityFromJSON, quantityFromJSONText, quantityToBytes } from '../domain/quantity';
import type { Quantity } from '../domain/quantity';
import { child, invalid, key } from './field-errors';

/** A quantity as JSON carries it: a string ("10Gi") or a plain number. */
export const quantitySchema = z.union([z.string(), z.number()]);
export const resourceListSchema = z.record(z.string(), quantitySchema);

export const quantityFormatMessage = quantityErrors.format;

/** Rewrites every parsable quantity of the list in canonical form ("1024Mi" -> "1Gi"), in place. */
export function canonicalizeResourceList(list: Record<string, unknown> | undefined): void {
  if (!list || typeof list !== 'object') return;
  for (const [k, v] of Object.entries(list)) {
    const q = quantityFromJSON(v);
    if (q) list[k] = formatQuantity(q);
  }
}

/**
 * The largest quantity a write accepts: what the exact byte columns the binder queries
 * (numeric(65, 0)) hold. Checked in validation, so dry run agrees with the real write.
 */
export const MAX_QUANTITY = 10n ** 65n - 1n;

export function parseOrError(value: unknown, field: string): { quantity?: Quantity; errors: FieldError[] } {
  const parsed = quantityFromJSONText(value);
  if (!parsed.ok) return { errors: [invalid(field, value, parsed.error)] };
  const quantity = parsed.quantity;
  const bytes = quantityToBytes(quantity);
  if (bytes > MAX_QUANTITY || bytes < -MAX_QUANTITY) {
    return { quantity, errors: [invalid(field, typeof value === 'number' ? value : String(value), 'must be less than 1e65')] };
  }
  return { quantity, errors: [] };
}

/** Must parse and be > 0 (upstream ValidatePositiveQuantityValue). */
export function validatePositiveQuantity(value: unknown, field: string): FieldError[] {
  const { quantity, errors } = parseOrError(value, field);
  if (!quantity || errors.length > 0) return errors;
  if (isNegative(quantity) || isZero(quantity)) return [invalid(field, formatQuantity(quantity), 'must be greater than zero')];
  return [];
}

/**
 * PV capacity as upstream checks it: validateBasicResource (`Value() < 0`: "must be a valid
 * resource quantity", the value shown as the rounded integer) then ValidatePositiveQuantityValue.
 */
export function validateBasicAndPositive(value: unknown, field: string): FieldError[] {
  const { quantity, errors } = parseOrError(value, field);
  if (!quantity || errors.length > 0) return errors;
  const bytes = quantityToBytes(quantity);
  return [...(bytes < 0n ? [invalid(field, bytes, 'must be a valid resource quantity')] : []), ...validatePositiveQuantity(value, field)];
}

/** Must parse (only; upstream checks no other claim requests or limits). */
export function validateQuantities(list: Record<string, unknown> | undefined, base: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(list ?? {})) {
    const r = v === null ? undefined : quantityFromJSONText(v);
    if (r && !r.ok) errs.push(invalid(key(base, k), v, r.error));
  }
  return errs;
}

/** Must parse and be >= 0 (upstream ValidateNonnegativeQuantity). */
export function validateNonNegativeQuantity(value: unknown, field: string): FieldError[] {
  const { quantity, errors } = parseOrError(value, field);
  if (!quantity || errors.length > 0) return errors;
  if (isNegative(quantity)) return [invalid(field, formatQuantity(quantity), 'must be greater than or equal to 0')];
  return [];
}

/** Every entry parses and is not negative. */
export function validateResourceList(list: Record<string, unknown> | undefined, base: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(list ?? {})) errs.push(...validateNonNegativeQuantity(v, child(base, k)));
  return errs;
}

/** Exact byte count of a quantity as a decimal string, or null when absent or unparsable. */
export function bytesOf(value: unknown): string | null {
  const q = quantityFromJSON(value);
  return q ? quantityToBytes(q).toString() : null;
}

/** Compares two quantity values; unparsable ones count as zero. */
export function compareQuantityValues(a: unknown, b: unknown): number {
  const zero = parseQuantity('0') as Quantity;
  const qa = quantityFromJSON(a) ?? zero;
  const qb = quantityFromJSON(b) ?? zero;
  return compareQuantities(qa, qb);
}

/** The quantity as kubectl prints it (canonical), or the raw value when it does not parse. */
export function showQuantity(value: unknown): string {
  const q = quantityFromJSON(value);
  if (q) return formatQuantity(q);
  return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
}

/** Where kinds carry quantities: resource lists (`list`) and single values (`value`). */
const quantityPaths: Record<string, { path: string[]; shape: 'list' | 'value' }[]> = {
  PersistentVolume: [{ path: ['spec', 'capacity'], shape: 'list' }],
  PersistentVolumeClaim: [
    { path: ['spec', 'resources', 'requests'], shape: 'list' },
    { path: ['spec', 'resources', 'limits'], shape: 'list' },
    { path: ['status', 'capacity'], shape: 'list' },
    { path: ['status', 'allocatedResources'], shape: 'list' },
  ],
  ResourceQuota: [
    { path: ['spec', 'hard'], shape: 'list' },
    { path: ['status', 'hard'], shape: 'list' },
    { path: ['status', 'used'], shape: 'list' },
  ],
  Node: [
    { path: ['status', 'capacity'], shape: 'list' },
    { path: ['status', 'allocatable'], shape: 'list' },
  ],
  CSIStorageCapacity: [
    { path: ['capacity'], shape: 'value' },
    { path: ['maximumVolumeSize'], shape: 'value' },
  ],
};

function at(obj: unknown, path: string[]): unknown {
  let v: unknown = obj;
  for (const key of path) v = v && typeof v === 'object' && !Array.isArray(v) && Object.hasOwn(v, key) ? (v as Record<string, unknown>)[key] : undefined;
  return v;
}

/**
 * Upstream decodes quantities while it reads the body, so a malformed one fails the
 * request as 400 BadRequest before any validation, with the parse error of the first bad
 * quantity (`PersistentVolumeClaim in version "v1" cannot be handled as a
 * PersistentVolumeClaim: quantities must match ...`): this returns that message, if any.
 */
export function quantityDecodeError(obj: { kind?: unknown; apiVersion?: unknown; [k: string]: unknown }): string | undefined {
  const kind = typeof obj.kind === 'string' ? obj.kind : '';
  const version = typeof obj.apiVersion === 'string' && obj.apiVersion ? obj.apiVersion.slice(obj.apiVersion.lastIndexOf('/') + 1) : 'v1';
  for (const { path, shape } of quantityPaths[kind] ?? []) {
    const found = at(obj, path);
    if (found === undefined || found === null) continue;
    let values: unknown[];
    if (shape === 'value') values = [found];
    else if (typeof found === 'object' && !Array.isArray(found)) values = Object.values(found);
    else continue;
    for (const value of values) {
      if (value === null) continue;
      const r = quantityFromJSONText(value);
      if (!r.ok) return `${kind} in version ${JSON.stringify(version)} cannot be handled as a ${kind}: ${r.error}`;
    }
  }
  return undefined;
}

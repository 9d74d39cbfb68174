// Resource lists (`{storage: "10Gi"}`): their shape, canonical form and checks.
import { z } from 'zod';
import type { FieldError } from '../domain/errors';
import { compareQuantities, formatQuantity, isNegative, isZero, parseQuantity, quantityFromJSON, quantityToBytes } from '../domain/quantity';
import type { Quantity } from '../domain/quantity';
import { child, invalid } from './field-errors';

/** A quantity as JSON carries it: a string ("10Gi") or a plain number. */
export const quantitySchema = z.union([z.string(), z.number()]);
export const resourceListSchema = z.record(z.string(), quantitySchema);

export const quantityFormatMessage =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

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
  const quantity = quantityFromJSON(value);
  if (!quantity) return { errors: [invalid(field, value, quantityFormatMessage)] };
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

/** Where kinds carry resource lists (PV capacity; claim requests, limits, capacity). */
const resourceListPaths: Record<string, string[][]> = {
  PersistentVolume: [['spec', 'capacity']],
  PersistentVolumeClaim: [
    ['spec', 'resources', 'requests'],
    ['spec', 'resources', 'limits'],
    ['status', 'capacity'],
    ['status', 'allocatedResources'],
  ],
  ResourceQuota: [
    ['spec', 'hard'],
    ['status', 'hard'],
    ['status', 'used'],
  ],
};

/**
 * Upstream decodes quantities while it reads the body, so a malformed one fails the
 * request as 400 BadRequest before any validation: this returns that message, if any.
 */
export function quantityDecodeError(obj: { kind?: unknown; [k: string]: unknown }): string | undefined {
  const kind = typeof obj.kind === 'string' ? obj.kind : '';
  for (const path of resourceListPaths[kind] ?? []) {
    let list: unknown = obj;
    for (const key of path) list = list && typeof list === 'object' && Object.hasOwn(list, key) ? (list as Record<string, unknown>)[key] : undefined;
    if (!list || typeof list !== 'object' || Array.isArray(list)) continue;
    for (const value of Object.values(list)) {
      if (value === null || quantityFromJSON(value)) continue;
      return `${kind} in version "v1" cannot be handled as a ${kind}: ${quantityFormatMessage}`;
    }
  }
  return undefined;
}

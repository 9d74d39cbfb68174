// What the three snapshot.storage.k8s.io/v1 kinds share: their CRDs' OpenAPI rules
// (enum, required, pattern) and x-kubernetes-validations (CEL), with the messages the
// apiserver gives for them (`Invalid value: "object": <rule's message>`).
import type { FieldError } from '../domain/errors';
import { invalid, notSupported, required } from './field-errors';

export const SNAPSHOT_API_VERSION = 'snapshot.storage.k8s.io/v1';

/** deletionPolicy's enum in the CRDs. */
export const DELETION_POLICIES = ['Delete', 'Retain'] as const;

/** The value a CEL error names: the type of the checked field, as the apiserver prints it. */
function celValue(v: unknown): string {
  return typeof v === 'object' && v !== null ? 'object' : typeof v;
}

/** A failed x-kubernetes-validations rule at `field` on `value`. */
export function celError(field: string, value: unknown, message: string): FieldError {
  return invalid(field, celValue(value), message);
}

export function requiredField(field: string, value: unknown): FieldError[] {
  return value === undefined ? [required(field)] : [];
}

export function deletionPolicyErrors(field: string, value: string | undefined): FieldError[] {
  if (value === undefined) return [required(field)];
  return (DELETION_POLICIES as readonly string[]).includes(value) ? [] : [notSupported(field, value, DELETION_POLICIES)];
}

/** Rule `self == oldSelf` with message `<name> is immutable` (only when both are set, as CEL transition rules). */
export function celImmutable(field: string, name: string, next: unknown, prev: unknown): FieldError[] {
  if (next === undefined || prev === undefined || next === prev) return [];
  return [celError(field, next, `${name} is immutable`)];
}

/** Rule `!has(oldSelf.x) || has(self.x)` with message `<x> is required once set`. */
export function celRequiredOnceSet(field: string, self: object, name: string, was: unknown, is: unknown): FieldError[] {
  return was !== undefined && is === undefined ? [celError(field, self, `${name} is required once set`)] : [];
}

/** Exactly one of two fields (the sources of VolumeSnapshot and VolumeSnapshotContent). */
export function celExactlyOne(field: string, self: object, a: unknown, b: unknown, message: string): FieldError[] {
  return (a === undefined) !== (b === undefined) ? [] : [celError(field, self, message)];
}

// One coded error type for the whole domain. Transports map `code` to their own
// shapes (tRPC error codes, Kubernetes metav1.Status); anything else is a 500.

export type ErrorCode =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Invalid'
  | 'Expired'
  | 'MethodNotAllowed'
  | 'UnsupportedMediaType'
  | 'RequestEntityTooLarge'
  | 'TooManyRequests'
  | 'InternalError';

/** One offending field, named by its path (e.g. `spec.capacity.storage`). */
export interface FieldError {
  field: string;
  /** Upstream cause type: FieldValueRequired, FieldValueInvalid, FieldValueNotSupported, ... */
  reason: FieldErrorReason;
  message: string;
}

export type FieldErrorReason =
  | 'FieldValueRequired'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueNotFound'
  | 'FieldValueDuplicate'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueTypeInvalid'
  /** Upstream's cause of a create refused in a Terminating namespace. */
  | 'NamespaceTerminating';

export interface ErrorDetails {
  kind?: string;
  name?: string;
  group?: string;
  causes?: FieldError[];
  retryAfterSeconds?: number;
  /** Expired list continuations: a fresh token that continues without the old snapshot. */
  continue?: string;
}

export const httpStatusOf: Record<ErrorCode, number> = {
  BadRequest: 400,
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  MethodNotAllowed: 405,
  AlreadyExists: 409,
  Conflict: 409,
  Expired: 410,
  RequestEntityTooLarge: 413,
  UnsupportedMediaType: 415,
  Invalid: 422,
  TooManyRequests: 429,
  InternalError: 500,
};

export class StowageError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;
  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}) {
    super(message);
    this.name = 'StowageError';
    this.code = code;
    this.details = details;
  }
}

export function isStowageError(e: unknown): e is StowageError {
  return e instanceof StowageError;
}

/**
 * apimachinery's NewInvalid: the message names the group-qualified kind (schema.GroupKind
 * String()), `PersistentVolume "pv1" is invalid: spec.capacity: Required value`,
 * `VolumeSnapshot.snapshot.storage.k8s.io "s" is invalid: ...`; details carry the kind and the group.
 */
export function invalid(kind: string, name: string | undefined, causes: FieldError[], group = ''): StowageError {
  const list = causes.map((c) => `${c.field}: ${c.message}`).join(', ');
  return new StowageError('Invalid', `${group ? `${kind}.${group}` : kind} "${name ?? ''}" is invalid: ${causes.length > 1 ? `[${list}]` : list}`, {
    kind,
    name,
    causes,
    ...(group ? { group } : {}),
  });
}

/** Upstream's schema.GroupResource.String(): `storageclasses.storage.k8s.io`, `persistentvolumes`. */
export function qualifiedResource(resource: string, group?: string): string {
  return group ? `${resource}.${group}` : resource;
}

function resourceDetails(kind: string, name: string, resource?: string, group?: string): ErrorDetails {
  return group ? { kind: resource ?? kind, name, group } : { kind: resource ?? kind, name };
}

export function notFound(kind: string, name: string, resource?: string, group?: string): StowageError {
  return new StowageError('NotFound', `${qualifiedResource(resource ?? kind, group)} "${name}" not found`, resourceDetails(kind, name, resource, group));
}

export function alreadyExists(kind: string, name: string, resource?: string, group?: string): StowageError {
  return new StowageError('AlreadyExists', `${qualifiedResource(resource ?? kind, group)} "${name}" already exists`, resourceDetails(kind, name, resource, group));
}

export function conflict(kind: string, name: string, resource?: string, group?: string): StowageError {
  return new StowageError(
    'Conflict',
    `Operation cannot be fulfilled on ${qualifiedResource(resource ?? kind, group)} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    resourceDetails(kind, name, resource, group),
  );
}

// The ONE mapper from errors to Kubernetes metav1.Status bodies. A StowageError keeps its
// message and becomes the upstream reason and code; anything else is a plain 500 whose
// details stay in the log, never in the response.
import { httpStatusOf, isStowageError, type ErrorCode } from '../domain/errors';
import { databaseUnavailableReason } from '../domain/database-unavailable';
import { maskCredentials } from '../domain/redaction';

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface KubeStatus {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: { continue?: string };
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

/** Errors that exist only at the HTTP layer (content negotiation, timeouts). */
export class HttpStatusError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: StatusDetails,
  ) {
    super(message);
    this.name = 'HttpStatusError';
  }
}

/**
 * Upstream NewTooLargeResourceVersionError: a read asked for a resourceVersion the server
 * has not reached (504 Timeout with a ResourceVersionTooLarge cause; clients retry).
 */
export function tooLargeResourceVersion(wanted: bigint, current: bigint): HttpStatusError {
  return new HttpStatusError(504, 'Timeout', `Timeout: Too large resource version: ${wanted}, current: ${current}`, {
    causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
    retryAfterSeconds: 1,
  });
}

export function notAcceptable(supported: string[]): HttpStatusError {
  return new HttpStatusError(406, 'NotAcceptable', `only the following media types are accepted: ${supported.join(', ')}`);
}

/** metav1.StatusReason for each domain code (upstream apimachinery pkg/api/errors). */
const reasonOf: Record<ErrorCode, string> = {
  BadRequest: 'BadRequest',
  Unauthorized: 'Unauthorized',
  Forbidden: 'Forbidden',
  NotFound: 'NotFound',
  AlreadyExists: 'AlreadyExists',
  Conflict: 'Conflict',
  Invalid: 'Invalid',
  Expired: 'Expired',
  MethodNotAllowed: 'MethodNotAllowed',
  UnsupportedMediaType: 'UnsupportedMediaType',
  RequestEntityTooLarge: 'RequestEntityTooLarge',
  TooManyRequests: 'TooManyRequests',
  InternalError: 'InternalError',
};

function failure(code: number, reason: string, message: string, details?: StatusDetails): KubeStatus {
  // An error may quote what it was given (a connection string, key=value): never a credential.
  const s: KubeStatus = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: maskCredentials(message), reason, code };
  if (details && Object.keys(details).length > 0) s.details = details;
  return s;
}

/** The Status for any thrown value, and whether it was unexpected (log it in full). */
export function statusFromError(e: unknown): { status: KubeStatus; unexpected: boolean } {
  if (isStowageError(e)) {
    const code = httpStatusOf[e.code] ?? 500;
    const d = e.details;
    const details: StatusDetails = {};
    if (d.name) details.name = maskCredentials(d.name);
    if (d.group !== undefined && d.group !== '') details.group = d.group;
    if (d.kind) details.kind = d.kind;
    if (d.causes?.length) {
      details.causes = d.causes.map((c) => ({ reason: c.reason, message: maskCredentials(c.message), field: c.field }));
    }
    if (d.retryAfterSeconds !== undefined) details.retryAfterSeconds = d.retryAfterSeconds;
    const status = failure(code, reasonOf[e.code] ?? 'InternalError', e.message, details);
    if (d.continue) status.metadata = { continue: d.continue };
    return { status, unexpected: e.code === 'InternalError' };
  }
  if (e instanceof HttpStatusError) {
    return { status: failure(e.code, e.reason, e.message, e.details), unexpected: false };
  }
  // Postgres restarting or failing over: retryable (clients honour Retry-After and try again).
  const unavailable = databaseUnavailableReason(e);
  if (unavailable) {
    return { status: failure(503, 'ServiceUnavailable', `the server is currently unable to handle the request: ${unavailable}; retry`, { retryAfterSeconds: 1 }), unexpected: false };
  }
  return {
    status: failure(500, 'InternalError', 'Internal error occurred: an unexpected error happened; see the server log'),
    unexpected: true,
  };
}

/** Status Success for a delete that removed the object at once (upstream finalizeDelete). */
export function deletedStatus(name: string, group: string, plural: string, uid?: string): KubeStatus {
  const details: StatusDetails = { name, group, kind: plural };
  if (!group) delete details.group;
  if (uid) details.uid = uid;
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details, code: 200 };
}

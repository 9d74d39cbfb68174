// tRPC: context, error mapping, procedures. Transport only: every procedure calls one
// service and shapes its output.
import { initTRPC, TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import type { Services } from '../services/services';
import type { KubeApiEndpoint } from '../services/user-admin';
import type { Principal } from '../domain/authorization';
import { databaseUnavailableReason } from '../domain/database-unavailable';
import { isStowageError, type ErrorCode, type FieldError } from '../domain/errors';
import { logger } from '../services/logger';
import { maskCredentials } from '../domain/redaction';
import { checkUntrusted } from '../services/manifest';

export interface TrpcContext {
  app: Services;
  principal?: Principal;
  /** The request carried a node token: every procedure refuses it with FORBIDDEN. */
  nodeToken?: boolean;
  sessionToken?: string;
  /** The client's address, for the sign-in limits. */
  clientAddress?: string;
  /** The Kubernetes-compatible API, for kubeconfigs (absent when this server does not serve it). */
  kubeApi?: KubeApiEndpoint;
  setSessionCookie(token: string | null): void;
}

const codeMap: Record<ErrorCode, TRPC_ERROR_CODE_KEY> = {
  BadRequest: 'BAD_REQUEST',
  Unauthorized: 'UNAUTHORIZED',
  Forbidden: 'FORBIDDEN',
  NotFound: 'NOT_FOUND',
  AlreadyExists: 'CONFLICT',
  Conflict: 'CONFLICT',
  Invalid: 'UNPROCESSABLE_CONTENT',
  Expired: 'PRECONDITION_FAILED',
  MethodNotAllowed: 'METHOD_NOT_SUPPORTED',
  UnsupportedMediaType: 'UNSUPPORTED_MEDIA_TYPE',
  RequestEntityTooLarge: 'PAYLOAD_TOO_LARGE',
  TooManyRequests: 'TOO_MANY_REQUESTS',
  InternalError: 'INTERNAL_SERVER_ERROR',
};

export interface StowageErrorData {
  reason: ErrorCode;
  causes: FieldError[];
}

const t = initTRPC.context<TrpcContext>().create({
  // Keep-alive for live streams, so a stream that died silently is noticed and reopened.
  sse: { ping: { enabled: true, intervalMs: 10_000 }, client: { reconnectAfterInactivityMs: 25_000 } },
  errorFormatter({ shape, error }) {
    const cause = error.cause;
    const stowage: StowageErrorData | undefined = isStowageError(cause)
      ? { reason: cause.code, causes: (cause.details.causes ?? []).map((c) => ({ ...c, message: maskCredentials(c.message) })) }
      : undefined;
    return { ...shape, data: { code: shape.data.code, httpStatus: shape.data.httpStatus, path: shape.data.path, stowage } };
  },
});

/** A StowageError as the tRPC error of its code (its message masked); anything else unchanged. */
export function typedError(e: unknown): unknown {
  const cause = e instanceof TRPCError && isStowageError(e.cause) ? e.cause : e;
  if (!isStowageError(cause)) return e;
  return new TRPCError({ code: codeMap[cause.code], message: maskCredentials(cause.message), cause });
}

/**
 * A subscription's events, its errors typed: an error thrown while a stream runs is past
 * the middlewares (they see only its start), so a stream maps its own.
 */
export async function* typedErrors<T>(events: AsyncIterable<T>): AsyncGenerator<T> {
  try {
    yield* events;
  } catch (e) {
    throw typedError(e);
  }
}

/** StowageErrors become tRPC errors with the matching code; anything else is a plain 500. */
const mapErrors = t.middleware(async ({ next, path }) => {
  const result = await next();
  if (!result.ok) {
    const err = result.error;
    const cause = err.cause;
    if (isStowageError(cause)) throw typedError(cause);
    const unavailable = err.code === 'INTERNAL_SERVER_ERROR' ? databaseUnavailableReason(cause) : undefined;
    if (unavailable) throw new TRPCError({ code: 'SERVICE_UNAVAILABLE', message: `Stowage cannot reach its database right now (${unavailable}); try again in a moment` });
    if (err.code === 'INTERNAL_SERVER_ERROR') {
      logger.error({ err: cause ?? err, path }, 'internal error in tRPC procedure');
      throw new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: 'Internal error; the server log has the details' });
    }
  }
  return result;
});

/**
 * Every input passes the check every REST body and query passes (no NUL, no lone
 * surrogate, bounded nesting, no `__proto__` key): a 400 before any procedure reads it.
 */
const checkInput = t.middleware(async ({ getRawInput, next }) => {
  checkUntrusted(await getRawInput(), 'the input');
  return next();
});

export const router = t.router;
export const publicProcedure = t.procedure.use(mapErrors).use(checkInput).use(({ ctx, next }) => {
  if (ctx.nodeToken) throw new TRPCError({ code: 'FORBIDDEN', message: 'a node token may only use the agent API of its own node' });
  return next();
});
export const authedProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.principal) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'Sign in first' });
  return next({ ctx: { ...ctx, principal: ctx.principal } });
});

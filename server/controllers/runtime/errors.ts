import { databaseUnavailableReason } from '../../domain/database-unavailable';
import { isStowageError } from '../../domain/errors';

// The reconcile contract's error kinds (controller-runtime pkg/reconcile):
// any thrown error is retried with exponential backoff, except a TerminalError, which is
// recorded (log, metric) and not retried until the key changes again.

export class TerminalError extends Error {
  constructor(
    message: string,
    readonly cause?: unknown,
  ) {
    super(message);
    this.name = 'TerminalError';
  }
}

export function isTerminalError(e: unknown): e is TerminalError {
  return e instanceof TerminalError;
}

/**
 * Errors that are part of normal operation between several workers and replicas, not
 * faults: a row another transaction holds, a stale write, an object gone meanwhile, a
 * lock or serialization conflict, a connection closed because the process is stopping.
 * Returns one line saying which, or undefined for a real error (logged with its stack).
 */
export function expectedContention(e: unknown): string | undefined {
  if (!(e instanceof Error)) return undefined;
  const err = e as Error & { code?: unknown };
  if (err.name === 'RowBusyError') return 'row busy in another transaction';
  if (isStowageError(e) && (e.code === 'Conflict' || e.code === 'NotFound')) return `${e.code.toLowerCase()}: ${e.message}`;
  switch (err.code) {
    case '55P03':
      return 'row lock not available';
    case '40001':
      return 'serialization conflict';
    case '40P01':
      return 'deadlock between transactions (one retries)';
  }
  const unavailable = databaseUnavailableReason(e);
  return unavailable ? `database unavailable: ${unavailable}` : undefined;
}

/**
 * An error as one line a user can read: the database's own message rather than the client
 * library's invocation dump around it.
 */
export function errorText(e: unknown): string {
  const raw = e instanceof Error ? e.message : String(e);
  const db = /Message: `([^`]*)`/.exec(raw);
  return (db ? db[1] : raw).replace(/\s+/g, ' ').trim();
}

// Which errors mean "the database cannot be reached right now" rather than "this request
// is wrong": Postgres restarting or failing over, a standby not yet promoted, the network
// to it broken, the pool unable to get a connection in time. Transports answer these with
// a retryable 503 (Retry-After) instead of an internal error, so clients retry through the
// load balancer and the write lands once the database is back.

/** SQLSTATE classes and codes that mean the server went away or cannot take writes. */
const UNAVAILABLE_SQLSTATES: Record<string, string> = {
  '57P01': 'the database is shutting down',
  '57P02': 'the database is restarting after a crash',
  '57P03': 'the database is starting up',
  '57P05': 'the database connection idled out',
  '25006': 'the database is a read-only standby',
  '08000': 'the database connection failed',
  '08001': 'the database refused the connection',
  '08003': 'the database connection is gone',
  '08004': 'the database rejected the connection',
  '08006': 'the database connection failed',
  '53300': 'the database has no free connections',
  '57014': 'the database statement was cancelled (timeout)',
};

/** Node's socket error codes for a database that is down or unreachable. */
const UNAVAILABLE_ERRNOS: Record<string, string> = {
  ECONNREFUSED: 'the database refused the connection',
  ECONNRESET: 'the database connection was reset',
  ETIMEDOUT: 'the database connection timed out',
  EPIPE: 'the database connection broke',
  EHOSTUNREACH: 'the database host is unreachable',
  ENETUNREACH: 'the database network is unreachable',
};

/** node-postgres's own messages for the same conditions (they carry no code). */
const UNAVAILABLE_MESSAGES: [RegExp, string][] = [
  [/^Connection terminated( unexpectedly| due to connection timeout)?$/, 'the database connection closed'],
  [/^timeout exceeded when trying to connect$/, 'no database connection was free in time'],
  [/^Query read timeout$/, 'the database did not answer in time'],
  [/^Client was closed and is not queryable$/, 'the database connection closed'],
  [/^Client has encountered a connection error and is not queryable$/, 'the database connection closed'],
];

/**
 * One line saying why the database is unavailable, or undefined when `e` is not such an
 * error (a constraint violation, a bug, a bad request). Looks through `cause` chains and
 * AggregateErrors (a connection attempt to several addresses).
 */
export function databaseUnavailableReason(e: unknown, depth = 0): string | undefined {
  if (depth > 4 || !(e instanceof Error)) return undefined;
  const code = (e as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (Object.hasOwn(UNAVAILABLE_SQLSTATES, code)) return UNAVAILABLE_SQLSTATES[code];
    if (Object.hasOwn(UNAVAILABLE_ERRNOS, code)) return UNAVAILABLE_ERRNOS[code];
  }
  for (const [re, reason] of UNAVAILABLE_MESSAGES) if (re.test(e.message)) return reason;
  if (e instanceof AggregateError) {
    for (const inner of e.errors) {
      const r = databaseUnavailableReason(inner, depth + 1);
      if (r) return r;
    }
  }
  return databaseUnavailableReason((e as { cause?: unknown }).cause, depth + 1);
}

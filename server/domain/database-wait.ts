// How a starting process waits for an external database it cannot reach yet (a failover
// in progress, a database starting beside it): tries again with a growing pause, and gives
// up after a bounded wait so that a supervisor sees the failure. Pure; the loop is in the CLI.

/** How long a start waits for an unreachable database before it gives up. */
export const DATABASE_WAIT_MS = 60_000;

/** The pause before try `attempt + 1` (0-based): 0.5 s doubling, at most 5 s. */
export function databaseRetryDelayMs(attempt: number): number {
  return Math.min(5000, 500 * 2 ** Math.max(0, Math.min(attempt, 10)));
}

/**
 * What to do after a failed try: wait `delayMs` and try again, or give up (the error is not
 * "unavailable", the process is stopping, or the next try would end past the deadline).
 */
export function afterFailedTry(opts: { unavailable: boolean; stopping: boolean; attempt: number; elapsedMs: number; waitMs?: number }): { retry: true; delayMs: number } | { retry: false } {
  if (!opts.unavailable || opts.stopping) return { retry: false };
  const delayMs = databaseRetryDelayMs(opts.attempt);
  if (opts.elapsedMs + delayMs > (opts.waitMs ?? DATABASE_WAIT_MS)) return { retry: false };
  return { retry: true, delayMs };
}

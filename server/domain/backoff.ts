// Exponential backoff, one rule for every retry that waits longer after each failure in a
// row (node agents' cleanup jobs, data jobs, API worker restarts). Pure.

/** The wait after `failures` failures in a row: `baseMs`, doubling per failure, at most `maxMs` (0 or 1 failure: `baseMs`). */
export function backoffMs(failures: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** Math.max(0, Math.min(30, failures - 1)));
}

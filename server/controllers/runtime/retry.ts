// The retry delays of a failed reconcile, owned by the runtime: the work queue doubles a key's
// delay from `baseDelayMs` at each failure in a row, up to `maxDelayMs` (work-queue.ts). A
// controller spec names one of these, and an option (tests, `provisioning-start.ts`) may
// override either bound.

export interface RetryDelays {
  baseDelayMs: number;
  maxDelayMs: number;
}

export const RETRY = {
  /**
   * For controllers that call out to plugins or node agents (provisioner, deleter, snapshotter,
   * expander): 1 s doubling to 5 min, upstream's external-provisioner, external-snapshotter
   * and external-resizer default (an exponential failure rate limiter of 1 s .. 5 min), so a
   * failing backend is not asked again every few milliseconds nor left alone for long.
   */
  external: { baseDelayMs: 1000, maxDelayMs: 300_000 },
  /**
   * For controllers that only read and write the database: 5 ms doubling to 1,000 s, client-go's
   * default per-item rate limiter, and the work queue's when a spec names none.
   */
  internal: { baseDelayMs: 5, maxDelayMs: 1_000_000 },
} as const satisfies Record<string, RetryDelays>;

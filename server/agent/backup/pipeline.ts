// A bounded set of tasks in flight: reading goes on while earlier chunks hash, compress and
// write on the thread pool. The first failure stops new submissions and is thrown by
// `submit` or `drain`; `drain` always waits for every task (no write outlives the call).
export class Pipeline {
  private inflight = new Set<Promise<void>>();
  private failure: unknown;
  private failed = false;
  constructor(private readonly max: number) {}

  async submit(task: () => Promise<void>): Promise<void> {
    this.throwIfFailed();
    while (this.inflight.size >= this.max) {
      await Promise.race(this.inflight);
      this.throwIfFailed();
    }
    const p: Promise<void> = task()
      .catch((e: unknown) => {
        if (!this.failed) {
          this.failed = true;
          this.failure = e;
        }
      })
      .finally(() => this.inflight.delete(p));
    this.inflight.add(p);
  }

  async drain(): Promise<void> {
    while (this.inflight.size > 0) await Promise.race(this.inflight);
    this.throwIfFailed();
  }

  private throwIfFailed(): void {
    if (this.failed) throw this.failure;
  }
}

/** Calls `report` at most every `everyMs`, and always on `flush`. */
export function throttle<T>(report: ((p: T) => void) | undefined, everyMs = 200) {
  let last = 0;
  return {
    maybe(p: () => T) {
      if (!report) return;
      const now = Date.now();
      if (now - last < everyMs) return;
      last = now;
      report(p());
    },
    flush(p: () => T) {
      report?.(p());
    },
  };
}

export function abortError(signal: AbortSignal | undefined): Error {
  const reason = signal?.reason as unknown;
  if (reason instanceof Error) return reason;
  const e = new Error('the operation was aborted');
  e.name = 'AbortError';
  return e;
}

/** Written bytes between background syncs. */
const FLUSH_EVERY = 128 << 20;

/**
 * Starts `sync` (a `sync -f` of the filesystem being written) in the background after every
 * FLUSH_EVERY bytes written, one at a time, so the disk writes back while later chunks are
 * read and hashed, and the sync that must come at the end finds little left to do. It
 * replaces no sync: callers still wait for a full one after their last write.
 */
export class Flusher {
  private pending = 0;
  private running: Promise<void> | undefined;
  constructor(private readonly sync: () => Promise<unknown>) {}
  wrote(bytes: number): void {
    this.pending += bytes;
    if (this.pending < FLUSH_EVERY || this.running) return;
    this.pending = 0;
    this.running = this.sync()
      .then(() => undefined)
      .catch(() => undefined) // only an early start of writeback; the final sync reports errors
      .finally(() => (this.running = undefined));
  }
  /** Waits for a background sync still running (no child process outlives the caller). */
  async settle(): Promise<void> {
    await this.running;
  }
}

// A work queue of object keys with the semantics of client-go's workqueue
// (util/workqueue/queue.go, delaying_queue.go, default_rate_limiters.go):
//
// - a key waits in the queue at most once: adding it again while it waits is a no-op;
// - a key being processed is never handed out again until `done(key)`; if it was added
//   meanwhile it is queued again at `done`, so the newest state is always seen once more;
// - `addAfter` delays an add (the earliest pending delay wins);
// - `addRateLimited` delays by an exponential per-key backoff, reset by `forget`.
//
// And one thing of its own: keys added `background` (every key of a start's list, of a
// resync) wait behind every other key. A change queued while a million listed keys wait is
// handed out next, not after them; a background key that a change adds again moves ahead.
// At most `maxBackgroundInFlight` background keys are processed at once, so the workers
// and the connections they use are there for a change when it comes.

import { RETRY } from './retry';

export interface WorkQueueOptions {
  /** First retry delay (ms); each further failure doubles it. */
  baseDelayMs?: number;
  /** Upper bound of the retry delay (ms). */
  maxDelayMs?: number;
  /** Called whenever the number of waiting keys changes. */
  onDepth?: (depth: number) => void;
  /** Called when a key is handed to a worker, with how long it waited (ms). */
  onGet?: (waitedMs: number) => void;
  /** Called when a key is added (not counting no-op duplicates). */
  onAdd?: () => void;
  /** Background keys processed at once, at most (default: no limit). */
  maxBackgroundInFlight?: number;
}

/** First-in first-out keys with O(1) push and shift. */
class Fifo {
  private items: (string | undefined)[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(key: string): void {
    this.items.push(key);
  }

  shift(): string | undefined {
    if (this.head >= this.items.length) return undefined;
    const key = this.items[this.head];
    this.items[this.head++] = undefined;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return key;
  }
}

export class WorkQueue {
  private readonly fifo = new Fifo();
  /** Background keys, handed out when `fifo` is empty; an entry not in `behind` is stale (moved ahead). */
  private readonly backgroundFifo = new Fifo();
  /** Keys waiting in backgroundFifo. */
  private readonly behind = new Set<string>();
  /** Keys added again while being processed, only as background: they go behind when done. */
  private readonly dirtyBehind = new Set<string>();
  /** Background keys being processed. */
  private readonly processingBehind = new Set<string>();
  private readonly maxBackgroundInFlight: number;
  /** Keys that need processing (queued, or re-added while processing) -> when added. */
  private readonly dirty = new Map<string, number>();
  private readonly processing = new Set<string>();
  private readonly waiters: ((key: string | undefined) => void)[] = [];
  private readonly failures = new Map<string, number>();
  private readonly delayed = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private shuttingDown = false;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;

  constructor(private readonly opts: WorkQueueOptions = {}) {
    this.baseDelayMs = opts.baseDelayMs ?? RETRY.internal.baseDelayMs;
    this.maxDelayMs = opts.maxDelayMs ?? RETRY.internal.maxDelayMs;
    this.maxBackgroundInFlight = opts.maxBackgroundInFlight ?? Infinity;
  }

  /** Whether one more background key may be handed out. */
  private get backgroundRoom(): boolean {
    return this.processingBehind.size < this.maxBackgroundInFlight;
  }

  /** Keys waiting to be handed out. */
  get length(): number {
    return this.fifo.length + this.behind.size;
  }

  /** Background keys waiting to be handed out. */
  get backgroundLength(): number {
    return this.behind.size;
  }

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  /** Whether the key waits in the queue or is being processed. */
  has(key: string): boolean {
    return this.dirty.has(key) || this.processing.has(key);
  }

  /**
   * Whether the key is due to be handed out again (waiting, or re-added while being
   * processed). A key only being processed is not: what it reads may already be old.
   */
  isPending(key: string): boolean {
    return this.dirty.has(key);
  }

  /** Queues the key; `background`: behind every key not added so. */
  add(key: string, background = false): void {
    if (this.shuttingDown) return;
    if (this.dirty.has(key)) {
      if (background) return;
      // Already due: a foreground add moves it ahead.
      if (this.behind.delete(key)) this.enqueue(key, false);
      else this.dirtyBehind.delete(key);
      return;
    }
    this.dirty.set(key, Date.now());
    this.opts.onAdd?.();
    if (this.processing.has(key)) {
      if (background) this.dirtyBehind.add(key);
      return;
    }
    this.enqueue(key, background);
  }

  private enqueue(key: string, background: boolean): void {
    if (this.waiters.length > 0 && (!background || this.backgroundRoom)) {
      this.handOut(key, background);
      this.waiters.shift()!(key);
      return;
    }
    this.push(key, background);
  }

  private push(key: string, background: boolean): void {
    if (background) {
      this.behind.add(key);
      this.backgroundFifo.push(key);
    } else {
      this.fifo.push(key);
    }
    this.opts.onDepth?.(this.length);
  }

  private handOut(key: string, background: boolean): void {
    const addedAt = this.dirty.get(key) ?? Date.now();
    this.dirty.delete(key);
    this.behind.delete(key);
    this.dirtyBehind.delete(key);
    this.processing.add(key);
    if (background) this.processingBehind.add(key);
    this.opts.onGet?.(Date.now() - addedAt);
  }

  /** The next waiting key and its lane: the foreground's first, else the background's while there is room (stale entries skipped). */
  private next(): { key: string; background: boolean } | undefined {
    const key = this.fifo.shift();
    if (key !== undefined) return { key, background: false };
    if (!this.backgroundRoom) return undefined;
    for (;;) {
      const b = this.backgroundFifo.shift();
      if (b === undefined) return undefined;
      if (this.behind.has(b)) return { key: b, background: true };
    }
  }

  /** Hands out the next waiting key, if any (see `next`). */
  private takeNext(): string | undefined {
    const next = this.next();
    if (next === undefined) return undefined;
    this.handOut(next.key, next.background);
    this.opts.onDepth?.(this.length);
    return next.key;
  }

  /** Adds the key after `delayMs`; an earlier pending delay for the same key wins. */
  addAfter(key: string, delayMs: number): void {
    if (this.shuttingDown) return;
    if (delayMs <= 0) {
      this.add(key);
      return;
    }
    const at = Date.now() + delayMs;
    const pending = this.delayed.get(key);
    if (pending && pending.at <= at) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
      this.delayed.delete(key);
      this.add(key);
    }, delayMs);
    timer.unref();
    this.delayed.set(key, { at, timer });
  }

  /** The delay the next `addRateLimited(key)` would use. */
  backoffOf(key: string): number {
    const n = this.failures.get(key) ?? 0;
    return Math.min(this.baseDelayMs * 2 ** Math.min(n, 40), this.maxDelayMs);
  }

  /** Adds the key after its exponential backoff, and counts one more failure. */
  addRateLimited(key: string): void {
    const delay = this.backoffOf(key);
    this.failures.set(key, (this.failures.get(key) ?? 0) + 1);
    this.addAfter(key, delay);
  }

  /** Stops tracking failures of the key (its next retry starts from the base delay). */
  forget(key: string): void {
    this.failures.delete(key);
  }

  numRequeues(key: string): number {
    return this.failures.get(key) ?? 0;
  }

  /**
   * The next key, waiting for one if needed; undefined once shut down (keys still waiting
   * are dropped: the level-triggered initial list of the next start sees them again).
   */
  get(): Promise<string | undefined> {
    if (this.shuttingDown) return Promise.resolve(undefined);
    const key = this.takeNext();
    if (key !== undefined) return Promise.resolve(key);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Marks the key processed; queues it again if it was added meanwhile. */
  done(key: string): void {
    this.processing.delete(key);
    const wasBehind = this.processingBehind.delete(key);
    if (this.dirty.has(key) && !this.shuttingDown) this.enqueue(key, this.dirtyBehind.delete(key));
    // Room for a background key again: a worker waiting for one takes it.
    if (wasBehind && this.waiters.length > 0 && !this.shuttingDown) {
      const key = this.takeNext();
      if (key !== undefined) this.waiters.shift()!(key);
    }
  }

  /** Refuses new keys, drops delayed ones, and releases idle `get` callers. */
  shutDown(): void {
    this.shuttingDown = true;
    for (const { timer } of this.delayed.values()) clearTimeout(timer);
    this.delayed.clear();
    for (const waiter of this.waiters.splice(0)) waiter(undefined);
  }

  /** Keys currently being processed. */
  get inFlight(): number {
    return this.processing.size;
  }
}

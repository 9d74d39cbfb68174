// One controller on the shared runtime (after controller-runtime's
// pkg/internal/controller/controller.go): keys come from the store's change log and from
// a periodic resync, wait in a deduplicating work queue, and `concurrency` workers hand
// them to `reconcile(key)`, never the same key to two workers at once.
//
// The reconcile contract:
//   - resolves (void)           done; the key is forgotten by the rate limiter;
//   - resolves {requeueAfter}   look again after that many ms (polling, not an error);
//   - throws                    retried with per-key exponential backoff;
//   - throws TerminalError      recorded (log + metric + onError), not retried.
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import { controllerActor } from '../../domain/actor';
import { runAs } from '../../store/actor-context';
import { isStowageError } from '../../domain/errors';
import type { ChangeEvent } from '../../store/change-feed';
import type { ObjectStore } from '../../store/object-store';
import { expectedContention, isTerminalError } from './errors';
import { controllerMetrics, type ControllerMetrics } from './metrics';
import { sleep } from '../../domain/sleep';
import { WorkQueue } from './work-queue';

export interface ReconcileResult {
  /** Reconcile the key again after this many milliseconds. */
  requeueAfter?: number;
}

export interface ReconcileContext {
  controller: string;
  /** Aborted when the controller stops. */
  signal: AbortSignal;
  log: Logger;
  /** Queues another key (of this controller), optionally after a delay. */
  enqueue(key: string, delayMs?: number): void;
  /**
   * Whether the key will be reconciled again anyway (it waits in the queue). A key being
   * reconciled right now does not count: that reconcile may have read an older state.
   */
  isQueued(key: string): boolean;
  /**
   * Declares that this reconcile wrote the object version `resourceVersion`: its echo in
   * the change log is then not queued (the reconcile already acted on that exact state).
   */
  wrote(resourceVersion: string | undefined): void;
}

export type Reconciler = (key: string, ctx: ReconcileContext) => Promise<ReconcileResult | void>;

/** Keys all at once, or a page at a time. */
export type KeyList = Promise<string[]> | AsyncIterable<string[]>;

/** A key list read a page at a time: each page of `pages` made keys by `key`. */
export async function* keysByPage<T>(pages: AsyncIterable<T[]>, key: (t: T) => string): AsyncGenerator<string[]> {
  for await (const page of pages) yield page.map(key);
}

/** The pages of a key list (one, for a list given all at once). */
async function* pagesOf(list: KeyList): AsyncGenerator<string[]> {
  if (Symbol.asyncIterator in list) yield* list;
  else yield await list;
}

export interface ControllerSpec {
  name: string;
  reconcile: Reconciler;
  /** Kinds whose changes feed the queue, and the keys each change maps to. */
  watch: { kinds: string[]; keysFor(event: ChangeEvent): string[] };
  /**
   * Every key to look at on start (and again if the watch falls behind compaction): all at
   * once, or pages read one at a time as the queue takes them (a first pass over a million
   * claims then holds a page of keys, not a million).
   */
  listKeys(): KeyList;
  /**
   * Periodic resync: keys to look at again `everyMs` after the last round (defaults to
   * listKeys), queued behind changes and at most `keysPerSecond` a second (default
   * RESYNC_KEYS_PER_SECOND).
   */
  resync?: { everyMs: number; listKeys?: () => KeyList; keysPerSecond?: number };
  /**
   * Another source of keys, for state outside the change log (intent records): `subscribe`
   * calls back on each change there (with no payload); the runtime then asks `keys()` (one
   * call at a time, changes meanwhile folded into one more call) and queues them.
   */
  wakeups?: { subscribe(wake: () => void): () => void; keys(): Promise<string[]> };
  /** Workers reconciling at once (default 4). */
  concurrency?: number;
  /**
   * Of them, at most this many on keys from a list or a resync at once (default: no
   * limit): the others, and the background pool's connections, are free for changes. The
   * binder takes BACKGROUND_IN_FLIGHT. (A controller whose resync is how it notices
   * changes, as the local-volume manager polls its agents' reports, takes none.)
   */
  backgroundConcurrency?: number;
  /** Called for every failed reconcile, after the retry decision. */
  onError?(key: string, error: unknown, terminal: boolean): void;
  baseDelayMs?: number;
  maxDelayMs?: number;
}

export interface ControllerOptions {
  store: ObjectStore;
  log: Logger;
  metrics?: ControllerMetrics;
  /** How long `stop()` waits for running reconciles (ms). */
  shutdownTimeoutMs?: number;
}

const OWN_WRITES_CAP = 200_000;

/**
 * The most keys a resync round queues a second (in slices every 100 ms): a round's cost
 * does not grow with the number of objects. Up to 15,000 keys a round still fits in 30 s;
 * 500,000 Pending claims take about 17 minutes a round instead of all being looked at
 * again every 30 s, which kept the controllers and Postgres busy for good.
 */
export const RESYNC_KEYS_PER_SECOND = 500;

/**
 * Reconciles of keys from a list or a resync at once, for the binder. With its 256 workers
 * all on a first pass over a million claims, a new claim's reconcile waited for one of the
 * background pool's ten connections: p50 67-89 ms from create to Bound.
 */
export const BACKGROUND_IN_FLIGHT = 4;

/**
 * A start's list is queued this many keys at a time: the next ones once fewer wait behind
 * changes. A million listed keys cost their strings, not a million entries in the queue's
 * sets and maps (about 125 bytes each: 125 MB of the controllers' heap at a million claims).
 */
export const LISTED_KEYS_QUEUED = 1_000;

export class Controller {
  readonly name: string;
  readonly queue: WorkQueue;
  private readonly abort = new AbortController();
  private readonly ownWrites = new Set<string>();
  /**
   * Per queued key, the versions of the changes that queued it. A change can reach the
   * watch before the reconcile that wrote it has called `wrote` (its commit's NOTIFY races
   * the COMMIT's answer), so the echo is looked for again when the key is taken.
   */
  private readonly queuedBy = new Map<string, Set<string>>();
  /** Keys queued by anything but a change (lists, resyncs, retries, enqueue): always run. */
  private readonly forced = new Set<string>();
  private readonly metrics: ControllerMetrics;
  private readonly log: Logger;
  private readonly ctx: ReconcileContext;
  private workers: Promise<void>[] = [];
  private watching: Promise<void> | undefined;
  private resyncing: Promise<void> | undefined;
  private unsubscribeWakeups: (() => void) | undefined;
  private started = false;
  /** The last full list (start, relist) while it has pages not read yet. */
  private listing: AsyncIterator<string[]> | undefined;
  /** The list whose next page is being read (one read at a time, or pages would be taken out of order). */
  private reading: AsyncIterator<string[]> | undefined;
  /** Its page being queued; listedNext is the next key to queue. */
  private listed: (string | undefined)[] = [];
  private listedNext = 0;

  constructor(
    readonly spec: ControllerSpec,
    private readonly opts: ControllerOptions,
  ) {
    this.name = spec.name;
    // Every worker's waits listen on this one signal (a provisioner's 16 workers pausing
    // while a row is busy, say): many listeners is the design, not a leak.
    setMaxListeners(1000, this.abort.signal);
    this.metrics = opts.metrics ?? controllerMetrics();
    this.log = opts.log.child({ controller: spec.name });
    const m = this.metrics;
    const labels = { controller: spec.name };
    m.queueDepth.set(labels, 0);
    m.activeWorkers.set(labels, 0);
    this.queue = new WorkQueue({
      maxBackgroundInFlight: spec.backgroundConcurrency,
      baseDelayMs: spec.baseDelayMs,
      maxDelayMs: spec.maxDelayMs,
      onDepth: (n) => m.queueDepth.set(labels, n),
      onAdd: () => m.queueAdds.inc(labels),
      onGet: (ms) => m.queueWait.observe(labels, ms / 1000),
    });
    this.ctx = {
      controller: spec.name,
      signal: this.abort.signal,
      log: this.log,
      enqueue: (key, delayMs) => {
        this.forced.add(key);
        if (delayMs && delayMs > 0) this.queue.addAfter(key, delayMs);
        else this.queue.add(key);
      },
      isQueued: (key) => this.queue.isPending(key),
      wrote: (rv) => {
        if (!rv) return;
        if (this.ownWrites.size >= OWN_WRITES_CAP) this.ownWrites.clear();
        this.ownWrites.add(rv);
      },
    };
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /**
   * Starts watching, lists every key once and starts the workers. Everything it starts
   * (reconciles, timers) writes as `controller:<name>` in the history.
   */
  start(): Promise<void> {
    return runAs(controllerActor(this.name), () => this.startAs());
  }

  private async startAs(): Promise<void> {
    if (this.started) return;
    this.started = true;
    const { store } = this.opts;
    const from = await store.currentResourceVersion();
    this.watching = this.watchLoop(from);
    // Every key once, behind any change that comes meanwhile.
    await this.queueListed(this.spec.listKeys());
    const n = Math.max(1, this.spec.concurrency ?? 4);
    for (let i = 0; i < n; i++) this.workers.push(this.worker());
    if (this.spec.wakeups) this.unsubscribeWakeups = this.spec.wakeups.subscribe(this.wakeupRunner(this.spec.wakeups.keys));
    const resync = this.spec.resync;
    if (resync && resync.everyMs > 0) this.resyncing = this.resyncLoop(resync);
    this.log.debug({ workers: n }, 'controller started');
  }

  /** Resync rounds until stopped: each `everyMs` after the last, its keys paced (RESYNC_KEYS_PER_SECOND). */
  private async resyncLoop(resync: NonNullable<ControllerSpec['resync']>): Promise<void> {
    const signal = this.abort.signal;
    const slice = Math.max(1, Math.ceil((resync.keysPerSecond ?? RESYNC_KEYS_PER_SECOND) / 10));
    while (!signal.aborted) {
      await sleep(resync.everyMs, signal);
      if (signal.aborted) return;
      // The last full list is still being queued: it looks at every key anyway.
      if (this.listing || this.listedNext < this.listed.length) continue;
      try {
        let first = true;
        for await (const keys of pagesOf((resync.listKeys ?? this.spec.listKeys)())) {
          for (let i = 0; i < keys.length && !signal.aborted; i += slice) {
            if (!first) await sleep(100, signal);
            first = false;
            for (const k of keys.slice(i, i + slice)) this.addForced(k, true);
          }
          if (signal.aborted) break;
        }
      } catch (err) {
        if (!signal.aborted) this.log.warn({ err }, 'resync failed');
      }
    }
  }

  /** Asks for the keys of a wake-up, one call at a time; wake-ups during a call make one more. */
  private wakeupRunner(keys: () => Promise<string[]>): () => void {
    let running = false;
    let again = false;
    const run = async () => {
      running = true;
      try {
        do {
          again = false;
          try {
            for (const k of await runAs(controllerActor(this.name), keys)) this.addForced(k);
          } catch (err) {
            if (!this.abort.signal.aborted) this.log.warn({ err }, 'wake-up keys failed; the resync covers them');
          }
        } while (again && !this.abort.signal.aborted);
      } finally {
        running = false;
      }
    };
    return () => {
      if (this.abort.signal.aborted) return;
      if (running) again = true;
      else void run();
    };
  }

  /** Stops taking keys, lets running reconciles finish (up to the timeout), stops watching. */
  async stop(): Promise<void> {
    this.unsubscribeWakeups?.();
    this.queue.shutDown();
    this.abort.abort();
    const all = Promise.all([...this.workers, this.watching, this.resyncing]);
    const timeout = this.opts.shutdownTimeoutMs ?? 30_000;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([all, new Promise<void>((r) => (timer = setTimeout(r, timeout)))]);
    if (timer) clearTimeout(timer);
    this.metrics.queueDepth.set({ controller: this.name }, 0);
    this.log.debug('controller stopped');
  }

  /**
   * Queues the keys of a full list (start, relist) behind changes, LISTED_KEYS_QUEUED at a
   * time, reading its pages as they are needed; it replaces a list not all queued yet.
   * Resolves once its first page is read (a failure to read it is the caller's).
   */
  private async queueListed(list: KeyList): Promise<void> {
    const pages = pagesOf(list);
    this.listing = pages;
    this.listed = [];
    this.listedNext = 0;
    this.reading = pages;
    let first: IteratorResult<string[]>;
    try {
      first = await pages.next();
    } finally {
      if (this.reading === pages) this.reading = undefined;
    }
    if (this.listing !== pages) return;
    this.takePage(first);
  }

  private takePage(page: IteratorResult<string[]>): void {
    if (page.done) this.listing = undefined;
    this.listed = page.done ? [] : page.value;
    this.listedNext = 0;
    this.queueMoreListed();
  }

  /** Queues more listed keys while fewer than LISTED_KEYS_QUEUED background keys wait, reading the list's next page when this one is queued. */
  private queueMoreListed(): void {
    const { listed } = this;
    const room = () => this.queue.backgroundLength < LISTED_KEYS_QUEUED && !this.queue.isShuttingDown;
    while (this.listedNext < listed.length && room()) {
      const key = listed[this.listedNext];
      listed[this.listedNext++] = undefined; // its string is the queue's now
      if (key !== undefined) this.addForced(key, true);
    }
    const pages = this.listing;
    if (this.listedNext < listed.length || !pages || this.reading === pages || !room()) return;
    this.reading = pages;
    pages.next().then(
      (page) => {
        if (this.reading === pages) this.reading = undefined;
        if (this.listing === pages) this.takePage(page);
      },
      (err: unknown) => {
        if (this.reading === pages) this.reading = undefined;
        if (this.listing !== pages) return;
        this.listing = undefined;
        if (!this.abort.signal.aborted) this.log.warn({ err }, 'listing keys failed; the resync looks at them again');
      },
    );
  }

  /** Queues a key not queued by a change (it always runs); `background`: behind changes. */
  private addForced(key: string, background = false): void {
    this.forced.add(key);
    this.queue.add(key, background);
  }

  /** Whether the key was queued only by echoes of this controller's own writes. */
  private onlyOwnEchoes(key: string): boolean {
    const versions = this.queuedBy.get(key);
    this.queuedBy.delete(key);
    const forced = this.forced.delete(key);
    if (forced || !versions || versions.size === 0) return false;
    for (const rv of versions) if (!this.ownWrites.has(rv)) return false;
    for (const rv of versions) this.ownWrites.delete(rv);
    return true;
  }

  private async worker(): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      this.queueMoreListed();
      try {
        if (!this.onlyOwnEchoes(key)) await this.process(key);
      } finally {
        this.queue.done(key);
      }
    }
  }

  private async process(key: string): Promise<void> {
    const labels = { controller: this.name };
    const m = this.metrics;
    const end = m.reconcileDuration.startTimer(labels);
    m.activeWorkers.inc(labels);
    let result = 'success';
    try {
      const res = await this.spec.reconcile(key, this.ctx);
      this.queue.forget(key);
      if (res?.requeueAfter && res.requeueAfter > 0 && !this.abort.signal.aborted) {
        result = 'requeue_after';
        this.forced.add(key);
        this.queue.addAfter(key, res.requeueAfter);
      }
    } catch (err) {
      if (isTerminalError(err)) {
        result = 'terminal_error';
        this.queue.forget(key);
        m.terminalErrors.inc(labels);
        this.log.error({ err, key }, 'reconcile failed; not retrying');
      } else {
        result = 'error';
        m.reconcileErrors.inc(labels);
        if (!this.abort.signal.aborted) {
          m.retries.inc(labels);
          const delay = this.queue.backoffOf(key);
          this.forced.add(key);
          this.queue.addRateLimited(key);
          // Contention is normal among workers and replicas: one debug line, no stack.
          const expected = expectedContention(err);
          if (expected) this.log.debug({ key, retryInMs: delay }, `reconcile retrying: ${expected}`);
          else this.log.warn({ err, key, retryInMs: delay }, 'reconcile failed; retrying');
        }
      }
      try {
        this.spec.onError?.(key, err, result === 'terminal_error');
      } catch {
        // a hook must not break the worker
      }
    } finally {
      m.activeWorkers.dec(labels);
      end();
      m.reconcileTotal.inc({ ...labels, result });
    }
  }

  private async watchLoop(from: bigint): Promise<void> {
    const { store } = this.opts;
    const signal = this.abort.signal;
    let rv = from;
    while (!signal.aborted && !store.feed.isStopped) {
      try {
        // "0" would mean "from now" to the store; "00" is the same number taken literally
        // (nothing was ever written when the head is 0, so every change is after it).
        const from = rv === 0n ? '00' : rv.toString();
        const events = store.watch({ kinds: this.spec.watch.kinds, resourceVersion: from, signal });
        for await (const e of events) {
          rv = e.rv;
          const version = e.rv.toString();
          if (this.ownWrites.delete(version)) continue;
          for (const key of this.spec.watch.keysFor(e)) {
            const versions = this.queuedBy.get(key);
            if (versions) versions.add(version);
            else this.queuedBy.set(key, new Set([version]));
            this.queue.add(key);
          }
        }
        if (!signal.aborted) await sleep(500, signal);
      } catch (err) {
        if (signal.aborted) return;
        if (isStowageError(err) && err.code === 'Expired') {
          // Fell behind compaction: start over from now and look at everything once.
          this.log.warn({ rv: rv.toString() }, 'change log compacted past the watch; listing again');
          try {
            rv = await store.currentResourceVersion();
            await this.queueListed(this.spec.listKeys());
          } catch (e) {
            this.log.warn({ err: e }, 'relist failed');
            await sleep(1000, signal);
          }
        } else {
          this.log.warn({ err }, 'watch failed; restarting');
          await sleep(1000, signal);
        }
      }
    }
  }
}

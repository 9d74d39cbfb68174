// The objects of a few kinds kept in memory from the change feed, for the controllers'
// reads (upstream's informer caches): a reconcile asks for the object it acts on, its
// class, its volume, many times a second in a burst, and each plain read was a round trip
// to Postgres. The cache lists each kind once, then follows the feed in resourceVersion
// order (every change once, in order: change-feed.ts).
//
// A read is as fresh as a read of the database would have been for the caller: it waits
// until the cache has applied every change the feed has read and every write this process
// committed (ObjectStore.lastCommitted), so a reconcile sees the change that queued it and
// its own earlier writes. A read that cannot be answered so (the cache is still listing, or
// has fallen behind for longer than a moment) is a miss, and the caller reads the database.
// Objects are handed out as copies: a caller may change what it gets.
//
// A kind may keep only some of its objects (`keep`): of the others only the name is kept,
// and a read of one is a miss. So a pool of 100,000 Available volumes costs names, not
// objects, while the volumes the controllers read by name (bound ones) are in memory.
//
// A kind may also be found by an index (`indexes`: the keys an object is found under, e.g.
// the claim a volume is reserved for). An index answers only for objects kept whole; a key
// an object not kept whole has is unsure from then on, and finding by it is a miss.
//
// A kind may keep at most so many objects whole (`limits`): past it, the objects least
// recently read or changed are kept by name only, as if their kind's `keep` had said no,
// until a change brings them back. So a million claims cost names and the few hundred
// thousand in use, not a million objects (the controllers' memory stays bounded).
//
// Names and unsure index keys are themselves kept up to NAMES_KEPT per kind: past it the
// kind forgets them and says "ask the database" for every object and key it does not keep
// whole (until its next list), so a million objects cost no million names either, and its
// first list stops there (the objects after it would be read only to be forgotten).
//
// The first lists are read a page at a time (LIST_PAGE objects unless told), each kind's
// pages at one resourceVersion, so that listing never holds a whole kind parsed at once.
import { isStowageError } from '../domain/errors';
import type { KubeObject } from '../resources/types';
import type { ChangeEvent, ChangeFeed } from './change-feed';
import type { ListResult } from './list';
import { rowKey } from './kind-scope';
import { LruOrder } from './lru-order';

/** The cache's answer when it cannot answer: read the database instead. */
export const MISS = Symbol('miss');

/** How long a read waits for the cache to catch up before it is a miss. */
const CATCH_UP_MS = 1_000;

/** Objects per page of the first lists. */
export const LIST_PAGE = 5_000;

/**
 * Per kind, the most names of objects not kept whole (and unsure index keys) remembered;
 * past it, every read of an object not kept whole is a miss. A name costs about 110 bytes:
 * at a million volumes, 2,000,000 names were 220 MB of the controllers' heap.
 */
export const NAMES_KEPT = 100_000;

/** A kind's names (or unsure keys) past NAMES_KEPT: not remembered, each one might be. */
const UNCOUNTED = 'uncounted';
type Remembered = Set<string> | typeof UNCOUNTED;

export interface CacheSource {
  readonly feed: ChangeFeed;
  /** The highest resourceVersion this process has committed. */
  readonly lastCommitted: bigint;
  /** One page of a kind's list (continued from `continue`, at that list's resourceVersion). */
  list(kind: string, page: { limit: number; continue?: string }): Promise<ListResult>;
}


/** Per kind kept: true for every object, or which objects to keep whole. */
export type KeptKinds = ReadonlyMap<string, true | ((o: KubeObject) => boolean)>;

/** Per kind: the index keys an object is found under (CacheIndexes). */
export type CacheIndexes = ReadonlyMap<string, (o: KubeObject) => string[]>;

/** Per kind: the most objects kept whole at once (the others by name). */
export type CacheLimits = ReadonlyMap<string, number>;

/** An object's key within its kind. */
const nameKey = (namespace: string, name: string) => `${namespace}\u0000${name}`;

/** Whether a remembered set may hold `item` (an uncounted one may hold anything). */
const mayHold = (set: Remembered | undefined, item: string) => set === UNCOUNTED || (set?.has(item) ?? false);

/** Drops `item` from a remembered set (an uncounted one stays as it is). */
const forget = (set: Remembered | undefined, item: string) => {
  if (set !== UNCOUNTED) set?.delete(item);
};

export class ObjectCache {
  private readonly objects = new Map<string, KubeObject>();
  /** Per kind, objects that exist but are not kept whole (`keep` said no, or past the kind's limit), by nameKey. */
  private readonly elsewhere = new Map<string, Remembered>();
  /** Index entry (kind, index key) -> keys of the objects kept whole under it. */
  private readonly indexed = new Map<string, Set<string>>();
  /** Object key -> its index entries. */
  private readonly entriesOf = new Map<string, string[]>();
  /** Per kind, index entries an object not kept whole had: finding by them is a miss. */
  private readonly unsure = new Map<string, Remembered>();
  /** Per kind, the keys of its objects kept whole. */
  private readonly ofKind = new Map<string, Set<string>>();
  /** Per kind with a limit, the keys of its objects kept whole, least recently read or changed first. */
  private readonly used = new Map<string, LruOrder>();
  /** Every change at or below this version is applied. */
  private rv = -1n;
  private ready = false;
  private readonly waiters = new Set<{ rv: bigint; resolve: () => void }>();
  private readonly abort = new AbortController();
  private following: Promise<void> | undefined;
  private readonly indexes: CacheIndexes;
  private readonly limits: CacheLimits;
  private readonly listPage: number;
  private readonly namesKept: number;

  constructor(
    private readonly source: CacheSource,
    readonly kinds: KeptKinds,
    opts: { indexes?: CacheIndexes; limits?: CacheLimits; listPage?: number; namesKept?: number } = {},
  ) {
    this.indexes = opts.indexes ?? new Map();
    this.limits = opts.limits ?? new Map();
    this.listPage = opts.listPage ?? LIST_PAGE;
    this.namesKept = opts.namesKept ?? NAMES_KEPT;
  }

  /** Lists the kinds and follows the feed until `stop`. Resolves once the first lists are in. */
  async start(): Promise<void> {
    const cursor = await this.load();
    this.following = this.follow(cursor);
  }

  async stop(): Promise<void> {
    this.abort.abort();
    for (const w of this.waiters) w.resolve();
    this.waiters.clear();
    await this.following;
  }

  /**
   * The object (a copy) as of at least every change this process has seen or made;
   * undefined when it does not exist; MISS when the cache cannot say so now.
   * `namespace`: "" for a cluster-scoped kind.
   */
  async get(kind: string, namespace: string, name: string): Promise<KubeObject | undefined | typeof MISS> {
    if (!(await this.current(kind))) return MISS;
    const key = rowKey(kind, namespace, name);
    const o = this.objects.get(key);
    if (o !== undefined) {
      this.used.get(kind)?.use(key); // the kind's most recently used, when it has a limit
      return structuredClone(o);
    }
    return mayHold(this.elsewhere.get(kind), nameKey(namespace, name)) ? MISS : undefined;
  }

  /**
   * The objects (copies) of `kind` found under `indexKey`, in name order, as fresh as `get`;
   * MISS when the cache cannot say (not indexed, not current, or the key is unsure).
   */
  async find(kind: string, indexKey: string): Promise<KubeObject[] | typeof MISS> {
    if (!this.indexes.has(kind) || !(await this.current(kind))) return MISS;
    const entry = rowKey(kind, '', indexKey);
    if (mayHold(this.unsure.get(kind), entry)) return MISS;
    const keys = [...(this.indexed.get(entry) ?? [])].sort();
    return keys.map((k) => structuredClone(this.objects.get(k)!));
  }

  /**
   * Every object of `kind` (copies), in namespace and name order, as fresh as `get`; MISS
   * when the cache cannot say (the kind is not kept, or not whole, or not current).
   */
  async all(kind: string): Promise<KubeObject[] | typeof MISS> {
    const names = this.elsewhere.get(kind);
    if (this.kinds.get(kind) !== true || !(await this.current(kind)) || names === UNCOUNTED || (names?.size ?? 0) > 0) return MISS;
    const keys = [...(this.ofKind.get(kind) ?? [])].sort();
    return keys.map((k) => structuredClone(this.objects.get(k)!));
  }

  /** Whether `kind` is kept and the cache has applied every change this process has seen or made (waiting a moment for it). */
  private async current(kind: string): Promise<boolean> {
    if (!this.kinds.has(kind) || !this.ready || this.abort.signal.aborted) return false;
    const target = this.source.feed.currentHead > this.source.lastCommitted ? this.source.feed.currentHead : this.source.lastCommitted;
    return this.rv >= target || (await this.caughtUp(target));
  }

  /** The first lists: each kind as of its own version; returns where the feed is followed from. */
  private async load(): Promise<{ from: bigint; listedAt: Map<string, bigint> }> {
    this.ready = false;
    this.objects.clear();
    this.ofKind.clear();
    this.used.clear();
    this.elsewhere.clear();
    this.indexed.clear();
    this.entriesOf.clear();
    this.unsure.clear();
    const listedAt = new Map<string, bigint>();
    for (const kind of this.kinds.keys()) listedAt.set(kind, await this.loadKind(kind));
    // From the oldest list on: a change a kind's list already shows is skipped (listedAt).
    const from = [...listedAt.values()].reduce((a, b) => (b < a ? b : a));
    this.rv = from;
    this.ready = true;
    return { from, listedAt };
  }

  /**
   * Lists one kind into memory a page at a time; returns the list's resourceVersion. A list
   * whose version was compacted away before its last page (410 Expired) starts over.
   */
  private async loadKind(kind: string): Promise<bigint> {
    for (;;) {
      try {
        let cont: string | undefined;
        let at: bigint | undefined;
        do {
          const page = await this.source.list(kind, { limit: this.listPage, continue: cont });
          at ??= BigInt(page.resourceVersion);
          for (const o of page.items) this.put(kind, o.metadata.namespace ?? '', o.metadata.name ?? '', o);
          cont = page.continue;
          // Past NAMES_KEPT names the rest would be read only to be forgotten: the kind
          // answers "ask the database" for everything it does not keep whole, index keys
          // included (a million claims: 125,000 read, not a million parsed).
          if (cont && this.elsewhere.get(kind) === UNCOUNTED) {
            if (this.indexes.has(kind)) this.unsure.set(kind, UNCOUNTED);
            break;
          }
        } while (cont);
        return at;
      } catch (err) {
        if (!isStowageError(err) || err.code !== 'Expired') throw err;
        this.forgetKind(kind);
      }
    }
  }

  /** Drops everything kept of a kind (before listing it again). */
  private forgetKind(kind: string): void {
    for (const key of this.ofKind.get(kind) ?? []) {
      this.unindex(key);
      this.objects.delete(key);
    }
    this.ofKind.delete(kind);
    this.used.delete(kind);
    this.elsewhere.delete(kind);
    this.unsure.delete(kind);
  }

  private put(kind: string, namespace: string, name: string, o: KubeObject): void {
    const key = rowKey(kind, namespace, name);
    const keep = this.kinds.get(kind);
    const whole = keep === true || (keep?.(o) ?? false);
    this.unindex(key);
    const index = this.indexes.get(kind);
    const entries = index ? index(o).map((k) => rowKey(kind, '', k)) : [];
    if (!whole) return this.keepName(kind, namespace, name, key, entries);
    this.objects.set(key, o);
    let keys = this.ofKind.get(kind);
    if (!keys) this.ofKind.set(kind, (keys = new Set()));
    keys.add(key);
    forget(this.elsewhere.get(kind), nameKey(namespace, name));
    if (entries.length > 0) {
      this.entriesOf.set(key, entries);
      for (const e of entries) {
        if (!this.indexed.has(e)) this.indexed.set(e, new Set());
        this.indexed.get(e)!.add(key);
      }
    }
    const limit = this.limits.get(kind);
    if (limit !== undefined) this.trim(kind, key, limit);
  }

  /** The object exists, but only its name is kept: reads of it and finds by its index keys are misses. */
  private keepName(kind: string, namespace: string, name: string, key: string, entries: string[]): void {
    this.objects.delete(key);
    this.ofKind.get(kind)?.delete(key);
    this.used.get(kind)?.delete(key);
    this.remember(this.elsewhere, kind, nameKey(namespace, name));
    for (const e of entries) this.remember(this.unsure, kind, e);
  }

  /** Adds `item` to the kind's set in `sets`, which past namesKept forgets them all (UNCOUNTED). */
  private remember(sets: Map<string, Remembered>, kind: string, item: string): void {
    let set = sets.get(kind);
    if (set === UNCOUNTED) return;
    if (!set) sets.set(kind, (set = new Set()));
    if (set.add(item).size > this.namesKept) sets.set(kind, UNCOUNTED);
  }

  /** Marks `key` (just changed) the most recently used, and keeps the kind's `limit` most recently used whole; the others by name. */
  private trim(kind: string, key: string, limit: number): void {
    let used = this.used.get(kind);
    if (!used) this.used.set(kind, (used = new LruOrder()));
    used.use(key);
    for (let oldest = used.oldest(); oldest !== undefined && used.size > limit; oldest = used.oldest()) {
      const entries = this.entriesOf.get(oldest) ?? [];
      this.unindex(oldest);
      const [, namespace = '', name = ''] = oldest.split('\u0000');
      this.keepName(kind, namespace, name, oldest, entries);
    }
  }

  private unindex(key: string): void {
    for (const e of this.entriesOf.get(key) ?? []) {
      const set = this.indexed.get(e);
      set?.delete(key);
      if (set?.size === 0) this.indexed.delete(e);
    }
    this.entriesOf.delete(key);
  }

  private apply(e: ChangeEvent, listedAt: Map<string, bigint>): void {
    if (!this.kinds.has(e.kind) || e.rv <= (listedAt.get(e.kind) ?? -1n)) return;
    if (e.type !== 'DELETED') return this.put(e.kind, e.namespace, e.name, e.object);
    const key = rowKey(e.kind, e.namespace, e.name);
    this.unindex(key);
    this.objects.delete(key);
    this.ofKind.get(e.kind)?.delete(key);
    this.used.get(e.kind)?.delete(key);
    forget(this.elsewhere.get(e.kind), nameKey(e.namespace, e.name));
  }

  private advance(rv: bigint): void {
    if (rv <= this.rv) return;
    this.rv = rv;
    for (const w of this.waiters) {
      if (w.rv <= rv) {
        this.waiters.delete(w);
        w.resolve();
      }
    }
  }

  /** Whether the cache reached `rv` within CATCH_UP_MS. */
  private caughtUp(rv: bigint): Promise<boolean> {
    return new Promise((resolve) => {
      const w = {
        rv,
        resolve: () => {
          clearTimeout(timer);
          resolve(this.rv >= rv && !this.abort.signal.aborted);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(w);
        resolve(false);
      }, CATCH_UP_MS);
      this.waiters.add(w);
    });
  }

  private async follow(start: { from: bigint; listedAt: Map<string, bigint> }): Promise<void> {
    const { feed } = this.source;
    const signal = this.abort.signal;
    let { from: cursor, listedAt } = start;
    let pending = true;
    let wake: (() => void) | undefined;
    const unsubscribe = feed.onWake(() => {
      pending = true;
      wake?.();
    });
    const onAbort = () => wake?.();
    signal.addEventListener('abort', onAbort);
    try {
      while (!signal.aborted && !feed.isStopped) {
        if (!pending) {
          await new Promise<void>((resolve) => {
            wake = resolve;
            if (pending || signal.aborted) resolve();
          });
          wake = undefined;
          continue;
        }
        pending = false;
        try {
          for (;;) {
            // Everything at or below the head read before asking is in the answer.
            const head = feed.currentHead;
            const events = await feed.eventsAfter(cursor);
            for (const e of events) {
              this.apply(e, listedAt);
              cursor = e.rv;
            }
            if (events.length === 0) {
              this.advance(head > cursor ? head : cursor);
              break;
            }
            this.advance(cursor);
          }
        } catch {
          // Fell behind the log's compaction (or the database failed): list again. Reads
          // are misses meanwhile.
          this.ready = false;
          for (;;) {
            if (signal.aborted) return;
            try {
              ({ from: cursor, listedAt } = await this.load());
              break;
            } catch {
              await new Promise<void>((r) => setTimeout(r, 1_000).unref());
            }
          }
          pending = true;
        }
      }
    } finally {
      unsubscribe();
      signal.removeEventListener('abort', onAbort);
    }
  }
}

// ONE generic object store for every kind, over Postgres through node-postgres (pg.ts says
// why there is no second client): one pool for requests and one for background work
// (connection-lanes.ts).
//
// - resourceVersion: one global sequence; every write of any object takes the next value.
// - A write of one or more objects happens in one transaction that also appends each
//   change to `change_log` and NOTIFYs watchers. Transactions commit concurrently (no
//   global lock); the change feed reads the log's settled prefix, so watches still see
//   every change once in resourceVersion order (see change-feed.ts, docs/write-path.md).
// - Per-kind rules (shape, defaults, validation, what may change) come from the kind's
//   strategy (server/resources); the store applies them on every write, whoever writes.
//
// This class is the store's face: it owns the pool, the change feed, the commit notifier
// and the in-memory kinds, and hands each call to the part that does it: plain reads
// (object-reads.ts), lists (list.ts), transactions (transaction-runner.ts over
// store-tx.ts, whose writes follow write-rules.ts and deletion.ts), watches
// (watch-stream.ts) and compaction (change-log-compaction.ts).
import type pg from 'pg';
import { notFound } from '../domain/errors';
import { unstorable } from '../domain/untrusted';
import type { ObjectOfName } from '../resources/kinds';
import type { KubeObject } from '../resources/types';
import { AssetSignals } from './asset-signals';
import { CHANGE_CHANNEL, ChangeFeed, headOf, type ChangeEvent } from './change-feed';
import { compactChangeLog } from './change-log-compaction';
import { CommitNotifier, OTHERS_DELAY_MS } from './commit-notifier';
import { nsOf, strategyOf } from './kind-scope';
import { listObjects, type ListOptions, type ListResult } from './list';
import { MISS, ObjectCache } from './object-cache';
import { readKind, readMany, readOne, readOnNode } from './object-reads';
import { currentLane } from './connection-lanes';
import { createPool, poolSql, type SqlClient } from './pg';
import { POOL, SIGNALS, SQL, type Pooled } from './sql-handle';
import { StoreTx } from './store-tx';
import { runTransaction, type TxClass } from './transaction-runner';
import { watchChanges, type WatchOptions } from './watch-stream';
import type { DeleteOptions, DeleteResult, UpdateOptions, WriteOptions, Written } from './write-options';

export { StoreTx } from './store-tx';
export type { ListOptions, ListResult } from './list';
export type { ChangeEvent } from './change-feed';
export type { WatchOptions } from './watch-stream';
export type { DeleteOptions, DeleteResult, UpdateOptions, WriteOptions, Written } from './write-options';

export class ObjectStore implements Pooled {
  readonly feed: ChangeFeed;
  /** Requests' pool and SQL on it (pg.ts; connection-lanes.ts). */
  private readonly requests: { pool: pg.Pool; sql: SqlClient };
  /** Background work's pool (the controllers'), made at its first use. */
  private background: { pool: pg.Pool; sql: SqlClient } | undefined;
  /** Wakes the change feeds of every process after this store's commits. */
  private readonly notifier: CommitNotifier;
  /** Wakes those waiting on intent records (asset-signals.ts). */
  readonly [SIGNALS]: AssetSignals;
  private committed = 0n;
  /** Kinds kept in memory for `recent` (keepInMemory). */
  private cache: ObjectCache | undefined;

  /**
   * `poolSize`: the connections of each of the two pools, requests' and background work's
   * (connection-lanes.ts); the second is made only when background work first asks.
   */
  constructor(
    private readonly connectionString: string,
    private readonly poolSize = 10,
  ) {
    const pool = createPool(connectionString, poolSize, 'stowage-requests');
    this.requests = { pool, sql: poolSql(pool) };
    this.notifier = new CommitNotifier(connectionString, CHANGE_CHANNEL, OTHERS_DELAY_MS);
    // The feed reads for every watch and for the controllers' cache alike: requests' pool.
    this.feed = new ChangeFeed(this.requests.sql, connectionString, (m) => this.notifier.isOwn(m));
    this[SIGNALS] = new AssetSignals(connectionString);
  }

  /** The pool of the current work's lane, and SQL on it. */
  private get lane(): { pool: pg.Pool; sql: SqlClient } {
    if (currentLane() === 'requests') return this.requests;
    if (!this.background) {
      const pool = createPool(this.connectionString, this.poolSize, 'stowage-background');
      this.background = { pool, sql: poolSql(pool) };
    }
    return this.background;
  }

  private get pool(): pg.Pool {
    return this.lane.pool;
  }

  private get sql(): SqlClient {
    return this.lane.sql;
  }

  /** The current lane's pool and SQL on it, for the store's named queries (sql-handle.ts). */
  get [SQL](): SqlClient {
    return this.lane.sql;
  }

  get [POOL](): pg.Pool {
    return this.lane.pool;
  }

  /** The highest resourceVersion this process has committed. */
  get lastCommitted(): bigint {
    return this.committed;
  }

  /** Starts the change feed (needed for watch). */
  start(): Promise<void> {
    return this.feed.start();
  }

  /**
   * `SELECT 1` on the pool, failing after `timeoutMs` (a connection that cannot be made, or
   * a database that does not answer): the readiness check's view of Postgres.
   */
  async ping(timeoutMs = 2000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the database did not answer within ${timeoutMs} ms`)), timeoutMs);
    });
    const query = this.requests.sql.$queryRawUnsafe('SELECT 1');
    query.catch(() => {}); // a late failure after the timeout is not unhandled
    try {
      await Promise.race([query, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async stop(): Promise<void> {
    await this.feed.stop();
    await this.notifier.close();
    await this[SIGNALS].stop();
    await this.requests.pool.end().catch(() => {});
    await this.background?.pool.end().catch(() => {});
  }

  // --- reads ---

  /**
   * Every object of `kind` as `current` has them, from memory for a kind kept there whole
   * (keepInMemory), as fresh as `recent`; else `current`.
   */
  async recentAll<K extends string>(kind: K): Promise<ObjectOfName<K>[]> {
    const s = strategyOf(kind);
    const kept = this.cache ? await this.cache.all(s.kind) : MISS;
    return kept === MISS ? this.current(kind) : (kept as ObjectOfName<K>[]);
  }

  /**
   * Every object of a kind as committed now, in namespace and name order: one plain read,
   * for decisions that need the current objects but no resourceVersion (a list, which
   * answers as of a settled version, first settles the change log).
   */
  async current<K extends string>(kind: K): Promise<ObjectOfName<K>[]> {
    return readKind<ObjectOfName<K>>(this.sql, strategyOf(kind));
  }

  async get<K extends string>(kind: K, namespace: string | undefined, name: string): Promise<ObjectOfName<K>> {
    const o = await this.tryGet(kind, namespace, name);
    if (!o) throw notFound(kind, name, strategyOf(kind).plural, strategyOf(kind).group);
    return o;
  }

  async tryGet<K extends string>(kind: K, namespace: string | undefined, name: string): Promise<ObjectOfName<K> | undefined> {
    return readOne<ObjectOfName<K>>(this.sql, strategyOf(kind), namespace, name);
  }

  /**
   * Keeps the objects of `kinds` in memory, following the change feed, for `recent` (the
   * controllers' reads): each kind's every object (true), or those its function keeps
   * (of the others only names, and reading one reads the database). Resolves once they
   * are listed; returns the stop. `indexes`: per kind, the keys `recentByIndex` finds an
   * object under (only objects kept whole are found so). `limits`: per kind, the most
   * objects kept whole (the least recently used past it by name only). `listPage`: objects
   * per page of the first lists (object-cache.ts's LIST_PAGE).
   */
  async keepInMemory(
    kinds: Record<string, true | ((o: KubeObject) => boolean)>,
    opts: { indexes?: Record<string, (o: KubeObject) => string[]>; limits?: Record<string, number>; listPage?: number; namesKept?: number } = {},
  ): Promise<() => Promise<void>> {
    const byKind = <V>(r: Record<string, V> = {}) => new Map(Object.entries(r).map(([k, v]) => [strategyOf(k).kind, v]));
    const cache = new ObjectCache(this, byKind(kinds), { indexes: byKind(opts.indexes), limits: byKind(opts.limits), listPage: opts.listPage, namesKept: opts.namesKept });
    await this.feed.start();
    await cache.start();
    this.cache = cache;
    return async () => {
      if (this.cache === cache) this.cache = undefined;
      await cache.stop();
    };
  }

  /**
   * The object as of at least every change this process has seen or made (what a
   * reconcile acts on): from memory for a kind kept there (keepInMemory), else a read.
   */
  async recent<K extends string>(kind: K, namespace: string | undefined, name: string): Promise<ObjectOfName<K> | undefined> {
    const s = strategyOf(kind);
    if (this.cache && !unstorable(namespace) && !unstorable(name)) {
      const o = await this.cache.get(s.kind, nsOf(s, namespace), name);
      if (o !== MISS) return o as ObjectOfName<K> | undefined;
    }
    return this.tryGet(kind, namespace, name);
  }

  /**
   * The objects of `kind` found under `indexKey` by an index keepInMemory was given, as
   * fresh as `recent`; undefined when memory cannot say (then the caller reads the database).
   */
  async recentByIndex<K extends string>(kind: K, indexKey: string): Promise<ObjectOfName<K>[] | undefined> {
    if (!this.cache) return undefined;
    const found = await this.cache.find(strategyOf(kind).kind, indexKey);
    return found === MISS ? undefined : (found as ObjectOfName<K>[]);
  }

  /**
   * Several objects of a kind by namespace and name in one read, keyed "namespace/name"
   * (a missing one is absent from the map).
   */
  async tryGetMany<K extends string>(kind: K, keys: { namespace?: string; name: string }[]): Promise<Map<string, ObjectOfName<K>>> {
    return readMany<ObjectOfName<K>>(this.sql, strategyOf(kind), keys);
  }

  /** The objects of a kind placed on `node` (pods: spec.nodeName), from the indexed column. */
  async onNode<K extends string>(kind: K, node: string, limit: number): Promise<ObjectOfName<K>[]> {
    return readOnNode<ObjectOfName<K>>(this.sql, strategyOf(kind), node, limit);
  }

  /** One list of a kind: its objects typed by the kind (the rows are the kind's, by its strategy). */
  list<K extends string>(kind: K, opts: ListOptions = {}): Promise<ListResult<ObjectOfName<K>>> {
    return listObjects(this.pool, strategyOf(kind), opts) as Promise<ListResult<ObjectOfName<K>>>; // the store holds only objects its strategy validated
  }

  // --- writes ---

  /**
   * Runs `fn` in one transaction: reads lock the rows they read; all writes commit
   * together or not at all. Retried on deadlock.
   */
  transact<T>(fn: (tx: StoreTx) => Promise<T>, opts: WriteOptions = {}): Promise<T> {
    return this.transactWith(StoreTx, fn, opts);
  }

  /** `transact` with a subclass of StoreTx (e.g. the controllers' read-your-writes one). */
  async transactWith<X extends StoreTx, T>(Tx: TxClass<X>, fn: (tx: X) => Promise<T>, opts: WriteOptions = {}): Promise<T> {
    return runTransaction(this.pool, Tx, fn, opts, (top) => {
      // Committed: wake this process's feed now and the others' by a NOTIFY (never inside the transaction; commit-notifier.ts says why).
      if (top > this.committed) this.committed = top;
      this.feed.ownCommit();
      this.notifier.committed(top);
    });
  }

  /** Answers the object as stored: of the given object's kind, so of its type. */
  create<T extends KubeObject>(obj: T, opts: WriteOptions = {}): Promise<Written<T>> {
    return this.transact((tx) => tx.create(obj), opts);
  }

  /** Answers the object as stored: of the given object's kind, so of its type. */
  update<T extends KubeObject>(obj: T, opts: UpdateOptions = {}): Promise<Written<T>> {
    return this.transact((tx) => tx.update(obj, opts), opts);
  }

  delete<K extends string>(kind: K, namespace: string | undefined, name: string, opts: DeleteOptions = {}): Promise<DeleteResult<ObjectOfName<K>>> {
    return this.transact((tx) => tx.delete(kind, namespace, name, opts), opts);
  }

  // --- the change log ---

  /**
   * The newest resourceVersion committed whose every predecessor is settled: all changes
   * at or below it are visible and no other will ever appear there.
   */
  currentResourceVersion(): Promise<bigint> {
    return headOf(this.sql);
  }

  /**
   * Streams changes after `resourceVersion` in order until the signal aborts.
   * Throws an Expired StowageError when that version has been compacted away.
   */
  watch(opts: WatchOptions = {}): AsyncGenerator<ChangeEvent> {
    return watchChanges(this.feed, this.sql, opts);
  }

  /**
   * Drops change-log entries older than `olderThanMs`, always keeping the newest `keep`
   * entries, and never past the settled prefix (change-log-compaction.ts).
   */
  async compact(olderThanMs: number, keep = 1000): Promise<bigint> {
    return compactChangeLog(this.pool, olderThanMs, keep);
  }
}

// ONE generic object store for every kind, over Postgres through the store's one
// node-postgres pool (pg.ts says why there is no second client).
//
// - resourceVersion: one global sequence; every write of any object takes the next value.
// - A write of one or more objects happens in one transaction that also appends each
//   change to `change_log` and NOTIFYs watchers. Transactions commit concurrently (no
//   global lock); the change feed reads the log's settled prefix, so watches still see
//   every change once in resourceVersion order (see change-feed.ts, docs/write-path.md).
// - Per-kind rules (shape, defaults, validation, what may change) come from the kind's
//   strategy (server/resources); the store applies them on every write, whoever writes.
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { alreadyExists, conflict, invalid, notFound, StowageError } from '../domain/errors';
import { unstorable } from '../domain/untrusted';
import { strategyForKind } from '../resources/registry';
import { checkShape } from '../resources/shape-check';
import { timestampNow } from '../resources/metadata';
import type { KubeObject, ObjectMeta, Strategy } from '../resources/types';
import type { ObjectOfName } from '../resources/kinds';
import { CHANGE_CHANNEL, ChangeFeed, compactedRv, expired, GAP, headOf, settle, type ChangeEvent } from './change-feed';
import { CommitNotifier, OTHERS_DELAY_MS } from './commit-notifier';
import { AssetSignals } from './asset-signals';
import { flushWrites } from './flush';
import { MISS, ObjectCache } from './object-cache';
import type { PendingWrite } from './pending-write';
import { POOL, SIGNALS, SQL, type Pooled, type Queryable } from './sql-handle';
import { currentActor } from './actor-context';
import { SYSTEM_ACTOR } from '../domain/actor';
import { inKubeOrder } from '../resources/key-order';
import { listObjects, type ListOptions, type ListResult } from './list';
import { createPool, inTransaction, poolSql, type SqlClient } from './pg';
import type pg from 'pg';
import { orphanFinalizer } from '../domain/well-known/finalizers';
import { terminatingCreateRefusal } from '../domain/namespace-lifecycle';

export type { ListOptions, ListResult } from './list';
export type { ChangeEvent } from './change-feed';


/**
 * What a create or update answers: the object of the type it was given (the store keeps
 * its kind, and the kind's strategy checked it against the kind's schema), with the
 * metadata the store fills (uid, resourceVersion, creationTimestamp ...).
 */
export type Written<T extends KubeObject> = T & { metadata: ObjectMeta };

export interface WriteOptions {
  dryRun?: boolean;
  /**
   * Who writes (user:alice, token:alice/ci, controller:binder, ...), recorded in the
   * history table; absent: the async context's actor (actor-context.ts), else `system`.
   */
  actor?: string;
}
export interface UpdateOptions extends WriteOptions {
  /** `finalize`: a kind's own finalizers (Strategy.kindFinalizers), as upstream's namespaces/{name}/finalize. */
  subresource?: 'status' | 'finalize';
}
export interface DeleteOptions extends WriteOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
  /** Upstream DeleteOptions.gracePeriodSeconds: 0 deletes at once; absent takes the kind's default. */
  gracePeriodSeconds?: number;
  /**
   * Upstream DeleteOptions.propagationPolicy. Orphan holds the object with the `orphan`
   * finalizer until the garbage collector has removed it from its dependents' owners;
   * Background (and Foreground, treated alike) lets the garbage collector delete them.
   */
  propagationPolicy?: string;
}

/** The grace period a delete waits for (upstream BeforeDelete): 0 when the kind or object has none. */
function graceOf(s: Strategy, obj: KubeObject, asked: number | undefined): number {
  const byDefault = s.gracefulDeletionSeconds?.(obj) ?? 0;
  if (byDefault <= 0) return 0;
  if (asked === undefined) return byDefault;
  return asked < 0 ? 1 : Math.min(asked, 86_400);
}

function inSeconds(seconds: number): string {
  return timestampNow(new Date(Date.now() + seconds * 1000));
}
export interface DeleteResult<T extends KubeObject = KubeObject> {
  /** The object as deleted (or as marked for deletion): of the kind deleted. */
  object: T;
  /** false when finalizers hold the object (it now has a deletionTimestamp). */
  deleted: boolean;
}

type TxClient = SqlClient;

const GENERATE_CHARS = 'bcdfghjklmnpqrstvwxz2456789';

function strategyOf(kind: unknown): Strategy {
  const s = typeof kind === 'string' ? strategyForKind(kind) : undefined;
  if (!s) throw new StowageError('BadRequest', `no kind "${String(kind ?? '')}" is registered`);
  return s;
}

function nsOf(s: Strategy, namespace: string | undefined): string {
  return s.namespaced ? (namespace ?? '') : '';
}

function nowRfc3339(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Everything but metadata and status: what `generation` counts changes of. */
function specPart(o: KubeObject): Record<string, unknown> {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = o;
  return rest;
}

function comparable(o: KubeObject): KubeObject {
  const { resourceVersion: _rv, ...meta } = o.metadata;
  return { ...o, metadata: meta };
}

/** A transaction over the store: reads lock rows; writes are applied together at commit. */
export class StoreTx implements Queryable {
  private readonly queue: PendingWrite[] = [];
  constructor(
    tx: TxClient,
    readonly dryRun: boolean,
    /** The actor of every write of this transaction; absent: the async context's (or system). */
    readonly actor?: string,
  ) {
    this[SQL] = tx;
  }

  /** This transaction's connection, for the store's named queries (sql-handle.ts). */
  readonly [SQL]: SqlClient;

  /** The writes queued so far, in order (applied by flush at commit). */
  get writes(): PendingWrite[] {
    return this.queue;
  }

  private push(w: PendingWrite): KubeObject {
    w.object = inKubeOrder(w.object);
    w.actor = this.actor ?? currentActor() ?? SYSTEM_ACTOR;
    this.queue.push(w);
    return w.object;
  }

  /** Whether this transaction's last queued write of object `uid` deletes it. */
  private deletedHere(uid: string | undefined): boolean {
    for (let i = this.queue.length - 1; i >= 0; i--) if (this.queue[i].id === uid) return this.queue[i].type === 'DELETED';
    return false;
  }

  async get<K extends string>(kind: K, namespace: string | undefined, name: string): Promise<ObjectOfName<K> | undefined> {
    const s = strategyOf(kind);
    if (unstorable(namespace) || unstorable(name)) return undefined;
    const rows = await this[SQL].$queryRawUnsafe<{ id: string; object: ObjectOfName<K> }[]>(
      'SELECT id, object FROM objects WHERE kind = $1 AND namespace = $2 AND name = $3 FOR UPDATE',
      s.kind,
      nsOf(s, namespace),
      name,
    );
    return rows[0]?.object;
  }

  /**
   * Every object of a kind in one namespace, in name order. With `lock`, their rows stay
   * locked until the transaction ends (taken in name order, so writers never deadlock on them).
   */
  async listIn<K extends string>(kind: K, namespace: string, opts: { lock?: boolean } = {}): Promise<ObjectOfName<K>[]> {
    const s = strategyOf(kind);
    if (unstorable(namespace)) return [];
    const rows = await this[SQL].$queryRawUnsafe<{ object: ObjectOfName<K> }[]>(
      `SELECT object FROM objects WHERE kind = $1 AND namespace = $2 ORDER BY name${opts.lock ? ' FOR UPDATE' : ''}`,
      s.kind,
      nsOf(s, namespace),
    );
    return rows.map((r) => r.object);
  }

  async mustGet<K extends string>(kind: K, namespace: string | undefined, name: string): Promise<ObjectOfName<K>> {
    const o = await this.get(kind, namespace, name);
    if (!o) throw notFound(kind, name, strategyOf(kind).plural, strategyOf(kind).group);
    return o;
  }

  /** Answers the object as it will be stored: of the given object's kind, so of its type. */
  async create<T extends KubeObject>(input: T): Promise<Written<T>>;
  async create(input: KubeObject): Promise<KubeObject> {
    const s = strategyOf((input as KubeObject | null)?.kind);
    checkShape(s, input);
    const obj = structuredClone(input);
    const meta = (obj.metadata ??= {});
    if (!meta.name && meta.generateName) {
      let suffix = '';
      for (let i = 0; i < 5; i++) suffix += GENERATE_CHARS[Math.floor(Math.random() * GENERATE_CHARS.length)];
      meta.name = meta.generateName + suffix;
    }
    if (s.namespaced) {
      if (meta.namespace) await this.requireNamespace(meta.namespace, s, meta.name ?? '');
    } else {
      delete meta.namespace;
    }
    meta.uid = randomUUID();
    meta.creationTimestamp = nowRfc3339();
    meta.generation = 1;
    delete meta.resourceVersion;
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    // managedFields are kept as given: server-side apply records its manager at creation.
    if (Array.isArray(meta.managedFields) && meta.managedFields.length === 0) delete meta.managedFields;
    obj.apiVersion = s.apiVersion;
    s.applyDefaults(obj);
    s.prepareForCreate(obj);
    const errors = s.validate(obj);
    if (errors.length > 0) throw invalid(s.kind, meta.name, errors, s.group);
    if (this.dryRun) {
      // A name this transaction deleted is free again for it (flush.ts deletes before it inserts).
      const existing = await this.get(s.kind, meta.namespace, meta.name!);
      if (existing && !this.deletedHere(existing.metadata.uid)) throw alreadyExists(s.kind, meta.name!, s.plural, s.group);
    }
    return this.push({ type: 'ADDED', strategy: s, object: obj, id: meta.uid, action: 'create' });
  }

  /** Answers the object as it will be stored (or as stored, when nothing changed): of the given object's kind, so of its type. */
  async update<T extends KubeObject>(input: T, opts?: UpdateOptions): Promise<Written<T>>;
  async update(input: KubeObject, opts: UpdateOptions = {}): Promise<KubeObject> {
    const s = strategyOf((input as KubeObject | null)?.kind);
    checkShape(s, input);
    const next = structuredClone(input);
    const meta = (next.metadata ??= {});
    if (!meta.name) throw invalid(s.kind, undefined, [{ field: 'metadata.name', reason: 'FieldValueRequired', message: 'Required value: name is required' }], s.group);
    const prev = await this.get(s.kind, meta.namespace, meta.name);
    if (!prev) throw notFound(s.kind, meta.name, s.plural, s.group);
    if (meta.resourceVersion && meta.resourceVersion !== prev.metadata.resourceVersion) {
      throw conflict(s.kind, meta.name, s.plural, s.group);
    }
    if (meta.uid && meta.uid !== prev.metadata.uid) {
      throw new StowageError(
        'Conflict',
        `Precondition failed: UID in precondition: ${meta.uid}, UID in object meta: ${prev.metadata.uid}`,
        { kind: s.plural, name: meta.name, ...(s.group ? { group: s.group } : {}) },
      );
    }
    next.apiVersion = s.apiVersion;
    if (opts.subresource === 'status') {
      next.metadata = { ...prev.metadata };
      s.prepareForStatusUpdate(next, prev);
    } else if (opts.subresource === 'finalize') {
      if (!s.kindFinalizers) throw notFound(s.kind, meta.name, s.plural, s.group);
      s.kindFinalizers.prepareForFinalize(next, prev);
    } else {
      s.prepareForUpdate(next, prev);
    }
    // System-owned metadata always comes from the stored object.
    next.metadata.uid = prev.metadata.uid;
    next.metadata.creationTimestamp = prev.metadata.creationTimestamp;
    next.metadata.namespace = prev.metadata.namespace;
    if (!s.namespaced) delete next.metadata.namespace;
    next.metadata.generation = prev.metadata.generation ?? 1;
    next.metadata.resourceVersion = prev.metadata.resourceVersion;
    // managedFields: a write that leaves them out keeps the stored ones (as upstream);
    // an empty list clears them.
    if (next.metadata.managedFields === undefined) {
      if (prev.metadata.managedFields !== undefined) next.metadata.managedFields = prev.metadata.managedFields;
    } else if (Array.isArray(next.metadata.managedFields) && next.metadata.managedFields.length === 0) {
      delete next.metadata.managedFields;
    }
    if (prev.metadata.deletionTimestamp) {
      next.metadata.deletionTimestamp = prev.metadata.deletionTimestamp;
      next.metadata.deletionGracePeriodSeconds = prev.metadata.deletionGracePeriodSeconds;
    } else {
      delete next.metadata.deletionTimestamp;
      delete next.metadata.deletionGracePeriodSeconds;
    }
    if (next.metadata.generateName === undefined && prev.metadata.generateName) {
      next.metadata.generateName = prev.metadata.generateName;
    }
    s.applyDefaults(next);
    const errors = [...s.validate(next), ...s.validateUpdate(next, prev)];
    if (errors.length > 0) throw invalid(s.kind, meta.name, errors, s.group);
    if (!isDeepStrictEqual(specPart(next), specPart(prev))) next.metadata.generation += 1;
    if (isDeepStrictEqual(comparable(next), comparable(prev))) return prev;
    // Finalizers gone from an object being deleted: it goes, unless it is still in its grace period.
    const graceLeft = (next.metadata.deletionGracePeriodSeconds ?? 0) > 0;
    const held = (next.metadata.finalizers ?? []).length > 0 || (s.kindFinalizers?.of(next) ?? []).length > 0;
    const type = next.metadata.deletionTimestamp && !held && !graceLeft ? 'DELETED' : 'MODIFIED';
    return this.push({ type, strategy: s, object: next, id: prev.metadata.uid!, action: opts.subresource === 'status' ? 'status' : 'update' });
  }

  async delete<K extends string>(kind: K, namespace: string | undefined, name: string, opts?: DeleteOptions): Promise<DeleteResult<ObjectOfName<K>>>;
  async delete(kind: string, namespace: string | undefined, name: string, opts: DeleteOptions = {}): Promise<DeleteResult> {
    const s = strategyOf(kind);
    const prev = await this.get(s.kind, namespace, name);
    if (!prev) throw notFound(s.kind, name, s.plural, s.group);
    const pre = opts.preconditions ?? {};
    if (pre.uid && pre.uid !== prev.metadata.uid) {
      throw new StowageError(
        'Conflict',
        `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${prev.metadata.uid}`,
        { kind: s.plural, name, ...(s.group ? { group: s.group } : {}) },
      );
    }
    if (pre.resourceVersion && pre.resourceVersion !== prev.metadata.resourceVersion) {
      throw new StowageError(
        'Conflict',
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${prev.metadata.resourceVersion}`,
        { kind: s.plural, name, ...(s.group ? { group: s.group } : {}) },
      );
    }
    if (s.kindFinalizers && (!prev.metadata.deletionTimestamp || s.kindFinalizers.of(prev).length > 0)) {
      // Upstream's namespace registry: the first delete marks the object (its controller
      // empties it and removes its finalizer); the object goes on a delete once they are gone.
      if (prev.metadata.deletionTimestamp) return { object: prev, deleted: false };
      const next = structuredClone(prev);
      next.metadata.deletionTimestamp = nowRfc3339();
      s.kindFinalizers.markDeleting(next);
      if (opts.propagationPolicy === 'Orphan' && !(prev.metadata.finalizers ?? []).includes(orphanFinalizer)) {
        next.metadata.finalizers = [...(prev.metadata.finalizers ?? []), orphanFinalizer];
      }
      return { object: this.push({ type: 'MODIFIED', strategy: s, object: next, id: prev.metadata.uid!, action: 'delete' }), deleted: false };
    }
    const grace = graceOf(s, prev, opts.gracePeriodSeconds);
    const pendingGrace = prev.metadata.deletionGracePeriodSeconds ?? 0;
    if (opts.propagationPolicy === 'Orphan' && !(prev.metadata.finalizers ?? []).includes(orphanFinalizer)) {
      // Upstream adds the orphan finalizer (the garbage collector removes it once the
      // dependents let go); the object is marked deleted and stays until then.
      const next = structuredClone(prev);
      next.metadata.finalizers = [...(prev.metadata.finalizers ?? []), orphanFinalizer];
      if (!prev.metadata.deletionTimestamp) {
        next.metadata.deletionTimestamp = grace > 0 ? inSeconds(grace) : nowRfc3339();
        next.metadata.deletionGracePeriodSeconds = grace;
        next.metadata.generation = (prev.metadata.generation ?? 1) + 1;
      }
      return { object: this.push({ type: 'MODIFIED', strategy: s, object: next, id: prev.metadata.uid!, action: 'delete' }), deleted: false };
    }
    if (grace > 0) {
      // Graceful: Terminating until whoever runs the object (a node agent) deletes it with
      // grace 0. A second delete may shorten the grace period, never lengthen it.
      if (prev.metadata.deletionTimestamp && pendingGrace <= grace) return { object: prev, deleted: false };
      const next = structuredClone(prev);
      next.metadata.deletionTimestamp = inSeconds(grace);
      next.metadata.deletionGracePeriodSeconds = grace;
      if (!prev.metadata.deletionTimestamp) next.metadata.generation = (prev.metadata.generation ?? 1) + 1;
      return { object: this.push({ type: 'MODIFIED', strategy: s, object: next, id: prev.metadata.uid!, action: 'delete' }), deleted: false };
    }
    if ((prev.metadata.finalizers ?? []).length > 0) {
      if (prev.metadata.deletionTimestamp && pendingGrace > 0) {
        const next = structuredClone(prev);
        next.metadata.deletionGracePeriodSeconds = 0;
        return { object: this.push({ type: 'MODIFIED', strategy: s, object: next, id: prev.metadata.uid!, action: 'delete' }), deleted: false };
      }
      if (prev.metadata.deletionTimestamp) return { object: prev, deleted: false };
      const next = structuredClone(prev);
      next.metadata.deletionTimestamp = nowRfc3339();
      next.metadata.deletionGracePeriodSeconds = 0;
      next.metadata.generation = (prev.metadata.generation ?? 1) + 1;
      return { object: this.push({ type: 'MODIFIED', strategy: s, object: next, id: prev.metadata.uid!, action: 'delete' }), deleted: false };
    }
    const gone = this.push({ type: 'DELETED', strategy: s, object: structuredClone(prev), id: prev.metadata.uid!, action: 'delete' });
    return { object: gone, deleted: true };
  }

  /**
   * The committed object with its row locked, never waiting for a lock: 'busy' when another
   * transaction holds the row, undefined when there is no such row. Kind and namespace are
   * used as given (for subclasses that resolve them themselves, e.g. the controllers').
   */
  protected async lockWithoutWaiting(kind: string, namespace: string, name: string): Promise<KubeObject | 'busy' | undefined> {
    // One round trip: the row locked, or whether it exists at all (then another transaction
    // holds it). Reads of names that do not exist yet (a controller about to create) are common.
    const rows = await this[SQL].$queryRawUnsafe<{ object: KubeObject | null; present: boolean }[]>(
      `WITH l AS (SELECT object FROM objects WHERE kind = $1 AND namespace = $2 AND name = $3 FOR UPDATE SKIP LOCKED)
       SELECT (SELECT object FROM l) AS object, EXISTS (SELECT 1 FROM objects WHERE kind = $1 AND namespace = $2 AND name = $3) AS present`,
      kind,
      namespace,
      name,
    );
    const row = rows[0];
    if (row?.object) return row.object;
    return row?.present ? 'busy' : undefined;
  }

  /**
   * The namespace of a create must exist and not be Terminating (upstream's lifecycle
   * admission). Its row is key-share locked until commit, so the namespace cannot go while
   * a create in it is in flight (the namespace controller's last count locks it for update).
   */
  private async requireNamespace(namespace: string, s: Strategy, name: string): Promise<void> {
    const rows = await this[SQL].$queryRawUnsafe<{ phase: string | null }[]>(
      "SELECT phase FROM objects WHERE kind = 'Namespace' AND namespace = '' AND name = $1 FOR KEY SHARE",
      namespace,
    );
    if (rows.length === 0) throw notFound('Namespace', namespace, 'namespaces');
    if (rows[0].phase === 'Terminating') throw terminatingCreateRefusal(s.plural, s.group, name, namespace);
  }

  /** Applies the queued writes at commit (see flush.ts). */
  async flush(): Promise<void> {
    if (this.dryRun) return;
    await flushWrites(this[SQL], this.queue);
  }
}


export interface WatchOptions {
  /** Kinds to watch (all when empty). */
  kinds?: string[];
  namespace?: string;
  /** Start after this version; absent or "0": from now. */
  resourceVersion?: string;
  /** Extra filter on each event (label/field selectors, authorization). */
  filter?: (e: ChangeEvent) => boolean;
  signal?: AbortSignal;
}

/**
 * Errors after which the whole transaction is run again: deadlocks, serialization
 * failures, and a resourceVersion a reader of the change log closed as a gap before this
 * transaction wrote its row (change-feed.ts).
 */
function isRetryable(e: unknown): boolean {
  const err = e as { message?: unknown; code?: unknown; constraint?: unknown };
  if (err?.code === '40P01' || err?.code === '40001') return true;
  if (err?.code === '23505' && err.constraint === 'change_log_pkey') return true;
  const msg = String(err?.message ?? '');
  return /deadlock detected|could not serialize|40P01|40001/.test(msg);
}

/** The highest resourceVersion a committed transaction's writes got. */
function lastVersion(stx: StoreTx): bigint | undefined {
  let top: bigint | undefined;
  for (const w of stx.writes) {
    const rv = w.object.metadata.resourceVersion;
    if (rv && (top === undefined || BigInt(rv) > top)) top = BigInt(rv);
  }
  return top;
}

export class ObjectStore implements Pooled {
  readonly feed: ChangeFeed;
  /** The process's one pool (pg.ts). */
  private readonly pool: pg.Pool;
  /** SQL on that pool. */
  private readonly sql: SqlClient;
  /** The pool and SQL on it, for the store's named queries (sql-handle.ts). */
  readonly [SQL]: SqlClient;
  readonly [POOL]: pg.Pool;
  /** Wakes the change feeds of every process after this store's commits. */
  private readonly notifier: CommitNotifier;
  /** Wakes those waiting on intent records (asset-signals.ts). */
  readonly [SIGNALS]: AssetSignals;
  private committed = 0n;
  /** Kinds kept in memory for `recent` (keepInMemory). */
  private cache: ObjectCache | undefined;

  constructor(connectionString: string, poolSize = 10) {
    this.pool = createPool(connectionString, poolSize);
    this.sql = poolSql(this.pool);
    this[SQL] = this.sql;
    this[POOL] = this.pool;
    this.notifier = new CommitNotifier(connectionString, CHANGE_CHANNEL, OTHERS_DELAY_MS);
    this.feed = new ChangeFeed(this.sql, connectionString, (m) => this.notifier.isOwn(m));
    this[SIGNALS] = new AssetSignals(connectionString);
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
    const query = this.sql.$queryRawUnsafe('SELECT 1');
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
    await this.pool.end().catch(() => {});
  }

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
    const s = strategyOf(kind);
    const rows = await this.sql.$queryRawUnsafe<{ object: ObjectOfName<K> }[]>(
      'SELECT object FROM objects WHERE kind = $1 ORDER BY namespace COLLATE "C", name COLLATE "C"',
      s.kind,
    );
    return rows.map((r) => r.object);
  }

  async get<K extends string>(kind: K, namespace: string | undefined, name: string): Promise<ObjectOfName<K>> {
    const o = await this.tryGet(kind, namespace, name);
    if (!o) throw notFound(kind, name, strategyOf(kind).plural, strategyOf(kind).group);
    return o;
  }

  async tryGet<K extends string>(kind: K, namespace: string | undefined, name: string): Promise<ObjectOfName<K> | undefined> {
    const s = strategyOf(kind);
    // No stored name holds NUL (every write refuses it), and Postgres cannot compare it.
    if (unstorable(namespace) || unstorable(name)) return undefined;
    const rows = await this.sql.$queryRawUnsafe<{ object: ObjectOfName<K> }[]>(
      'SELECT object FROM objects WHERE kind = $1 AND namespace = $2 AND name = $3',
      s.kind,
      nsOf(s, namespace),
      name,
    );
    return rows[0]?.object;
  }

  /**
   * Keeps the objects of `kinds` in memory, following the change feed, for `recent` (the
   * controllers' reads): each kind's every object (true), or those its function keeps
   * (of the others only names, and reading one reads the database). Resolves once they
   * are listed; returns the stop. `indexes`: per kind, the keys `recentByIndex` finds an
   * object under (only objects kept whole are found so).
   */
  async keepInMemory(
    kinds: Record<string, true | ((o: KubeObject) => boolean)>,
    indexes: Record<string, (o: KubeObject) => string[]> = {},
  ): Promise<() => Promise<void>> {
    const cache = new ObjectCache(
      this,
      new Map(Object.entries(kinds).map(([k, keep]) => [strategyOf(k).kind, keep])),
      new Map(Object.entries(indexes).map(([k, index]) => [strategyOf(k).kind, index])),
    );
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
    const s = strategyOf(kind);
    const wanted = keys.filter((k) => !unstorable(k.namespace) && !unstorable(k.name)).map((k) => ({ namespace: nsOf(s, k.namespace), name: k.name }));
    const out = new Map<string, ObjectOfName<K>>();
    if (wanted.length === 0) return out;
    const rows = await this.sql.$queryRawUnsafe<{ namespace: string; name: string; object: ObjectOfName<K> }[]>(
      'SELECT o.namespace, o.name, o.object FROM objects o JOIN unnest($2::text[], $3::text[]) AS k(namespace, name) ON o.namespace = k.namespace AND o.name = k.name WHERE o.kind = $1',
      s.kind,
      wanted.map((k) => k.namespace),
      wanted.map((k) => k.name),
    );
    for (const r of rows) out.set(`${r.namespace}/${r.name}`, r.object);
    return out;
  }

  /** The objects of a kind placed on `node` (pods: spec.nodeName), from the indexed column. */
  async onNode<K extends string>(kind: K, node: string, limit: number): Promise<ObjectOfName<K>[]> {
    const s = strategyOf(kind);
    if (unstorable(node)) return [];
    const rows = await this.sql.$queryRawUnsafe<{ object: ObjectOfName<K> }[]>(
      'SELECT object FROM objects WHERE kind = $1 AND node_name = $2 ORDER BY namespace, name LIMIT $3',
      s.kind,
      node,
      limit,
    );
    return rows.map((r) => r.object);
  }

  /** One list of a kind: its objects typed by the kind (the rows are the kind's, by its strategy). */
  list<K extends string>(kind: K, opts: ListOptions = {}): Promise<ListResult<ObjectOfName<K>>> {
    return listObjects(this.pool, strategyOf(kind), opts) as Promise<ListResult<ObjectOfName<K>>>; // the store holds only objects its strategy validated
  }

  /**
   * Runs `fn` in one transaction: reads lock the rows they read; all writes commit
   * together or not at all. Retried on deadlock.
   */
  transact<T>(fn: (tx: StoreTx) => Promise<T>, opts: WriteOptions = {}): Promise<T> {
    return this.transactWith(StoreTx, fn, opts);
  }

  /** `transact` with a subclass of StoreTx (e.g. the controllers' read-your-writes one). */
  async transactWith<X extends StoreTx, T>(
    Tx: new (sql: SqlClient, dryRun: boolean, actor?: string) => X,
    fn: (tx: X) => Promise<T>,
    opts: WriteOptions = {},
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        let written: X | undefined;
        const result = await inTransaction(this.pool, async (sql) => {
          const stx = new Tx(sql, !!opts.dryRun, opts.actor);
          const result = await fn(stx);
          await stx.flush();
          written = stx;
          return result;
        });
        // Committed: wake this process's feed now and the others' by a NOTIFY (never inside the transaction; commit-notifier.ts says why).
        const top = written && !written.dryRun ? lastVersion(written) : undefined;
        if (top !== undefined) {
          if (top > this.committed) this.committed = top;
          this.feed.ownCommit();
          this.notifier.committed(top);
        }
        return result;
      } catch (e) {
        if (attempt < 5 && isRetryable(e)) continue;
        throw e;
      }
    }
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
  async *watch(opts: WatchOptions = {}): AsyncGenerator<ChangeEvent> {
    await this.feed.start();
    const kinds = opts.kinds && opts.kinds.length > 0 ? new Set(opts.kinds) : undefined;
    let cursor: bigint;
    const rv = opts.resourceVersion;
    if (!rv || rv === '0') {
      cursor = await headOf(this.sql);
    } else {
      if (!/^\d+$/.test(rv)) throw new StowageError('BadRequest', `invalid resource version "${rv}"`);
      cursor = BigInt(rv);
      const compacted = await compactedRv(this.sql);
      if (cursor < compacted) throw expired(cursor, compacted);
    }
    let wake: (() => void) | undefined;
    let pending = true;
    const unsubscribe = this.feed.onWake(() => {
      pending = true;
      wake?.();
    });
    const onAbort = () => wake?.();
    opts.signal?.addEventListener('abort', onAbort);
    try {
      while (!opts.signal?.aborted && !this.feed.isStopped) {
        if (!pending) {
          await new Promise<void>((resolve) => {
            wake = resolve;
            if (pending || opts.signal?.aborted) resolve();
          });
          wake = undefined;
          continue;
        }
        pending = false;
        for (;;) {
          const events = await this.feed.eventsAfter(cursor);
          if (events.length === 0) break;
          for (const e of events) {
            cursor = e.rv;
            if (kinds && !kinds.has(e.kind)) continue;
            if (opts.namespace && e.namespace !== opts.namespace) continue;
            if (opts.filter && !opts.filter(e)) continue;
            yield e;
            if (opts.signal?.aborted) return;
          }
        }
      }
    } finally {
      unsubscribe();
      opts.signal?.removeEventListener('abort', onAbort);
    }
  }

  /**
   * Drops change-log entries older than `olderThanMs`, always keeping the newest `keep`
   * entries, and never past the settled prefix. A watch from a dropped version then fails
   * as Expired. Each key's newest entry at the cut stays (unless it is a deletion), so a
   * list can still be served as of any version at or above the cut (list.ts).
   */
  async compact(olderThanMs: number, keep = 1000): Promise<bigint> {
    const { settled } = await settle(this.sql);
    return inTransaction(this.pool, async (tx) => {
      const rows = await tx.$queryRawUnsafe<{ cutoff: bigint | null }[]>(
        `SELECT max(rv) AS cutoff FROM change_log
          WHERE created_at < now() - ($1::double precision * interval '1 millisecond') AND rv <= $3
            AND rv <= COALESCE((SELECT rv FROM change_log ORDER BY rv DESC OFFSET $2 LIMIT 1), 0)`,
        olderThanMs,
        keep,
        settled,
      );
      const cutoff = rows[0]?.cutoff;
      if (cutoff === null || cutoff === undefined) return compactedRv(tx);
      await tx.$executeRawUnsafe(
        `DELETE FROM change_log c WHERE c.rv <= $1
           AND (c.type IN ('DELETED', '${GAP}') OR EXISTS (
             SELECT 1 FROM change_log d WHERE d.kind = c.kind AND d.namespace = c.namespace AND d.name = c.name AND d.rv > c.rv AND d.rv <= $1))`,
        cutoff,
      );
      await tx.$executeRawUnsafe('UPDATE store_meta SET compacted_rv = GREATEST(compacted_rv, $1) WHERE id = 1', cutoff);
      return BigInt(cutoff);
    });
  }
}

// A transaction over the store (ObjectStore.transact): reads lock the rows they read;
// creates, updates and deletes are checked at once and queued, and flush.ts applies them
// together at commit with their change-log rows. What each write does to the object is in
// write-rules.ts (create, update) and deletion.ts; this file reads what they need.
import { alreadyExists, invalid, notFound } from '../domain/errors';
import { unstorable } from '../domain/untrusted';
import { SYSTEM_ACTOR } from '../domain/actor';
import { terminatingCreateRefusal } from '../domain/namespace-lifecycle';
import type { ObjectOfName } from '../resources/kinds';
import { inKubeOrder } from '../resources/key-order';
import { checkShape } from '../resources/shape-check';
import type { KubeObject, Strategy } from '../resources/types';
import { currentActor } from './actor-context';
import { planDelete } from './deletion';
import { flushWrites } from './flush';
import { nsOf, rowKey, strategyOf } from './kind-scope';
import type { PendingWrite } from './pending-write';
import type { SqlClient } from './pg';
import { SQL, type Queryable } from './sql-handle';
import type { DeleteOptions, DeleteResult, UpdateOptions, Written } from './write-options';
import { fillGeneratedName, prepareCreate, prepareUpdate } from './write-rules';

/** A transaction over the store: reads lock rows; writes are applied together at commit. */
export class StoreTx implements Queryable {
  private readonly queue: PendingWrite[] = [];
  /**
   * Rows this transaction has read (and so locked), as committed: a second read of one (an
   * update after the caller's own get) is answered from here. The row cannot change under
   * the lock, and this transaction's own writes reach it only at commit (flush), so the
   * answer is what the database would give.
   */
  private readonly lockedRows = new Map<string, KubeObject>();
  constructor(
    tx: SqlClient,
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
    const key = rowKey(s.kind, nsOf(s, namespace), name);
    // Handed out as copies: a caller may change what it gets.
    const known = this.lockedRows.get(key);
    if (known) return structuredClone(known) as ObjectOfName<K>;
    const rows = await this[SQL].$queryRawUnsafe<{ id: string; object: ObjectOfName<K> }[]>(
      'SELECT id, object FROM objects WHERE kind = $1 AND namespace = $2 AND name = $3 FOR UPDATE',
      s.kind,
      nsOf(s, namespace),
      name,
    );
    const row = rows[0]?.object;
    if (row) this.lockedRows.set(key, structuredClone(row));
    return row;
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
    fillGeneratedName(meta);
    if (s.namespaced) {
      if (meta.namespace) await this.requireNamespace(meta.namespace, s, meta.name ?? '');
    } else {
      delete meta.namespace;
    }
    prepareCreate(s, obj);
    if (this.dryRun) {
      // A name this transaction deleted is free again for it (flush.ts deletes before it inserts).
      const existing = await this.get(s.kind, meta.namespace, meta.name!);
      if (existing && !this.deletedHere(existing.metadata.uid)) throw alreadyExists(s.kind, meta.name!, s.plural, s.group);
    }
    return this.push({ type: 'ADDED', strategy: s, object: obj, id: meta.uid!, action: 'create' });
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
    const change = prepareUpdate(s, next, prev, opts);
    if (!change) return prev;
    return this.push({ ...change, strategy: s, id: prev.metadata.uid!, action: opts.subresource === 'status' ? 'status' : 'update' });
  }

  async delete<K extends string>(kind: K, namespace: string | undefined, name: string, opts?: DeleteOptions): Promise<DeleteResult<ObjectOfName<K>>>;
  async delete(kind: string, namespace: string | undefined, name: string, opts: DeleteOptions = {}): Promise<DeleteResult> {
    const s = strategyOf(kind);
    const prev = await this.get(s.kind, namespace, name);
    if (!prev) throw notFound(s.kind, name, s.plural, s.group);
    const plan = planDelete(s, name, prev, opts);
    if ('unchanged' in plan) return { object: plan.unchanged, deleted: false };
    const object = this.push({ type: plan.type, strategy: s, object: plan.object, id: prev.metadata.uid!, action: 'delete' });
    return { object, deleted: plan.type === 'DELETED' };
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

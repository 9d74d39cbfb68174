// A store transaction for controllers, with two additions to StoreTx:
//
// - read-your-writes: `get` returns the object as this transaction's queued writes left
//   it, so a spec update followed by a status update of the same object composes (StoreTx
//   reads the row as committed, and the second write would undo the first);
// - rows this transaction already locked are not read again (`remember` adds rows locked
//   by other queries, e.g. SELECT ... FOR UPDATE SKIP LOCKED);
// - `get` never waits for a row lock another transaction holds: it throws RowBusyError
//   and the controller retries shortly, so controllers cannot deadlock each other.
//
// Everything else (validation, resourceVersion guards, one commit with the change log) is
// StoreTx's. Read-your-writes could move into StoreTx itself, making this file smaller.
import type { ObjectOfName } from '../../resources/kinds';
import { strategyForKind } from '../../resources/registry';
import type { KubeObject } from '../../resources/types';
import { StoreTx, type ObjectStore, type UpdateOptions } from '../../store/object-store';

function keyOf(kind: string, namespace: string | undefined, name: string): string {
  const namespaced = strategyForKind(kind)?.namespaced ?? false;
  return `${kind}/${namespaced ? (namespace ?? '') : ''}/${name}`;
}

/** A row another transaction holds: controllers never wait for row locks; they retry. */
export class RowBusyError extends Error {
  constructor(readonly what: string) {
    super(`${what} is being changed by another transaction; trying again shortly`);
    this.name = 'RowBusyError';
  }
}

export function isRowBusy(e: unknown): e is RowBusyError {
  return e instanceof RowBusyError;
}

export class ControllerTx extends StoreTx {
  private readonly locked = new Map<string, KubeObject>();

  /**
   * The object as this transaction sees it, its row locked. Never waits: a row another
   * transaction holds throws RowBusyError (so concurrent controllers cannot deadlock).
   */
  override async get<K extends string>(kind: K, namespace: string | undefined, name: string): Promise<ObjectOfName<K> | undefined> {
    const key = keyOf(kind, namespace, name);
    // Every object kept under `key` is of `kind`: the store wrote or read it as that kind.
    const ofKind = (o: KubeObject) => structuredClone(o) as ObjectOfName<K>;
    const pending = this.pending(key);
    if (pending) return pending.type === 'DELETED' ? undefined : ofKind(pending.object);
    const known = this.locked.get(key);
    if (known) return ofKind(known);
    const s = strategyForKind(kind);
    const ns = s?.namespaced ? (namespace ?? '') : '';
    const row = await this.lockWithoutWaiting(s?.kind ?? kind, ns, name);
    if (row === 'busy') throw new RowBusyError(`${kind} ${ns ? `${ns}/` : ''}${name}`);
    if (!row) return undefined;
    this.locked.set(key, row);
    return ofKind(row);
  }

  /** Whether this transaction has queued a write of the object. */
  hasPending(kind: string, namespace: string | undefined, name: string): boolean {
    return this.pending(keyOf(kind, namespace, name)) !== undefined;
  }

  private pending(key: string) {
    for (let i = this.writes.length - 1; i >= 0; i--) {
      const w = this.writes[i];
      if (keyOf(w.strategy.kind, w.object.metadata.namespace, w.object.metadata.name ?? '') === key) return w;
    }
    return undefined;
  }

  /** Names of the volumes this transaction has queued writes for. */
  volumesWritten(): string[] {
    return this.writes.filter((w) => w.strategy.kind === 'PersistentVolume').map((w) => w.object.metadata.name!);
  }

  /** Forgets the writes queued after `count` (undoes one part of a batched transaction). */
  truncate(count: number): void {
    this.writes.length = Math.min(this.writes.length, count);
  }


  /** Records an object whose row this transaction holds locked (read FOR UPDATE). */
  remember(obj: KubeObject): void {
    this.locked.set(keyOf(obj.kind, obj.metadata.namespace, obj.metadata.name ?? ''), obj);
  }

  /**
   * Writes spec/metadata and status of one object: one update of the main resource, then
   * one of the status subresource, each only when something changed. Returns the result.
   */
  async updateAll<T extends KubeObject>(obj: T): Promise<T> {
    const main = await this.update(obj);
    const status = structuredClone(obj);
    status.metadata = { ...status.metadata, resourceVersion: obj.metadata.resourceVersion };
    const written = await this.update(status, { subresource: 'status' } satisfies UpdateOptions);
    return written === undefined ? main : written;
  }
}

/** Runs `fn` in one transaction on the store's pool, as ObjectStore.transact does. */
export function transact<T>(store: ObjectStore, fn: (tx: ControllerTx) => Promise<T>): Promise<T> {
  return store.transactWith(ControllerTx, fn);
}

/** The resourceVersions a committed transaction's writes got (for ReconcileContext.wrote). */
export function writtenVersions(tx: StoreTx): string[] {
  return tx.writes.map((w) => w.object.metadata.resourceVersion ?? '').filter(Boolean);
}

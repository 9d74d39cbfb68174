// How the store's named queries reach Postgres: the ObjectStore (its pool) and each of its
// transactions (that transaction's connection) carry their SQL client under a key only the
// store's own modules use. Everything outside the store passes the store, or a transaction
// it was handed, to a named query; it never holds a connection or writes SQL itself.
import type pg from 'pg';
import type { SqlClient } from './pg';
import type { AssetSignals } from './asset-signals';

export const SQL: unique symbol = Symbol('store sql');
export const POOL: unique symbol = Symbol('store pool');
export const SIGNALS: unique symbol = Symbol('store asset signals');

/** The store or one of its transactions: what a named query runs on. */
export interface Queryable {
  readonly [SQL]: SqlClient;
}

/** The store itself (not a transaction): for queries that open their own snapshot. */
export interface Pooled extends Queryable {
  readonly [POOL]: pg.Pool;
}

export const sqlOf = (q: Queryable): SqlClient => q[SQL];
/** The store's wake-up for intent-record changes; undefined for a transaction (it has not committed yet). */
export const signalsOf = (q: Queryable): AssetSignals | undefined => (q as { [SIGNALS]?: AssetSignals })[SIGNALS];
export const poolOf = (q: Pooled): pg.Pool => q[POOL];

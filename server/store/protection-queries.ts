// The protection controllers' resync queries: volumes and claims that lack their in-use
// protection finalizer, or are being deleted (what pv-protection and pvc-protection act on).
//
// Nearly every object has its finalizer, so the answer is a handful of rows out of the
// whole kind; read from the JSON, it would parse every object of the kind on each resync
// (350 ms a minute with 100,000 volumes). Each query has a partial index whose predicate
// is the query's own condition (migration 20261125100000_protection_indexes): the index
// holds only the rows the query returns. Postgres uses a partial index only for a query
// whose condition it can prove implies the index's, so the kind and the finalizer are
// written into the SQL as the literals the index was made with, not passed as parameters.
import { protectionFinalizerOf } from '../resources/protection';
import type { ObjectKey } from './consumer-queries';
import { sqlOf, type Queryable } from './sql-handle';

/** The condition: of `kind`, and being deleted or without the kind's protection finalizer (constants of ours). */
export function unprotectedCondition(kind: keyof typeof protectionFinalizerOf): string {
  const literal = (s: string) => `'${s.replaceAll("'", "''")}'`;
  return `kind = ${literal(kind)}
       AND (deletion_timestamp IS NOT NULL OR NOT COALESCE((object->'metadata'->'finalizers')::jsonb @> ${literal(JSON.stringify([protectionFinalizerOf[kind]]))}::jsonb, false))`;
}

/** Volumes that lack kubernetes.io/pv-protection, or are being deleted. */
export function volumesToProtect(db: Queryable): Promise<ObjectKey[]> {
  return sqlOf(db).$queryRawUnsafe<ObjectKey[]>(
    `SELECT namespace, name FROM objects WHERE ${unprotectedCondition('PersistentVolume')}`,
  );
}

/** Claims that lack kubernetes.io/pvc-protection, or are being deleted. */
export function claimsToProtect(db: Queryable): Promise<ObjectKey[]> {
  return sqlOf(db).$queryRawUnsafe<ObjectKey[]>(
    `SELECT namespace, name FROM objects WHERE ${unprotectedCondition('PersistentVolumeClaim')}`,
  );
}

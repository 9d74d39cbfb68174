// The garbage collector's start-up pass: the objects that name owners, and the objects
// waiting for their dependents to be orphaned. One scan of the table when the collector
// starts leading (and after its watch fell behind compaction); every change after that
// comes from the change feed.
import { sqlOf, type Queryable } from './sql-handle';

export interface OwnedObject {
  kind: string;
  namespace: string;
  name: string;
  /** The uids its ownerReferences name. */
  owners: string[];
}

/** Every object with at least one ownerReference, with the uids it names. */
export function ownedObjects(db: Queryable): Promise<OwnedObject[]> {
  return sqlOf(db).$queryRawUnsafe<OwnedObject[]>(
    `SELECT kind, namespace, name,
            ARRAY(SELECT COALESCE(r->>'uid', '') FROM json_array_elements(object->'metadata'->'ownerReferences') r) AS owners
       FROM objects
      WHERE json_typeof(object->'metadata'->'ownerReferences') = 'array'
        AND json_array_length(object->'metadata'->'ownerReferences') > 0`,
  );
}

/** Objects being deleted that hold `finalizer` (the orphan finalizer: their dependents are to be let go). */
export function deletingWithFinalizer(db: Queryable, finalizer: string): Promise<{ kind: string; namespace: string; name: string }[]> {
  return sqlOf(db).$queryRawUnsafe(
    `SELECT kind, namespace, name FROM objects
      WHERE deletion_timestamp IS NOT NULL AND COALESCE((object->'metadata'->'finalizers')::jsonb @> $1::jsonb, false)`,
    JSON.stringify([finalizer]),
  );
}

// Queries of the controllers that look after claims' consumers (pvc-protection,
// placement) over the `objects` table's columns and JSON.
import type { SqlRunner } from './volume-queries';

export interface ObjectKey {
  namespace: string;
  name: string;
}

/** Claims that lack `finalizer`, or are being deleted. */
export function claimsToProtect(db: SqlRunner, finalizer: string): Promise<ObjectKey[]> {
  return db.$queryRawUnsafe<ObjectKey[]>(
    `SELECT namespace, name FROM objects WHERE kind = 'PersistentVolumeClaim'
       AND (deletion_timestamp IS NOT NULL OR NOT COALESCE((object->'metadata'->'finalizers')::jsonb @> $1::jsonb, false))`,
    JSON.stringify([finalizer]),
  );
}

/** Pods not yet on a node and not being deleted (the placement controller's work). */
export function podsToPlace(db: SqlRunner, limit = 10_000): Promise<ObjectKey[]> {
  return db.$queryRawUnsafe<ObjectKey[]>(
    `SELECT namespace, name FROM objects WHERE kind = 'Pod' AND node_name IS NULL AND deletion_timestamp IS NULL
       ORDER BY resource_version LIMIT $1`,
    limit,
  );
}

// Queries of the controllers that look after claims' consumers (pvc-protection,
// placement) over the `objects` table's columns and JSON.
import type { PersistentVolume } from '../resources/persistent-volume/schema';
import type { Pod } from '../resources/pod/schema';
import { sqlOf, type Queryable } from './sql-handle';

export interface ObjectKey {
  namespace: string;
  name: string;
}

/** Pods not yet on a node and not being deleted (the placement controller's work). */
export function podsToPlace(db: Queryable, limit = 10_000): Promise<ObjectKey[]> {
  return sqlOf(db).$queryRawUnsafe<ObjectKey[]>(
    `SELECT namespace, name FROM objects WHERE kind = 'Pod' AND node_name IS NULL AND deletion_timestamp IS NULL
       ORDER BY resource_version LIMIT $1`,
    limit,
  );
}

/** Available volumes of the given classes (what unbound WaitForFirstConsumer claims may bind to). */
export async function availableVolumesOfClasses(db: Queryable, classes: string[], limit = 5_000): Promise<PersistentVolume[]> {
  if (classes.length === 0) return [];
  const rows = await sqlOf(db).$queryRawUnsafe<{ object: PersistentVolume }[]>(
    `SELECT object FROM objects WHERE kind = 'PersistentVolume' AND phase = 'Available' AND deletion_timestamp IS NULL
       AND COALESCE(storage_class, '') = ANY($1::text[]) ORDER BY capacity_bytes, name LIMIT $2`,
    classes,
    limit,
  );
  return rows.map((r) => r.object);
}

/**
 * The pods of `namespace` whose volumes name claim `claimName` (a superset test in SQL, so
 * a namespace of many pods is not read whole for one claim); `unscheduled` keeps only
 * pods not yet on a node. Callers apply the exact rule (domain/pod-claims.ts) to the rows.
 */
export async function podsNamingClaim(db: Queryable, namespace: string, claimName: string, o: { unscheduled?: boolean } = {}): Promise<Pod[]> {
  const rows = await sqlOf(db).$queryRawUnsafe<{ object: Pod }[]>(
    `SELECT object FROM objects WHERE kind = 'Pod' AND namespace = $1${o.unscheduled ? ' AND node_name IS NULL' : ''}
       AND (object->'spec'->'volumes')::jsonb @> $2::jsonb ORDER BY name`,
    namespace,
    JSON.stringify([{ persistentVolumeClaim: { claimName } }]),
  );
  return rows.map((r) => r.object);
}

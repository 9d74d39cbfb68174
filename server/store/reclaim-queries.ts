// The reclaim center's queries over the `objects` table's columns.
import type { KubeObject } from '../resources/types';
import type { SqlRunner } from './volume-queries';

/** Volumes pinned to one node (the node_name column) that is not among `nodes`. */
export async function volumesPinnedOutside(db: SqlRunner, nodes: string[], limit = 500): Promise<KubeObject[]> {
  const rows = await db.$queryRawUnsafe<{ object: KubeObject }[]>(
    `SELECT object FROM objects WHERE kind = 'PersistentVolume' AND node_name IS NOT NULL
       AND NOT (node_name = ANY($1::text[])) ORDER BY name LIMIT $2`,
    nodes,
    limit,
  );
  return rows.map((r) => r.object);
}

/** Claims created before `before`, oldest first (candidates for "unused for N days"). */
export async function claimsCreatedBefore(db: SqlRunner, before: Date, limit = 2_000): Promise<KubeObject[]> {
  const rows = await db.$queryRawUnsafe<{ object: KubeObject }[]>(
    `SELECT object FROM objects WHERE kind = 'PersistentVolumeClaim'
       AND (object->'metadata'->>'creationTimestamp')::timestamptz < $1::timestamptz
       ORDER BY (object->'metadata'->>'creationTimestamp')::timestamptz, namespace, name LIMIT $2`,
    before.toISOString(),
    limit,
  );
  return rows.map((r) => r.object);
}

/** Pods in `namespace` whose volumes name claim `claim`. */
export async function podsNamingClaim(db: SqlRunner, namespace: string, claim: string): Promise<KubeObject[]> {
  const rows = await db.$queryRawUnsafe<{ object: KubeObject }[]>(
    `SELECT object FROM objects WHERE kind = 'Pod' AND namespace = $1
       AND (object->'spec'->'volumes')::jsonb @> $2::jsonb`,
    namespace,
    JSON.stringify([{ persistentVolumeClaim: { claimName: claim } }]),
  );
  return rows.map((r) => r.object);
}

/** Pods whose volumes name any claim. */
export async function podsWithClaims(db: SqlRunner, limit = 50_000): Promise<KubeObject[]> {
  const rows = await db.$queryRawUnsafe<{ object: KubeObject }[]>(
    `SELECT object FROM objects WHERE kind = 'Pod'
       AND jsonb_path_exists((object->'spec'->'volumes')::jsonb, '$[*].persistentVolumeClaim.claimName')
       ORDER BY namespace, name LIMIT $1`,
    limit,
  );
  return rows.map((r) => r.object);
}

// The reclaim center's queries over the `objects` table's columns.
import type { PersistentVolume } from '../resources/persistent-volume/schema';
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';
import type { Pod } from '../resources/pod/schema';
import { sqlOf, type Queryable } from './sql-handle';

/** Volumes pinned to one node (the node_name column) that is not among `nodes`. */
export async function volumesPinnedOutside(db: Queryable, nodes: string[], limit = 500): Promise<PersistentVolume[]> {
  const rows = await sqlOf(db).$queryRawUnsafe<{ object: PersistentVolume }[]>(
    `SELECT object FROM objects WHERE kind = 'PersistentVolume' AND node_name IS NOT NULL
       AND NOT (node_name = ANY($1::text[])) ORDER BY name LIMIT $2`,
    nodes,
    limit,
  );
  return rows.map((r) => r.object);
}

/** Claims created before `before`, oldest first (candidates for "unused for N days"). */
export async function claimsCreatedBefore(db: Queryable, before: Date, limit = 2_000): Promise<PersistentVolumeClaim[]> {
  const rows = await sqlOf(db).$queryRawUnsafe<{ object: PersistentVolumeClaim }[]>(
    `SELECT object FROM objects WHERE kind = 'PersistentVolumeClaim'
       AND (object->'metadata'->>'creationTimestamp')::timestamptz < $1::timestamptz
       ORDER BY (object->'metadata'->>'creationTimestamp')::timestamptz, namespace, name LIMIT $2`,
    before.toISOString(),
    limit,
  );
  return rows.map((r) => r.object);
}

/** Pods in `namespace` whose volumes name claim `claim`. */
export async function podsNamingClaim(db: Queryable, namespace: string, claim: string): Promise<Pod[]> {
  const rows = await sqlOf(db).$queryRawUnsafe<{ object: Pod }[]>(
    `SELECT object FROM objects WHERE kind = 'Pod' AND namespace = $1
       AND (object->'spec'->'volumes')::jsonb @> $2::jsonb`,
    namespace,
    JSON.stringify([{ persistentVolumeClaim: { claimName: claim } }]),
  );
  return rows.map((r) => r.object);
}

/** Pods whose volumes name any claim. */
export async function podsWithClaims(db: Queryable, limit = 50_000): Promise<Pod[]> {
  const rows = await sqlOf(db).$queryRawUnsafe<{ object: Pod }[]>(
    `SELECT object FROM objects WHERE kind = 'Pod'
       AND jsonb_path_exists((object->'spec'->'volumes')::jsonb, '$[*].persistentVolumeClaim.claimName')
       ORDER BY namespace, name LIMIT $1`,
    limit,
  );
  return rows.map((r) => r.object);
}

export interface PodUseFromHistory {
  /** namespace/claim → the newest history row (ISO time) of a pod that named it. */
  last: Map<string, string>;
  /**
   * Whether every pod row since `since` was searched. When the bound was reached, only rows
   * from `searchedFrom` on were: an older use may exist that this search did not see.
   */
  complete: boolean;
  searchedFrom: string | null;
}

/**
 * The newest time, per candidate claim, that a Pod history row (a pod's creation, update or
 * deletion, recorded by flush.ts with every committed change) named the claim in
 * spec.volumes[].persistentVolumeClaim.claimName in the claim's namespace, since `since`.
 * One query for every candidate: the Pod rows of the candidates' namespaces in the window,
 * newest first and at most `maxRows` of them, their claim names unnested and grouped.
 */
export async function podUseFromHistory(
  db: Queryable,
  claims: { namespace: string; name: string }[],
  since: Date,
  maxRows = 200_000,
): Promise<PodUseFromHistory> {
  if (claims.length === 0) return { last: new Map(), complete: true, searchedFrom: null };
  const rows = await sqlOf(db).$queryRawUnsafe<{ scanned: string | number; oldest: string | null; used: { namespace: string; name: string; last: string }[] | null }[]>(
    `WITH c AS (SELECT DISTINCT * FROM unnest($1::text[], $2::text[]) AS c(namespace, name)),
     h AS MATERIALIZED (
       SELECT namespace, created_at, object->'spec'->'volumes' AS volumes FROM history
        WHERE kind = 'Pod' AND created_at >= $3::timestamptz AND namespace = ANY($1::text[])
        ORDER BY created_at DESC LIMIT $4),
     used AS (
       SELECT h.namespace, v->'persistentVolumeClaim'->>'claimName' AS name, max(h.created_at) AS last
         FROM h CROSS JOIN LATERAL json_array_elements(CASE WHEN json_typeof(h.volumes) = 'array' THEN h.volumes ELSE '[]'::json END) AS v
        GROUP BY 1, 2)
     SELECT (SELECT count(*) FROM h) AS scanned,
            (SELECT to_char(min(created_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') FROM h) AS oldest,
            (SELECT json_agg(json_build_object('namespace', used.namespace, 'name', used.name,
                    'last', to_char(used.last AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))
               FROM used JOIN c ON c.namespace = used.namespace AND c.name = used.name) AS used`,
    claims.map((c) => c.namespace),
    claims.map((c) => c.name),
    since.toISOString(),
    maxRows,
  );
  const r = rows[0];
  const last = new Map<string, string>();
  for (const u of r?.used ?? []) last.set(`${u.namespace}/${u.name}`, u.last);
  const complete = Number(r?.scanned ?? 0) < maxRows;
  return { last, complete, searchedFrom: complete ? since.toISOString() : (r?.oldest ?? null) };
}

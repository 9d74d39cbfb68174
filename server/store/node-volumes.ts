// The volumes a node holds a copy of, one page at a time: pinned to it (local and pooled
// volumes: the node_name column), or replicated with its active copy or a replica there (the
// PV's replication annotations). Sorted by name; bounded by the caller's limit.
import { ACTIVE_NODE_SQL, REPLICAS_SQL, REPLICATION_ANNOTATION_COLUMNS, replicationAnnotationsOf, type ReplicationAnnotationColumns } from './replication-annotations';
import { poolOf, type Pooled } from './sql-handle';

export const MAX_NODE_VOLUMES_PAGE = 200;

const ACTIVE = ACTIVE_NODE_SQL;
const NAMED_IN_REPLICAS = `strpos(${REPLICAS_SQL}, $2) > 0`;
/** $1: the node's name; $2: its quoted name as the replicas JSON holds it. */
const COPIES_ON_NODE = `kind = 'PersistentVolume' AND namespace = '' AND (node_name = $1 OR ${ACTIVE} = $1 OR ${NAMED_IN_REPLICAS})`;
const REPLICAS_ON_NODE = `kind = 'PersistentVolume' AND namespace = '' AND ${ACTIVE} IS DISTINCT FROM $1 AND ${NAMED_IN_REPLICAS}`;

export interface NodeVolumeRow {
  name: string;
  phase: string | null;
  storageClass: string | null;
  capacityBytes: string | null;
  claimNamespace: string | null;
  claimName: string | null;
  /** node_name: the one node the volume is pinned to, if any. */
  pinnedNode: string | null;
  annotations: Record<string, string>;
}

/** One page of the volumes with a copy on `node` (only its replicas: `replicasOnly`), and how many there are in all. */
export async function volumesOnNode(store: Pooled, node: string, o: { offset: number; limit: number; replicasOnly?: boolean }): Promise<{ total: number; rows: NodeVolumeRow[] }> {
  const where = o.replicasOnly ? REPLICAS_ON_NODE : COPIES_ON_NODE;
  const limit = Math.max(1, Math.min(MAX_NODE_VOLUMES_PAGE, Math.floor(o.limit)));
  const offset = Math.max(0, Math.floor(o.offset));
  // The replicas annotation is JSON written by the controller ({"node":"n1",...}); a plain
  // substring match on the node's quoted name, never a cast (a hand-written, broken value
  // must not fail the query). The caller reads the annotation properly.
  const { rows } = await poolOf(store).query<
    ReplicationAnnotationColumns & {
      name: string;
      phase: string | null;
      storage_class: string | null;
      capacity_bytes: string | null;
      claim_namespace: string | null;
      claim_name: string | null;
      node_name: string | null;
      total: string;
    }
  >(
    `SELECT name, phase, storage_class, capacity_bytes::text AS capacity_bytes, claim_namespace, claim_name, node_name,
            ${REPLICATION_ANNOTATION_COLUMNS},
            count(*) OVER ()::text AS total
       FROM objects
      WHERE ${where}
      ORDER BY name COLLATE "C"
      LIMIT $3 OFFSET $4`,
    [node, `"node":${JSON.stringify(node)}`, limit, offset],
  );
  const total = rows.length > 0 ? Number(rows[0].total) : offset > 0 ? await countOnNode(store, node, where) : 0;
  return {
    total,
    rows: rows.map((r) => ({
      name: r.name,
      phase: r.phase,
      storageClass: r.storage_class,
      capacityBytes: r.capacity_bytes,
      claimNamespace: r.claim_namespace,
      claimName: r.claim_name,
      pinnedNode: r.node_name,
      annotations: replicationAnnotationsOf(r),
    })),
  };
}

/** How many volumes have a copy on `node` (a page past the end still says how many there are). */
async function countOnNode(store: Pooled, node: string, where: string): Promise<number> {
  const { rows } = await poolOf(store).query<{ n: string }>(
    `SELECT count(*)::text AS n FROM objects WHERE ${where}`,
    [node, `"node":${JSON.stringify(node)}`],
  );
  return Number(rows[0]?.n ?? 0);
}

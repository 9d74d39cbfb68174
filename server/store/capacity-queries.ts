// The Capacity page's aggregations: sums over the `objects` table's indexed columns (per
// node, per namespace) and the trend of provisioned, bound and requested bytes per class
// from the `history` table, aggregated by time bucket in SQL. No query loads objects.
import { annBetaStorageClass } from '../domain/well-known/annotations';
import { poolOf, type Pooled } from './sql-handle';

export interface NodeCapacityRow {
  nodeName: string;
  phase: string | null;
  count: number;
  bytes: string;
}

/** Volumes pinned to one node (local volumes: the node_name column), per node and phase. */
export async function volumesByNode(store: Pooled): Promise<NodeCapacityRow[]> {
  const { rows } = await poolOf(store).query<{ node_name: string; phase: string | null; n: string; bytes: string }>(
    `SELECT node_name, phase, count(*)::text AS n, COALESCE(sum(capacity_bytes), 0)::text AS bytes
       FROM objects WHERE kind = 'PersistentVolume' AND node_name IS NOT NULL
      GROUP BY node_name, phase`,
  );
  return rows.map((r) => ({ nodeName: r.node_name, phase: r.phase, count: Number(r.n), bytes: r.bytes }));
}

export interface NamespaceClaimRow {
  namespace: string;
  phase: string | null;
  count: number;
  requestedBytes: string;
}

/** Claims per namespace and phase with the bytes they request; `namespaces` limits them. */
export async function claimsByNamespace(store: Pooled, namespaces?: string[]): Promise<NamespaceClaimRow[]> {
  const params: unknown[] = [];
  let where = `kind = 'PersistentVolumeClaim'`;
  if (namespaces) {
    params.push(namespaces);
    where += ' AND namespace = ANY($1::text[])';
  }
  const { rows } = await poolOf(store).query<{ namespace: string; phase: string | null; n: string; bytes: string }>(
    `SELECT namespace, phase, count(*)::text AS n, COALESCE(sum(capacity_bytes), 0)::text AS bytes
       FROM objects WHERE ${where} GROUP BY namespace, phase`,
    params,
  );
  return rows.map((r) => ({ namespace: r.namespace, phase: r.phase, count: Number(r.n), requestedBytes: r.bytes }));
}

/** Bound volumes per namespace of the claim they are bound to, with their capacity. */
export async function boundVolumesByNamespace(store: Pooled, namespaces?: string[]): Promise<{ namespace: string; count: number; bytes: string }[]> {
  const params: unknown[] = [];
  let where = `kind = 'PersistentVolume' AND phase = 'Bound' AND claim_namespace IS NOT NULL`;
  if (namespaces) {
    params.push(namespaces);
    where += ' AND claim_namespace = ANY($1::text[])';
  }
  const { rows } = await poolOf(store).query<{ ns: string; n: string; bytes: string }>(
    `SELECT claim_namespace AS ns, count(*)::text AS n, COALESCE(sum(capacity_bytes), 0)::text AS bytes
       FROM objects WHERE ${where} GROUP BY claim_namespace`,
    params,
  );
  return rows.map((r) => ({ namespace: r.ns, count: Number(r.n), bytes: r.bytes }));
}

/** Current bytes per kind, class and "bound or not" (the end point the trend counts back from). */
export async function currentBytesByClass(store: Pooled, kinds: string[], namespaces?: string[]): Promise<{ kind: string; storageClass: string; bound: boolean; bytes: string }[]> {
  const params: unknown[] = [kinds];
  let where = 'kind = ANY($1::text[])';
  if (namespaces) {
    params.push(namespaces);
    where += ` AND (kind = 'PersistentVolume' OR namespace = ANY($2::text[]))`;
  }
  const { rows } = await poolOf(store).query<{ kind: string; cls: string; bound: boolean; bytes: string }>(
    `SELECT kind, COALESCE(storage_class, '') AS cls, (phase IS NOT DISTINCT FROM 'Bound') AS bound,
            COALESCE(sum(capacity_bytes), 0)::text AS bytes
       FROM objects WHERE ${where} GROUP BY 1, 2, 3`,
    params,
  );
  return rows.map((r) => ({ kind: r.kind, storageClass: r.cls, bound: r.bound, bytes: r.bytes }));
}

/** The oldest history row of these kinds at or after `since`, or undefined. */
export async function firstHistoryTime(store: Pooled, kinds: string[], since: Date): Promise<Date | undefined> {
  const { rows } = await poolOf(store).query<{ t: Date | null }>(
    `SELECT min(created_at) AS t FROM history WHERE created_at >= $1 AND kind = ANY($2::text[])`,
    [since, kinds],
  );
  return rows[0]?.t ? new Date(rows[0].t) : undefined;
}

export interface BucketDelta {
  kind: string;
  storageClass: string;
  /** Index of the time bucket: [from + i*step, from + (i+1)*step). */
  bucket: number;
  /** Change of the bytes counted (volume capacity, or claim request) within the bucket. */
  total: string;
  /** Change of the bytes of bound objects within the bucket. */
  bound: string;
}

// A Kubernetes quantity (as a volume's capacity or a claim's request is written) in bytes,
// rounded up. Exponent forms ("1e9") are not read (none of the dashboard's forms write them).
const quantityBytes = (q: string) => `(SELECT CASE WHEN m IS NULL THEN 0 ELSE ceil(m[1]::numeric * CASE m[2]
      WHEN '' THEN 1 WHEN 'm' THEN 0.001
      WHEN 'k' THEN 1e3 WHEN 'M' THEN 1e6 WHEN 'G' THEN 1e9 WHEN 'T' THEN 1e12 WHEN 'P' THEN 1e15 WHEN 'E' THEN 1e18
      WHEN 'Ki' THEN 1024::numeric WHEN 'Mi' THEN 1024::numeric ^ 2 WHEN 'Gi' THEN 1024::numeric ^ 3
      WHEN 'Ti' THEN 1024::numeric ^ 4 WHEN 'Pi' THEN 1024::numeric ^ 5 WHEN 'Ei' THEN 1024::numeric ^ 6 END) END
    FROM regexp_match(${q}, '^([0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E|m|)$') AS m)`;

/**
 * A history row's class, bytes and whether it was Bound, from relation `r` with the columns
 * kind, storage_class, capacity_bytes, phase and j. Rows written since the history table has
 * these columns carry them (storage_class is then never NULL: '' for no class); older rows
 * are read from their object, which `j` holds parsed (jsonb, parsed once) only for them.
 */
const versionSummary = (r: string) => `
  COALESCE(${r}.storage_class, ${r}.j->'metadata'->'annotations'->>'${annBetaStorageClass}', ${r}.j->'spec'->>'storageClassName', '') AS cls,
  CASE WHEN ${r}.storage_class IS NOT NULL THEN ${r}.capacity_bytes
       ELSE ${quantityBytes(`CASE ${r}.kind WHEN 'PersistentVolume' THEN ${r}.j->'spec'->'capacity'->>'storage' ELSE ${r}.j->'spec'->'resources'->'requests'->>'storage' END`)} END AS bytes,
  (CASE WHEN ${r}.storage_class IS NOT NULL THEN ${r}.phase ELSE ${r}.j->'status'->>'phase' END) IS NOT DISTINCT FROM 'Bound' AS bound`;

/** The columns versionSummary reads, from a history row `h` (`j` parsed only for rows older than the columns). */
const summaryInputs = (h: string) => `${h}.kind, ${h}.storage_class, ${h}.capacity_bytes, ${h}.phase, CASE WHEN ${h}.storage_class IS NULL THEN ${h}.object::jsonb END AS j`;

/**
 * How the bytes per kind and class changed in each time bucket since `from`: every history
 * row of a volume or claim written after `from` adds what it counts now and takes away what
 * the object's previous row counted. The previous row is the one before it in the window
 * (a window function over the rows read anyway), and only for an object's first row in the
 * window is it looked up before the window (through the (uid, rv) index). Each row's class,
 * bytes and phase are columns of the row (no JSON parsed, except for rows written before
 * the columns existed). Reads only the rows in the window, whatever the table's age; claims
 * are limited to `namespaces` when given.
 */
export async function historyDeltas(store: Pooled, opts: { kinds: string[]; from: Date; stepMs: number; namespaces?: string[] }): Promise<BucketDelta[]> {
  const params: unknown[] = [opts.kinds, opts.from, opts.stepMs / 1000];
  let nsWhere = '';
  if (opts.namespaces) {
    params.push(opts.namespaces);
    nsWhere = ` AND (h.kind = 'PersistentVolume' OR h.namespace = ANY($4::text[]))`;
  }
  const { rows } = await poolOf(store).query<{ kind: string; cls: string; bucket: number; total: string; bound: string }>(
    // r is materialized so the window's sort carries the narrow columns, not every row's object.
    `WITH r AS MATERIALIZED (
       SELECT h.uid, h.rv, h.created_at, h.type, ${summaryInputs('h')}
         FROM history h
        WHERE h.created_at >= $2 AND h.kind = ANY($1::text[])${nsWhere}
     ), s AS (
       SELECT r.uid, r.rv, r.kind, r.created_at, r.type, ${versionSummary('r')} FROM r
     ), l AS (
       SELECT s.*, lag(s.rv) OVER w AS p_rv, lag(s.type) OVER w AS p_type, lag(s.cls) OVER w AS p_cls,
              lag(s.bytes) OVER w AS p_bytes, lag(s.bound) OVER w AS p_bound
         FROM s WINDOW w AS (PARTITION BY s.uid ORDER BY s.rv)
     ), f AS (
       SELECT l.kind, l.created_at, l.type, l.cls, l.bytes, l.bound,
              CASE WHEN l.p_rv IS NULL THEN b.type ELSE l.p_type END AS p_type,
              CASE WHEN l.p_rv IS NULL THEN b.cls ELSE l.p_cls END AS p_cls,
              CASE WHEN l.p_rv IS NULL THEN b.bytes ELSE l.p_bytes END AS p_bytes,
              CASE WHEN l.p_rv IS NULL THEN b.bound ELSE l.p_bound END AS p_bound
         FROM l
         LEFT JOIN LATERAL (
           SELECT q.type, ${versionSummary('q')}
             FROM (SELECT p.type, ${summaryInputs('p')} FROM history p
                    WHERE l.p_rv IS NULL AND p.uid = l.uid AND p.rv < l.rv ORDER BY p.rv DESC LIMIT 1) q
         ) b ON true
     ), c AS (
       SELECT kind, created_at, 1 AS sign, bytes, bound, cls FROM f WHERE type <> 'DELETED'
       UNION ALL
       SELECT kind, created_at, -1 AS sign, p_bytes, p_bound, p_cls FROM f WHERE p_type IS NOT NULL AND p_type <> 'DELETED'
     )
     SELECT c.kind, c.cls, floor(extract(epoch FROM c.created_at - $2::timestamptz) / $3)::int AS bucket,
            COALESCE(sum(c.sign * c.bytes), 0)::text AS total,
            COALESCE(sum(c.sign * c.bytes) FILTER (WHERE c.bound), 0)::text AS bound
       FROM c GROUP BY 1, 2, 3`,
    params,
  );
  return rows.map((r) => ({ kind: r.kind, storageClass: r.cls, bucket: Number(r.bucket), total: r.total, bound: r.bound }));
}

export interface NearlyFullRow {
  volume: string;
  claimNamespace: string;
  claimName: string;
  usedBytes: string;
  capacityBytes: string;
}

/**
 * Bound volumes whose used bytes reach `percent` of their capacity (domain/nearly-full's
 * rule in SQL), fullest first, at most `limit`; `namespaces` limits their claims. One scan
 * of the Bound volumes' rows (their usage is in the documents), no per-volume query.
 */
export async function nearlyFullVolumes(store: Pooled, percent: number, limit: number, namespaces?: string[]): Promise<NearlyFullRow[]> {
  const params: unknown[] = [percent, limit];
  let where = `kind = 'PersistentVolume' AND phase = 'Bound' AND claim_name IS NOT NULL AND capacity_bytes > 0`;
  if (namespaces) {
    params.push(namespaces);
    where += ` AND claim_namespace = ANY($3::text[])`;
  }
  const { rows } = await poolOf(store).query<{ name: string; claim_namespace: string; claim_name: string; used: string; capacity: string }>(
    `SELECT name, claim_namespace, claim_name, used::text AS used, capacity_bytes::text AS capacity
       FROM (SELECT name, claim_namespace, claim_name, capacity_bytes, used_bytes AS used FROM objects WHERE ${where}) v
      WHERE used IS NOT NULL AND used * 100 >= $1::numeric * capacity_bytes
      ORDER BY used / capacity_bytes DESC, claim_namespace, claim_name LIMIT $2`,
    params,
  );
  return rows.map((r) => ({ volume: r.name, claimNamespace: r.claim_namespace, claimName: r.claim_name, usedBytes: r.used, capacityBytes: r.capacity }));
}

/**
 * Names of the volumes that carry a usage measurement (the nearly-full controller's resync;
 * a "nearly full" mark is only ever set on a measured volume, and a volume that loses its
 * measurement is looked at through its own change).
 */
export async function measuredVolumeNames(store: Pooled): Promise<string[]> {
  const { rows } = await poolOf(store).query<{ name: string }>(`SELECT name FROM objects WHERE kind = 'PersistentVolume' AND used_bytes IS NOT NULL`);
  return rows.map((r) => r.name);
}

export interface UsedRow {
  /** Which sum: per class, per node (volumes pinned to one), or per namespace (of the claims bound). */
  by: 'class' | 'node' | 'namespace';
  key: string;
  usedBytes: string;
}

/**
 * The used bytes the volumes carry (stowage.io/used-bytes), summed per class, per node and
 * per namespace of their claims, in one scan of the volumes; keys without a measured volume
 * are absent (their usage is unknown, not zero).
 */
export async function usedBytesSums(store: Pooled): Promise<UsedRow[]> {
  const { rows } = await poolOf(store).query<{ storage_class: string | null; node_name: string | null; claim_namespace: string | null; g: number; used: string }>(
    `SELECT storage_class, node_name, claim_namespace, GROUPING(storage_class, node_name, claim_namespace) AS g, sum(used)::text AS used
       FROM (SELECT COALESCE(storage_class, '') AS storage_class, node_name, CASE WHEN phase = 'Bound' THEN claim_namespace END AS claim_namespace,
                    used_bytes AS used
               FROM objects WHERE kind = 'PersistentVolume' AND used_bytes IS NOT NULL) v
      WHERE used IS NOT NULL
      GROUP BY GROUPING SETS ((storage_class), (node_name), (claim_namespace))`,
  );
  const out: UsedRow[] = [];
  for (const r of rows) {
    // GROUPING's bits: class 4, node 2, namespace 1; a set's own column is 0.
    if (r.g === 3) out.push({ by: 'class', key: r.storage_class ?? '', usedBytes: r.used });
    else if (r.g === 5 && r.node_name !== null) out.push({ by: 'node', key: r.node_name, usedBytes: r.used });
    else if (r.g === 6 && r.claim_namespace !== null) out.push({ by: 'namespace', key: r.claim_namespace, usedBytes: r.used });
  }
  return out;
}

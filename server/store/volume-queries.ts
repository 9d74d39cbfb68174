// The binder's indexed queries over the `objects` table's columns. Each candidate query
// is one range of objects_match_idx (kind, phase, storage_class, volume_mode,
// access_modes, capacity_bytes): equality on the first five, ordered by capacity, with a
// small LIMIT, so its cost does not grow with the number of volumes.
//
// `db` is the store or one of its transactions (a StoreTx, whose locks the query then takes).
import type { PersistentVolume } from '../resources/persistent-volume/schema';
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';
import { sqlOf, type Queryable } from './sql-handle';


export interface CandidateQuery {
  storageClass: string;
  volumeMode: string;
  /** The access-mode set (bits) of this group. */
  accessModes: number;
  /** The request in bytes (a decimal string). */
  minBytes: string;
  /** Label requirements of the claim's selector (all must hold). */
  labels?: LabelRequirement[];
  /** Rows to skip (paging; the caller bounds how far it pages). */
  offset?: number;
  /** Names to leave out (volumes the caller's transaction is already binding). */
  exclude?: string[];
  limit: number;
  /** Lock the rows returned, skipping rows other transactions hold. */
  skipLocked?: boolean;
}

export interface LabelRequirement {
  key: string;
  operator: string;
  values: string[];
}

/** One selector requirement as SQL over the `labels` column (label values are strings). */
function labelCondition(r: LabelRequirement, params: unknown[]): string {
  params.push(r.key);
  const k = `$${params.length}`;
  switch (r.operator) {
    case 'Exists':
      return `(labels ->> ${k}) IS NOT NULL`;
    case 'DoesNotExist':
      return `(labels ->> ${k}) IS NULL`;
    case 'In':
    case '=':
    case '==':
      params.push(r.values);
      return `(labels ->> ${k}) = ANY($${params.length}::text[])`;
    case 'NotIn':
    case '!=':
      params.push(r.values);
      return `((labels ->> ${k}) IS NULL OR NOT ((labels ->> ${k}) = ANY($${params.length}::text[])))`;
    default:
      return 'FALSE';
  }
}

interface ObjectRow {
  object: PersistentVolume;
  bytes: string;
}

/**
 * Available, unclaimed, not-deleting volumes of one class, volume mode and access-mode set
 * with at least `minBytes`, smallest first.
 */
export async function availableVolumes(db: Queryable, q: CandidateQuery): Promise<{ volume: PersistentVolume; bytes: string }[]> {
  const params: unknown[] = [q.storageClass, q.volumeMode, q.accessModes, q.minBytes];
  let where = `kind = 'PersistentVolume' AND phase = 'Available' AND storage_class = $1 AND volume_mode = $2
    AND access_modes = $3 AND capacity_bytes >= $4::numeric
    AND claim_name IS NULL AND provisioning IS NOT TRUE AND deletion_timestamp IS NULL`;
  for (const r of q.labels ?? []) where += ` AND ${labelCondition(r, params)}`;
  if (q.exclude && q.exclude.length > 0) {
    params.push(q.exclude);
    where += ` AND name <> ALL($${params.length}::text[])`;
  }
  params.push(q.limit, q.offset ?? 0);
  // Ordered by capacity only, so the index returns rows in order without sorting equal
  // sizes (a pool of identical disks would otherwise be sorted whole for every claim);
  // equal sizes come in index order.
  const rows = await sqlOf(db).$queryRawUnsafe<ObjectRow[]>(
    `SELECT object, capacity_bytes::text AS bytes FROM objects WHERE ${where}
      ORDER BY objects.capacity_bytes LIMIT $${params.length - 1} OFFSET $${params.length}${q.skipLocked ? ' FOR UPDATE SKIP LOCKED' : ''}`,
    ...params,
  );
  return rows.map((r) => ({ volume: r.object, bytes: String(r.bytes) }));
}

/**
 * How many Available, unclaimed, not-deleting volumes each of `classes` has (a class with
 * none is absent from the map). One indexed count per call.
 */
export async function availableCountsByClass(db: Queryable, classes: string[]): Promise<Map<string, number>> {
  if (classes.length === 0) return new Map();
  const rows = await sqlOf(db).$queryRawUnsafe<{ storage_class: string; n: number }[]>(
    `SELECT storage_class, count(*)::int AS n FROM objects WHERE kind = 'PersistentVolume' AND phase = 'Available'
      AND storage_class = ANY($1::text[]) AND claim_name IS NULL AND provisioning IS NOT TRUE AND deletion_timestamp IS NULL
      GROUP BY storage_class`,
    classes,
  );
  return new Map(rows.map((r) => [r.storage_class, Number(r.n)]));
}

/**
 * Locks one volume by name if it is still Available, unclaimed and not deleting, and no
 * other transaction holds it; undefined otherwise (never waits).
 */
export async function lockAvailableVolume(db: Queryable, name: string): Promise<PersistentVolume | undefined> {
  const rows = await sqlOf(db).$queryRawUnsafe<{ object: PersistentVolume }[]>(
    `SELECT object FROM objects WHERE kind = 'PersistentVolume' AND namespace = '' AND name = $1 AND phase = 'Available'
      AND claim_name IS NULL AND deletion_timestamp IS NULL FOR UPDATE SKIP LOCKED`,
    name,
  );
  return rows[0]?.object;
}

/**
 * Locks a claim's row (skipping it if another transaction holds it) and, in the same round
 * trip, names the volumes whose claimRef names the claim: the two reads the binder makes
 * first for every unbound claim. Undefined when the row is absent or held elsewhere.
 */
export async function lockClaimWithReservations(
  db: Queryable,
  namespace: string,
  name: string,
): Promise<{ claim: PersistentVolumeClaim; reserved: string[] } | undefined> {
  return (await lockClaimsWithReservations(db, [{ namespace, name }]))[0];
}

/**
 * `lockClaimWithReservations` for many claims in one round trip: the rows this
 * transaction could lock (rows other transactions hold are skipped, not waited for), each
 * with the names of the volumes whose claimRef names it.
 */
export async function lockClaimsWithReservations(
  db: Queryable,
  refs: { namespace: string; name: string }[],
): Promise<{ claim: PersistentVolumeClaim; reserved: string[] }[]> {
  if (refs.length === 0) return [];
  const rows = await sqlOf(db).$queryRawUnsafe<{ object: PersistentVolumeClaim; reserved: string[] }[]>(
    `SELECT o.object, ARRAY(SELECT v.name FROM objects v WHERE v.kind = 'PersistentVolume' AND v.claim_namespace = o.namespace
                              AND v.claim_name = o.name ORDER BY v.name COLLATE "C") AS reserved
       FROM objects o JOIN unnest($1::text[], $2::text[]) AS r(namespace, name) ON o.namespace = r.namespace AND o.name = r.name
      WHERE o.kind = 'PersistentVolumeClaim'
        FOR UPDATE OF o SKIP LOCKED`,
    refs.map((r) => r.namespace),
    refs.map((r) => r.name),
  );
  return rows.map((r) => ({ claim: r.object, reserved: r.reserved ?? [] }));
}

/** One claim's question in `candidateVolumes`: `limit` volumes of its shape, smallest first. */
export interface CandidateAsk {
  storageClass: string;
  volumeMode: string;
  accessModes: number;
  minBytes: string;
  limit: number;
}

/**
 * For each ask, the names and sizes of up to `limit` Available, unclaimed volumes of its
 * class, volume mode and access-mode set with at least its bytes, smallest first (as
 * `availableVolumes` orders them), leaving out the `exclude` names: all asks in one
 * statement, nothing locked.
 */
export async function candidateVolumes(db: Queryable, asks: CandidateAsk[], exclude: string[] = []): Promise<{ name: string; bytes: string }[][]> {
  const out: { name: string; bytes: string }[][] = asks.map(() => []);
  if (asks.length === 0) return out;
  const rows = await sqlOf(db).$queryRawUnsafe<{ i: number; name: string; bytes: string }[]>(
    `SELECT q.i, v.name, v.capacity_bytes::text AS bytes
       FROM unnest($1::int[], $2::text[], $3::text[], $4::int[], $5::numeric[], $6::int[]) AS q(i, cls, mode, modes, min_bytes, lim)
      CROSS JOIN LATERAL (
        SELECT name, capacity_bytes FROM objects
         WHERE kind = 'PersistentVolume' AND phase = 'Available' AND storage_class = q.cls AND volume_mode = q.mode
           AND access_modes = q.modes AND capacity_bytes >= q.min_bytes
           AND claim_name IS NULL AND provisioning IS NOT TRUE AND deletion_timestamp IS NULL AND name <> ALL($7::text[])
         ORDER BY capacity_bytes LIMIT q.lim) v
      ORDER BY q.i, v.capacity_bytes`,
    asks.map((_, i) => i),
    asks.map((a) => a.storageClass),
    asks.map((a) => a.volumeMode),
    asks.map((a) => a.accessModes),
    asks.map((a) => a.minBytes),
    asks.map((a) => a.limit),
    exclude,
  );
  for (const r of rows) out[r.i].push({ name: r.name, bytes: String(r.bytes) });
  return out;
}

/**
 * Locks the named volumes that are still Available, unclaimed and not deleting, skipping
 * rows other transactions hold; returns those it locked that still are. The rows are
 * found by name alone and checked as locked (with the phase in the WHERE clause the
 * planner walked the match index over every Available volume, and every dead version of
 * one, instead of looking the names up); a row locked that is no longer Available stays
 * locked until the transaction ends, which only keeps other binders off a taken volume.
 */
export async function lockAvailableVolumes(db: Queryable, names: string[]): Promise<PersistentVolume[]> {
  return (await lockVolumes(db, names)).filter((r) => r.available).map((r) => r.object);
}

/**
 * Locks the named volumes, whatever their phase, skipping rows other transactions hold
 * (never waits); each comes with whether it is free to bind (Available, unclaimed, not
 * provisioning, not deleting).
 */
export async function lockVolumes(db: Queryable, names: string[]): Promise<{ object: PersistentVolume; available: boolean }[]> {
  if (names.length === 0) return [];
  return sqlOf(db).$queryRawUnsafe<{ object: PersistentVolume; available: boolean }[]>(
    `SELECT object, (phase = 'Available' AND claim_name IS NULL AND provisioning IS NOT TRUE AND deletion_timestamp IS NULL) AS available
       FROM objects WHERE kind = 'PersistentVolume' AND namespace = '' AND name = ANY($1::text[])
      ORDER BY name COLLATE "C" FOR UPDATE SKIP LOCKED`,
    names,
  );
}

/** Volumes whose claimRef names this claim (any phase), locked when asked. */
export async function volumesClaimedBy(db: Queryable, namespace: string, name: string, lock = false): Promise<PersistentVolume[]> {
  const rows = await sqlOf(db).$queryRawUnsafe<{ object: PersistentVolume }[]>(
    `SELECT object FROM objects WHERE kind = 'PersistentVolume' AND claim_namespace = $1 AND claim_name = $2
      ORDER BY name COLLATE "C"${lock ? ' FOR UPDATE' : ''}`,
    namespace,
    name,
  );
  return rows.map((r) => r.object);
}

export interface VolumeShape {
  storageClass: string;
  volumeMode: string;
  accessModes: number;
  bytes: string;
}

/**
 * The claims to look at again when a volume becomes Available, in one read: every claim
 * naming it in spec.volumeName (any phase; objects_volume_name_idx), then up to `limit`
 * unbound Pending claims it could serve by class, volume mode, access modes and size,
 * oldest first (read in order from objects_pending_claims_idx, a partial index of exactly
 * such claims, per class).
 */
export async function claimsToWake(
  db: Queryable,
  volumeName: string,
  v: VolumeShape | undefined,
  limit: number,
): Promise<{ naming: { namespace: string; name: string }[]; waiting: { namespace: string; name: string }[] }> {
  const rows = await sqlOf(db).$queryRawUnsafe<{ namespace: string; name: string; naming: boolean }[]>(
    `SELECT namespace, name, naming FROM (
       (SELECT namespace, name, true AS naming, created_at FROM objects WHERE kind = 'PersistentVolumeClaim' AND volume_name = $1)
       UNION ALL
       (SELECT namespace, name, false, created_at FROM objects
         WHERE $2::boolean AND kind = 'PersistentVolumeClaim' AND phase = 'Pending' AND volume_name IS NULL AND deletion_timestamp IS NULL
           AND COALESCE(storage_class, '') = $3
           AND volume_mode = $4 AND (access_modes & ~$5::int) = 0 AND capacity_bytes <= $6::numeric
         ORDER BY created_at, name LIMIT $7)) c
     ORDER BY naming DESC, created_at, name`,
    volumeName,
    v !== undefined,
    v?.storageClass ?? '',
    v?.volumeMode ?? '',
    v?.accessModes ?? 0,
    v?.bytes ?? '0',
    limit,
  );
  const pick = (naming: boolean) => rows.filter((r) => r.naming === naming).map(({ namespace, name }) => ({ namespace, name }));
  return { naming: pick(true), waiting: pick(false) };
}

/** Unbound Pending claims of a class ("" also takes claims without a class). */
export async function pendingClaimsOfClass(db: Queryable, storageClass: string | null, limit: number): Promise<{ namespace: string; name: string }[]> {
  return sqlOf(db).$queryRawUnsafe<{ namespace: string; name: string }[]>(
    `SELECT namespace, name FROM objects
      WHERE kind = 'PersistentVolumeClaim' AND phase = 'Pending' AND volume_name IS NULL
        AND ${storageClass === null ? 'storage_class IS NULL' : 'storage_class = $2'}
      LIMIT $1`,
    ...(storageClass === null ? [limit] : [limit, storageClass]),
  );
}

export interface NearQuery {
  storageClass: string;
  volumeMode: string;
  accessModes: number;
  minBytes: string;
  limit: number;
}

/**
 * A few volumes near the claim, for "why is my claim Pending": the largest that are too
 * small (an index range for its exact shape, and a bounded look at other shapes), some large enough in its class whatever their modes, phase
 * or claim, and some of its shape in other classes. The last two look at a bounded number
 * of rows (`scan`: per phase, and per side of the class), each an index range of
 * objects_match_idx read in its order, so the query costs the same with any number of
 * volumes. (A plain `LIMIT` over a filter was not bounded: with fewer matching rows than
 * the limit, or rows the planner thought matched because claims share the class, Postgres
 * read the whole table; 0.6–1 s a claim at 100,000 volumes, for every waiting claim at
 * every resync.) Last, the Available volume of its class closest in size across every
 * shape (two index probes per volume mode and access-mode set, on objects_match_idx).
 */
export async function nearVolumes(db: Queryable, q: NearQuery & { scan?: number }): Promise<PersistentVolume[]> {
  const rows = await sqlOf(db).$queryRawUnsafe<{ object: PersistentVolume; name: string }[]>(
    `(SELECT object, name FROM objects WHERE kind = 'PersistentVolume' AND phase = 'Available' AND storage_class = $1
        AND volume_mode = $2 AND access_modes = $3 AND capacity_bytes < $4::numeric
      ORDER BY capacity_bytes DESC LIMIT $5)
     UNION ALL
     (SELECT object, name FROM (SELECT object, name, capacity_bytes FROM objects
         WHERE kind = 'PersistentVolume' AND phase = 'Available' AND storage_class = $1
           AND capacity_bytes < $4::numeric LIMIT $6) s
      ORDER BY capacity_bytes DESC LIMIT $5)
     UNION ALL
     (SELECT object, name FROM unnest(ARRAY['Pending', 'Available', 'Bound', 'Released', 'Failed']) phases(p)
        CROSS JOIN LATERAL (SELECT object, name, capacity_bytes FROM objects
          WHERE kind = 'PersistentVolume' AND phase = phases.p AND storage_class = $1
          ORDER BY volume_mode, access_modes, capacity_bytes LIMIT $6) s
      WHERE capacity_bytes >= $4::numeric LIMIT $5)
     UNION ALL
     (SELECT object, name FROM (
         (SELECT object, name, capacity_bytes, volume_mode, access_modes FROM objects
           WHERE kind = 'PersistentVolume' AND phase = 'Available' AND storage_class < $1
           ORDER BY storage_class DESC LIMIT $6)
         UNION ALL
         (SELECT object, name, capacity_bytes, volume_mode, access_modes FROM objects
           WHERE kind = 'PersistentVolume' AND phase = 'Available' AND storage_class > $1
           ORDER BY storage_class LIMIT $6)) s
      WHERE volume_mode = $2 AND (access_modes & $3::int) = $3::int AND capacity_bytes >= $4::numeric LIMIT $5)
     UNION ALL
     (SELECT object, name FROM
        (SELECT m, a FROM unnest(ARRAY['Filesystem', 'Block']) m CROSS JOIN generate_series(1, 15) a) shapes
        CROSS JOIN LATERAL (
          (SELECT object, name, capacity_bytes FROM objects
            WHERE kind = 'PersistentVolume' AND phase = 'Available' AND storage_class = $1
              AND volume_mode = shapes.m AND access_modes = shapes.a AND capacity_bytes < $4::numeric
            ORDER BY capacity_bytes DESC LIMIT 1)
          UNION ALL
          (SELECT object, name, capacity_bytes FROM objects
            WHERE kind = 'PersistentVolume' AND phase = 'Available' AND storage_class = $1
              AND volume_mode = shapes.m AND access_modes = shapes.a AND capacity_bytes >= $4::numeric
            ORDER BY capacity_bytes ASC LIMIT 1)
        ) near
      ORDER BY abs(near.capacity_bytes - $4::numeric) LIMIT 1)`,
    q.storageClass,
    q.volumeMode,
    q.accessModes,
    q.minBytes,
    q.limit,
    q.scan ?? 500,
  );
  const seen = new Set<string>();
  return rows.filter((r) => !seen.has(r.name) && seen.add(r.name)).map((r) => r.object);
}

/** Keys per page of `keyPages`. */
export const KEY_PAGE = 5_000;

/**
 * Which of a kind's objects `keyPages` lists: those in one of `phases`, or with `toSync`
 * the volumes a binder starting up must look at (all but the Available, unclaimed ones:
 * those need nothing, and the claims that could use them are looked at themselves).
 */
export interface KeyFilter {
  phases?: readonly string[];
  toSync?: true;
}

/**
 * The keys of a kind's objects (those `filter` admits), a page at a time in namespace and
 * name order, each page read when asked for (the unique index's range after the last key):
 * a controller's first pass over a million claims holds one page, not a million keys.
 */
export async function* keyPages(db: Queryable, kind: string, filter: KeyFilter = {}, pageSize = KEY_PAGE): AsyncGenerator<{ namespace: string; name: string }[]> {
  const where = [
    'kind = $1',
    '(namespace, name) > ($2, $3)',
    ...(filter.phases ? ['phase = ANY($5::text[])'] : []),
    ...(filter.toSync ? ["(phase IS DISTINCT FROM 'Available' OR claim_name IS NOT NULL)"] : []),
  ].join(' AND ');
  const sql = `SELECT namespace, name FROM objects WHERE ${where} ORDER BY namespace, name LIMIT $4`;
  let after = { namespace: '', name: '' };
  for (;;) {
    const params: unknown[] = [kind, after.namespace, after.name, pageSize, ...(filter.phases ? [filter.phases] : [])];
    const rows = await sqlOf(db).$queryRawUnsafe<{ namespace: string; name: string }[]>(sql, ...params);
    if (rows.length > 0) yield rows;
    if (rows.length < pageSize) return;
    after = rows[rows.length - 1];
  }
}


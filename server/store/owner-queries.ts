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

/**
 * Objects read per statement of `ownedObjects`: each statement reads and parses this many
 * rows at most, so the pass over a million objects is many short statements (about 0.1 s
 * each) instead of one that outlasts the statement timeout (25 s) and fails the start.
 */
export const OWNED_SCAN_PAGE = 10_000;

const OWNED_SQL = `
  WITH page AS (
    SELECT kind, namespace, name, object->'metadata'->'ownerReferences' AS refs FROM objects
     WHERE (kind, namespace, name) > ($1, $2, $3)
     ORDER BY kind, namespace, name LIMIT $4),
  last AS (SELECT kind, namespace, name FROM page ORDER BY kind DESC, namespace DESC, name DESC LIMIT 1)
  SELECT p.kind, p.namespace, p.name,
         CASE WHEN json_typeof(p.refs) = 'array'
              THEN ARRAY(SELECT COALESCE(r->>'uid', '') FROM json_array_elements(p.refs) r)
              ELSE ARRAY[]::text[] END AS owners,
         (p.kind, p.namespace, p.name) = (l.kind, l.namespace, l.name) AS last
    FROM page p CROSS JOIN last l
   WHERE json_typeof(p.refs) = 'array' OR (p.kind, p.namespace, p.name) = (l.kind, l.namespace, l.name)`;

/** Every object with at least one ownerReference, with the uids it names (read OWNED_SCAN_PAGE rows a statement). */
export async function ownedObjects(db: Queryable, scanPage = OWNED_SCAN_PAGE): Promise<OwnedObject[]> {
  const out: OwnedObject[] = [];
  let after = { kind: '', namespace: '', name: '' };
  for (;;) {
    const rows = await sqlOf(db).$queryRawUnsafe<(OwnedObject & { last: boolean })[]>(OWNED_SQL, after.kind, after.namespace, after.name, scanPage);
    const last = rows.find((r) => r.last);
    for (const r of rows) if (r.owners.length > 0) out.push({ kind: r.kind, namespace: r.namespace, name: r.name, owners: r.owners });
    if (!last) return out;
    after = last;
  }
}

/** Objects being deleted that hold `finalizer` (the orphan finalizer: their dependents are to be let go). */
export function deletingWithFinalizer(db: Queryable, finalizer: string): Promise<{ kind: string; namespace: string; name: string }[]> {
  return sqlOf(db).$queryRawUnsafe(
    `SELECT kind, namespace, name FROM objects
      WHERE deletion_timestamp IS NOT NULL AND COALESCE((object->'metadata'->'finalizers')::jsonb @> $1::jsonb, false)`,
    JSON.stringify([finalizer]),
  );
}

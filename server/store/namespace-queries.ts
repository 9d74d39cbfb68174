// The namespace controller's reads: the namespaces being deleted, and what a namespace still
// holds (only the fields the controller counts and deletes by, never whole objects).
import { sqlOf, type Queryable } from './sql-handle';

/** Names of the namespaces being deleted (deletionTimestamp set). */
export async function terminatingNamespaces(db: Queryable): Promise<string[]> {
  const rows = await sqlOf(db).$queryRawUnsafe<{ name: string }[]>(
    "SELECT name FROM objects WHERE kind = 'Namespace' AND namespace = '' AND deletion_timestamp IS NOT NULL ORDER BY name",
  );
  return rows.map((r) => r.name);
}

export interface ContentItem {
  kind: string;
  name: string;
  uid: string;
  finalizers: string[];
  /** Being deleted already. */
  deleting: boolean;
  /** A pod's termination grace (seconds), when it has one. */
  grace: number | null;
}

/** The objects of `kinds` in a namespace, in kind and name order. */
export function namespaceContent(db: Queryable, namespace: string, kinds: readonly string[]): Promise<ContentItem[]> {
  return sqlOf(db).$queryRawUnsafe<ContentItem[]>(
    `SELECT kind, name, COALESCE(object->'metadata'->>'uid', '') AS uid,
            CASE WHEN json_typeof(object->'metadata'->'finalizers') = 'array'
                 THEN ARRAY(SELECT json_array_elements_text(object->'metadata'->'finalizers')) ELSE ARRAY[]::text[] END AS finalizers,
            deletion_timestamp IS NOT NULL AS deleting,
            CASE WHEN json_typeof(object->'metadata'->'deletionGracePeriodSeconds') = 'number'
                 THEN (object->'metadata'->>'deletionGracePeriodSeconds')::numeric::int ELSE NULL END AS grace
       FROM objects WHERE kind = ANY($1::text[]) AND namespace = $2 ORDER BY kind, name`,
    [...kinds],
    namespace,
  );
}

/** Whether any object of `kinds` is left in the namespace (in a transaction: the last look before it goes). */
export async function namespaceHasContent(db: Queryable, namespace: string, kinds: readonly string[]): Promise<boolean> {
  const rows = await sqlOf(db).$queryRawUnsafe<{ any: boolean }[]>(
    'SELECT EXISTS (SELECT 1 FROM objects WHERE kind = ANY($1::text[]) AND namespace = $2) AS any',
    [...kinds],
    namespace,
  );
  return Boolean(rows[0]?.any);
}

// What the resource quota controller asks the store: which namespaces have quotas to keep
// current (their usage is counted by services/quota-admission.ts).
import { sqlOf, type Queryable } from './sql-handle';

/** The namespaces holding at least one ResourceQuota. */
export async function namespacesWithQuotas(db: Queryable): Promise<string[]> {
  const rows = await sqlOf(db).$queryRawUnsafe<{ namespace: string }[]>("SELECT DISTINCT namespace FROM objects WHERE kind = 'ResourceQuota'");
  return rows.map((r) => r.namespace);
}

/**
 * How many objects of a namespaced kind one namespace holds (a quota's object count), as
 * the caller's transaction sees them; `except`: the name of one not to count.
 */
export async function countObjectsIn(db: Queryable, kind: string, namespace: string, except?: string): Promise<number> {
  const rows = await sqlOf(db).$queryRawUnsafe<{ n: string }[]>(
    'SELECT count(*)::text AS n FROM objects WHERE kind = $1 AND namespace = $2 AND name IS DISTINCT FROM $3',
    kind,
    namespace,
    except ?? null,
  );
  return Number(rows[0]?.n ?? 0);
}

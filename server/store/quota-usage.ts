// What the resource quota controller asks the store: which namespaces have quotas to keep
// current (their usage is counted by services/quota-admission.ts).
import { sqlOf, type Queryable } from './sql-handle';

/** The namespaces holding at least one ResourceQuota. */
export async function namespacesWithQuotas(db: Queryable): Promise<string[]> {
  const rows = await sqlOf(db).$queryRawUnsafe<{ namespace: string }[]>("SELECT DISTINCT namespace FROM objects WHERE kind = 'ResourceQuota'");
  return rows.map((r) => r.namespace);
}

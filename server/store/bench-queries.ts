// The counts and traces the benches read while they measure (bench/): named here, like
// every other query, so that no bench holds a database handle or writes SQL.
import { sqlOf, type Queryable } from './sql-handle';

/** Objects of a kind, optionally in one phase and only those carrying a label. */
export async function countObjects(db: Queryable, kind: string, where: { phase?: string; withLabel?: string } = {}): Promise<number> {
  const rows = await sqlOf(db).$queryRawUnsafe<{ n: bigint }[]>(
    `SELECT count(*) AS n FROM objects
      WHERE kind = $1 AND ($2::text IS NULL OR phase = $2) AND ($3::text IS NULL OR labels->>$3 IS NOT NULL)`,
    kind,
    where.phase ?? null,
    where.withLabel ?? null,
  );
  return Number(rows[0].n);
}

/** The occurrences of Events with a reason (the sum of their `count`s). */
export async function countEventOccurrences(db: Queryable, reason: string): Promise<number> {
  const rows = await sqlOf(db).$queryRawUnsafe<{ n: bigint }[]>(
    `SELECT coalesce(sum((object->>'count')::int), 0)::bigint AS n FROM objects WHERE kind = 'Event' AND object->>'reason' = $1`,
    reason,
  );
  return Number(rows[0].n);
}

/** The provisioning records of a class: the claim each serves, when it was begun and last touched, oldest first. */
export function provisioningRecordTimes(db: Queryable, className: string): Promise<{ claim: string; begun: Date; last: Date }[]> {
  return sqlOf(db).$queryRawUnsafe<{ claim: string; begun: Date; last: Date }[]>(
    `SELECT details->>'claim' AS claim, created_at AS begun, updated_at AS last
       FROM provisioned_assets WHERE details->>'className' = $1 ORDER BY created_at`,
    className,
  );
}

/** History rows after `afterRv` in the given namespaces ('' for cluster-scoped), counted by writer, kind and action. */
export function historyWritesByWriter(db: Queryable, afterRv: bigint, namespaces: string[], limit = 30): Promise<{ actor: string; kind: string; action: string; n: number }[]> {
  return sqlOf(db).$queryRawUnsafe<{ actor: string; kind: string; action: string; n: number }[]>(
    `SELECT actor, kind, action, count(*)::int AS n FROM history
      WHERE rv > $1 AND namespace = ANY($2::text[]) GROUP BY 1, 2, 3 ORDER BY n DESC LIMIT $3`,
    afterRv,
    namespaces,
    limit,
  );
}

/** History rows after `afterRv` of objects named `name` or mentioning it, oldest first. */
export function historyMentioning(db: Queryable, afterRv: bigint, name: string): Promise<{ actor: string; action: string; kind: string; name: string; object: unknown }[]> {
  return sqlOf(db).$queryRawUnsafe<{ actor: string; action: string; kind: string; name: string; object: unknown }[]>(
    `SELECT actor, action, kind, name, object FROM history WHERE rv > $1 AND (name = $2 OR object::text LIKE $3) ORDER BY rv`,
    afterRv,
    name,
    `%"${name.replace(/[\\%_]/g, (c) => `\\${c}`)}"%`,
  );
}

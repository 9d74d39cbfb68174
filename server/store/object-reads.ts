// The store's plain reads of objects (outside a transaction, no locks): by name, several
// names at once, a whole kind, the objects on a node. Each answers the kind's objects as
// stored; the caller (ObjectStore) found the strategy and names the type.
import { unstorable } from '../domain/untrusted';
import type { KubeObject, Strategy } from '../resources/types';
import { nsOf } from './kind-scope';
import type { SqlClient } from './pg';

/**
 * Every object of a kind as committed now, in namespace and name order. Typed by the
 * caller: the rows of `s.kind` hold objects its strategy validated.
 */
export async function readKind<T extends KubeObject>(sql: SqlClient, s: Strategy): Promise<T[]> {
  const rows = await sql.$queryRawUnsafe<{ object: T }[]>(
    'SELECT object FROM objects WHERE kind = $1 ORDER BY namespace COLLATE "C", name COLLATE "C"',
    s.kind,
  );
  return rows.map((r) => r.object);
}

/** One object by namespace and name, or undefined. */
export async function readOne<T extends KubeObject>(sql: SqlClient, s: Strategy, namespace: string | undefined, name: string): Promise<T | undefined> {
  // No stored name holds NUL (every write refuses it), and Postgres cannot compare it.
  if (unstorable(namespace) || unstorable(name)) return undefined;
  const rows = await sql.$queryRawUnsafe<{ object: T }[]>(
    'SELECT object FROM objects WHERE kind = $1 AND namespace = $2 AND name = $3',
    s.kind,
    nsOf(s, namespace),
    name,
  );
  return rows[0]?.object;
}

/** Several objects by namespace and name in one read, keyed "namespace/name" (a missing one is absent). */
export async function readMany<T extends KubeObject>(sql: SqlClient, s: Strategy, keys: { namespace?: string; name: string }[]): Promise<Map<string, T>> {
  const wanted = keys.filter((k) => !unstorable(k.namespace) && !unstorable(k.name)).map((k) => ({ namespace: nsOf(s, k.namespace), name: k.name }));
  const out = new Map<string, T>();
  if (wanted.length === 0) return out;
  const rows = await sql.$queryRawUnsafe<{ namespace: string; name: string; object: T }[]>(
    'SELECT o.namespace, o.name, o.object FROM objects o JOIN unnest($2::text[], $3::text[]) AS k(namespace, name) ON o.namespace = k.namespace AND o.name = k.name WHERE o.kind = $1',
    s.kind,
    wanted.map((k) => k.namespace),
    wanted.map((k) => k.name),
  );
  for (const r of rows) out.set(`${r.namespace}/${r.name}`, r.object);
  return out;
}

/** The objects of a kind placed on `node` (pods: spec.nodeName), from the indexed column, at most `limit`. */
export async function readOnNode<T extends KubeObject>(sql: SqlClient, s: Strategy, node: string, limit: number): Promise<T[]> {
  if (unstorable(node)) return [];
  const rows = await sql.$queryRawUnsafe<{ object: T }[]>(
    'SELECT object FROM objects WHERE kind = $1 AND node_name = $2 ORDER BY namespace, name LIMIT $3',
    s.kind,
    node,
    limit,
  );
  return rows.map((r) => r.object);
}

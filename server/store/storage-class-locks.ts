// The lock a move of the default StorageClass takes: every class's row, in name order, so
// two moves at once (a default switch, a replace that makes its class the default) cannot
// both win and never deadlock on each other.
import { sqlOf, type Queryable } from './sql-handle';

/** Locks every StorageClass row in `tx` (FOR UPDATE, name order); returns their names. */
export async function lockStorageClasses(tx: Queryable): Promise<string[]> {
  const rows = await sqlOf(tx).$queryRawUnsafe<{ name: string }[]>(`SELECT name FROM objects WHERE kind = 'StorageClass' ORDER BY name FOR UPDATE`);
  return rows.map((r) => r.name);
}

// Each node's reported pool capacity over time, for admins: every write of a pool's
// CSIStorageCapacity (made from the node's reports, or from a refused report, whose reason
// it carries) is a row of the history table, so the reports' history is read from there.
import { annPoolFree, annPoolProblem, annPoolTotal } from '../domain/well-known/annotations';
import { labelPoolNode } from '../domain/well-known/labels';
import { sqlOf, type Queryable } from './sql-handle';

export interface PoolReportRow {
  /** When the figures were written (ISO, UTC). */
  time: string;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  className: string;
  /** The pool's filesystem size and free bytes the node reported (decimal bytes), absent while it cannot serve. */
  totalBytes?: string;
  freeBytes?: string;
  /** The room offered for new volumes then (a quantity). */
  capacity: string;
  /** Why the pool offered no room then (a refused report says so). */
  problem?: string;
}

/** The newest `limit` changes of `node`'s pools' published figures in `namespace`, newest first. */
export async function poolReportHistory(db: Queryable, namespace: string, node: string, limit: number): Promise<PoolReportRow[]> {
  const rows = await sqlOf(db).$queryRawUnsafe<{ time: string; type: PoolReportRow['type']; cls: string | null; total: string | null; free: string | null; capacity: string | null; problem: string | null }[]>(
    `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS time, type,
            object->>'storageClassName' AS cls, object->'metadata'->'annotations'->>$4 AS total,
            object->'metadata'->'annotations'->>$5 AS free, object->>'capacity' AS capacity,
            object->'metadata'->'annotations'->>$6 AS problem
       FROM history
      WHERE kind = 'CSIStorageCapacity' AND namespace = $1 AND object->'metadata'->'labels'->>$2 = $3
      ORDER BY rv DESC LIMIT $7`,
    namespace,
    labelPoolNode,
    node,
    annPoolTotal,
    annPoolFree,
    annPoolProblem,
    limit,
  );
  return rows.map((r) => ({
    time: r.time,
    type: r.type,
    className: r.cls ?? '',
    ...(r.total !== null ? { totalBytes: r.total } : {}),
    ...(r.free !== null ? { freeBytes: r.free } : {}),
    capacity: r.capacity ?? '0',
    ...(r.problem !== null ? { problem: r.problem } : {}),
  }));
}

// Reads of the history table (written by flush.ts with every change): an object's rows
// and its events' rows for the timeline, and the audit query (filtered, authorized, paged
// newest first by resourceVersion).
import type { AuditScope } from '../domain/audit-scope';
import { sqlOf, type Queryable } from './sql-handle';

export interface HistoryRow {
  rv: string;
  type: string;
  action: string;
  actor: string;
  kind: string;
  namespace: string;
  name: string;
  uid: string;
  time: string;
}

export interface HistoryRowWithObject extends HistoryRow {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- parse boundary: a history row holds JSON of any kind and any age
  object: Record<string, any>;
}

export interface AuditFilter {
  /** `user:alice` (exact) or `alice` (the user, and any of their tokens). */
  actor?: string;
  namespace?: string;
  kind?: string;
  name?: string;
  action?: string;
  /** ISO timestamps, inclusive. */
  from?: string;
  to?: string;
  /** Rows below this resourceVersion (the previous page's last). */
  before?: string;
  /** Include node heartbeats (an agent's status write of its own Node, every few seconds); left out by default. */
  heartbeats?: boolean;
}

const COLUMNS = `rv::text AS rv, type, action, actor, kind, namespace, name, uid,
  to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS time`;

/** An object's rows (every incarnation of the name, oldest first) and its events' rows. */
export async function objectHistory(
  on: Queryable,
  kind: string,
  namespace: string,
  name: string,
  limit: number,
): Promise<{ rows: HistoryRowWithObject[]; events: HistoryRowWithObject[]; truncated: boolean }> {
  const newest = await sqlOf(on).$queryRawUnsafe<HistoryRowWithObject[]>(
    `SELECT ${COLUMNS}, object FROM history WHERE kind = $1 AND namespace = $2 AND name = $3 ORDER BY history.rv DESC LIMIT $4`,
    kind,
    namespace,
    name,
    limit + 1,
  );
  const truncated = newest.length > limit;
  const rows = newest.slice(0, limit).reverse();
  const uids = [...new Set(rows.map((r) => r.uid))];
  const events =
    uids.length === 0
      ? []
      : (
          await sqlOf(on).$queryRawUnsafe<HistoryRowWithObject[]>(
            `SELECT ${COLUMNS}, object FROM history WHERE involved_uid = ANY($1::text[]) ORDER BY history.rv DESC LIMIT $2`,
            uids,
            limit,
          )
        ).reverse();
  return { rows, events, truncated };
}

function scopeCondition(scope: AuditScope, params: unknown[]): string {
  if (scope.all) return 'TRUE';
  const parts: string[] = [];
  params.push(scope.kinds);
  parts.push(`kind = ANY($${params.length}::text[])`);
  if (scope.inNamespaces.length > 0) {
    const kinds: string[] = [];
    const namespaces: string[] = [];
    for (const s of scope.inNamespaces) for (const ns of s.namespaces) {
      kinds.push(s.kind);
      namespaces.push(ns);
    }
    params.push(kinds, namespaces);
    parts.push(`(kind, namespace) IN (SELECT * FROM unnest($${params.length - 1}::text[], $${params.length}::text[]))`);
  }
  if (scope.namespaceNames.length > 0) {
    params.push(scope.namespaceNames);
    parts.push(`(kind = 'Namespace' AND name = ANY($${params.length}::text[]))`);
  }
  return `(${parts.join(' OR ')})`;
}

/** One page of audit rows, newest first. Without a kind filter Events are left out. */
export async function auditRows(on: Queryable, scope: AuditScope, f: AuditFilter, limit: number): Promise<HistoryRow[]> {
  const params: unknown[] = [];
  const where: string[] = [scopeCondition(scope, params)];
  const add = (cond: (n: string) => string, v: unknown) => {
    params.push(v);
    where.push(cond(`$${params.length}`));
  };
  if (f.actor) {
    if (f.actor.includes(':')) add((n) => `actor = ${n}`, f.actor);
    else {
      add((n) => `(actor = 'user:' || ${n}`, f.actor);
      params.push(`token:${f.actor.replace(/[\\%_]/g, (c) => `\\${c}`)}/%`);
      where[where.length - 1] += ` OR actor LIKE $${params.length})`;
    }
  }
  if (f.kind) add((n) => `kind = ${n}`, f.kind);
  else where.push(`kind <> 'Event'`);
  if (f.namespace !== undefined) add((n) => `namespace = ${n}`, f.namespace);
  if (f.name) add((n) => `name = ${n}`, f.name);
  if (f.action) add((n) => `action = ${n}`, f.action);
  if (f.from) add((n) => `created_at >= ${n}::timestamptz`, f.from);
  if (f.to) add((n) => `created_at <= ${n}::timestamptz`, f.to);
  if (f.before) add((n) => `rv < ${n}::bigint`, f.before);
  if (!f.heartbeats) where.push(`NOT (kind = 'Node' AND action = 'status' AND actor LIKE 'agent:%')`);
  params.push(limit);
  return sqlOf(on).$queryRawUnsafe<HistoryRow[]>(
    `SELECT ${COLUMNS} FROM history WHERE ${where.join(' AND ')} ORDER BY history.rv DESC LIMIT $${params.length}`,
    ...params,
  );
}

// The audit page's filters as they stand in the URL (shareable, back/forward), and back.
export const AUDIT_FILTERS = ['actor', 'namespace', 'kind', 'name', 'action', 'from', 'to', 'heartbeats'] as const;
export type AuditFilterKey = (typeof AUDIT_FILTERS)[number];
export type AuditQuery = Partial<Record<AuditFilterKey | 'cursor', string>>;

/** The filters (and page cursor) a URL's search parameters hold; empty values are dropped. */
export function auditQueryOf(params: URLSearchParams): AuditQuery {
  const q: AuditQuery = {};
  for (const k of [...AUDIT_FILTERS, 'cursor'] as const) {
    const v = params.get(k)?.trim();
    if (v) q[k] = v;
  }
  return q;
}

/** The search string of a query (`?actor=dev&kind=...`), '' when empty. */
export function auditSearchOf(q: AuditQuery): string {
  const p = new URLSearchParams();
  for (const k of [...AUDIT_FILTERS, 'cursor'] as const) if (q[k]) p.set(k, q[k]);
  const s = p.toString();
  return s ? `?${s}` : '';
}

/** A datetime-local input's value (local time) as an ISO instant, or undefined. */
export function localToIso(v: string | undefined): string | undefined {
  if (!v) return undefined;
  const ms = Date.parse(v);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/** An ISO instant as a datetime-local input's value (local time, minutes), or ''. */
export function isoToLocal(v: string | undefined): string {
  if (!v) return '';
  const d = new Date(v);
  if (Number.isNaN(d.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** The server's audit filter of a query: the texts as they are, `heartbeats` ("1") as a flag. */
export function auditFilterOf(q: AuditQuery): Record<string, string | boolean> {
  const out: Record<string, string | boolean> = {};
  for (const k of AUDIT_FILTERS) {
    if (!q[k]) continue;
    out[k] = k === 'heartbeats' ? q[k] === '1' : q[k];
  }
  return out;
}

/**
 * What a row did, in words: a delete that only marked the object (finalizers still to
 * run) is not a plain "modified", and a status write says so.
 */
export function changeText(r: { type: string; action: string }): string {
  if (r.type === 'ADDED') return 'created';
  if (r.type === 'DELETED') return 'removed';
  if (r.action === 'delete') return 'marked for deletion';
  if (r.action === 'status') return 'status updated';
  return 'modified';
}

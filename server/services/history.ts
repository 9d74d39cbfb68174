// Volume history and the audit view: who did what, when, to which object. Reads the
// history table (one row per committed change, store/flush.ts), authorizes with the same
// rules as every read and redacts objects for non-admins before any diff is computed, so
// a secret never reaches a non-admin through a history row or a diff.
import { auditScope } from '../domain/audit-scope';
import { isAllowed, type Principal } from '../domain/authorization';
import { toCsv } from '../domain/csv';
import { StowageError } from '../domain/errors';
import { diffObjects, type Change } from '../domain/history-diff';
import { describeChange } from '../domain/history-summary';
import { unstorable } from '../domain/untrusted';
import { strategies } from '../resources/registry';
import type { Event } from '../resources/event/schema';
import type { KubeObject } from '../resources/types';
import { auditRows, objectHistory, type AuditFilter, type HistoryRow, type HistoryRowWithObject } from '../store/history';
import type { ObjectStore } from '../store/object-store';
import { forbidden, strategyOrThrow } from './object-access';
import type { ObjectService } from './objects';
import { ofKind } from '../resources/of-kind';

/** Rows of one object a timeline shows at most (the newest). */
export const TIMELINE_LIMIT = 500;
export const AUDIT_PAGE = 100;
export const AUDIT_MAX_PAGE = 500;
/** Rows an export holds at most. */
export const EXPORT_MAX_ROWS = 10_000;
export const ACTIONS = ['create', 'update', 'status', 'delete'] as const;

export interface TimelineEntry {
  rv: string;
  time: string;
  actor: string;
  action: string;
  type: string;
  /** A change of the object, or an Event about it. */
  entry: 'change' | 'event';
  summary: string[];
  /** What changed from the object's previous row (empty for the first). */
  changes: Change[];
  event?: { type: string; reason: string; message: string; count: number; source: string };
}

export interface TimelineGroup {
  uid: string;
  /** False when the last row of this incarnation removed it. */
  exists: boolean;
  entries: TimelineEntry[];
}

export interface Timeline {
  kind: string;
  namespace: string;
  name: string;
  /** Incarnations of the name, newest first. */
  groups: TimelineGroup[];
  /** Older rows exist than those shown. */
  truncated: boolean;
}

/** The store's audit filter, paged by an opaque cursor instead of a version. */
export interface AuditInput extends Omit<AuditFilter, 'before'> {
  cursor?: string;
  limit?: number;
}

export interface AuditPage {
  items: HistoryRow[];
  /** The cursor of the next (older) page, absent on the last. */
  next?: string;
}

export interface ExportFile {
  filename: string;
  contentType: string;
  content: string;
  rows: number;
  /** The export stopped at EXPORT_MAX_ROWS. */
  truncated: boolean;
}

const MAX_RV = 2n ** 63n - 1n;
const bad = (m: string) => new StowageError('BadRequest', m);

function text(field: string, v: string | undefined, max = 253): string | undefined {
  if (v === undefined || v === '') return undefined;
  // eslint-disable-next-line no-control-regex -- control characters are exactly what this refuses
  if (typeof v !== 'string' || v.length > max || unstorable(v) || /[\u0000-\u001f]/.test(v)) throw bad(`invalid ${field}`);
  return v;
}

function time(field: string, v: string | undefined): string | undefined {
  const s = text(field, v, 64);
  if (s === undefined) return undefined;
  const ms = Date.parse(s);
  if (!/^\d{4}-\d{2}-\d{2}/.test(s) || Number.isNaN(ms)) throw bad(`invalid ${field}: expected an ISO 8601 time such as 2026-01-31T12:00:00Z`);
  return new Date(ms).toISOString();
}

const KINDS = () => strategies.map((s) => ({ kind: s.kind, namespaced: s.namespaced }));

export class HistoryService {
  constructor(
    private readonly store: ObjectStore,
    private readonly objects: ObjectService,
  ) {}

  /** The object's history, every incarnation of its name, merged with its events. */
  async timeline(p: Principal, kind: string, namespace: string | undefined, name: string): Promise<Timeline> {
    const s = strategyOrThrow(kind);
    const nm = text('name', name);
    if (!nm) throw bad('name is required');
    const ns = s.namespaced ? (text('namespace', namespace) ?? 'default') : '';
    const scope = s.kind === 'Namespace' ? nm : s.namespaced ? ns : undefined;
    if (!isAllowed(p, 'get', s.kind, scope)) throw forbidden(p, 'get', s, ns, nm);
    const { rows, events, truncated } = await objectHistory(this.store, s.kind, ns, nm, TIMELINE_LIMIT);
    const groups = new Map<string, TimelineGroup>();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- parse boundary: an object from a history row, JSON of any kind and any age
    let prev: Record<string, any> | undefined;
    let prevUid: string | undefined;
    for (const r of rows) {
      const object = this.objects.shape(p, r.object as KubeObject);
      const before = r.uid === prevUid ? prev : undefined;
      const g = groups.get(r.uid) ?? { uid: r.uid, exists: true, entries: [] };
      groups.set(r.uid, g);
      g.exists = r.type !== 'DELETED';
      g.entries.push({
        ...base(r),
        entry: 'change',
        summary: describeChange(before, { type: r.type, action: r.action, object }),
        changes: before ? diffObjects(before, object) : [],
      });
      prev = object;
      prevUid = r.uid;
    }
    const mayEvents = isAllowed(p, 'list', 'Event', ns || 'default');
    const seenEvents = new Set<string>();
    if (mayEvents) {
      for (const r of events) {
        if (r.type === 'DELETED' || !isAllowed(p, 'get', 'Event', r.namespace)) continue;
        // The rows of `events` are the history of Event objects.
        const e = this.objects.shape(p, r.object as Event);
        const g = groups.get(String(e.involvedObject?.uid ?? ''));
        if (!g) continue;
        seenEvents.add(`${r.uid}/${e.count ?? 1}`);
        g.entries.push(eventEntry(base(r), e));
      }
      // Events written before history was kept (or by an older server) are still objects.
      for (const e of await this.liveEvents(p, s.kind, ns, nm)) {
        const g = groups.get(String(e.involvedObject?.uid ?? ''));
        if (!g || seenEvents.has(`${e.metadata.uid}/${e.count ?? 1}`)) continue;
        const t = String(e.lastTimestamp ?? e.eventTime ?? e.metadata.creationTimestamp ?? '');
        g.entries.push(
          eventEntry({ rv: e.metadata.resourceVersion ?? '0', time: t, actor: `controller:${e.source?.component ?? e.reportingComponent ?? 'unknown'}`, action: 'create', type: 'ADDED' }, e),
        );
      }
    }
    for (const g of groups.values()) g.entries.sort((a, b) => (BigInt(a.rv) < BigInt(b.rv) ? -1 : BigInt(a.rv) > BigInt(b.rv) ? 1 : 0));
    return { kind: s.kind, namespace: ns, name: nm, groups: [...groups.values()].reverse(), truncated };
  }

  private async liveEvents(p: Principal, kind: string, ns: string, name: string): Promise<Event[]> {
    const res = await this.store.list('Event', { namespace: ns || 'default', fieldSelector: `involvedObject.kind=${kind},involvedObject.name=${name}` }).catch(() => ({ items: [] as KubeObject[] }));
    return ofKind(res.items, 'Event').map((e) => this.objects.shape(p, e));
  }

  /** One page of the audit log the principal may read, newest first. */
  async audit(p: Principal, input: AuditInput): Promise<AuditPage> {
    const limit = input.limit ?? AUDIT_PAGE;
    if (!Number.isInteger(limit) || limit < 1 || limit > AUDIT_MAX_PAGE) throw bad(`limit must be 1 to ${AUDIT_MAX_PAGE}`);
    const items = await auditRows(this.store, auditScope(p, KINDS()), this.filter(input), limit);
    return { items, next: items.length === limit ? items[items.length - 1].rv : undefined };
  }

  /** The audit rows matching `input` (every page, up to EXPORT_MAX_ROWS) as a CSV or JSON file. */
  async export(p: Principal, input: AuditInput, format: 'csv' | 'json'): Promise<ExportFile> {
    const scope = auditScope(p, KINDS());
    const filter = this.filter({ ...input, cursor: undefined });
    const rows: HistoryRow[] = [];
    let truncated = false;
    for (;;) {
      const page = await auditRows(this.store, scope, filter, AUDIT_MAX_PAGE);
      rows.push(...page);
      if (rows.length >= EXPORT_MAX_ROWS) {
        truncated = rows.length > EXPORT_MAX_ROWS || page.length === AUDIT_MAX_PAGE;
        rows.length = Math.min(rows.length, EXPORT_MAX_ROWS);
        break;
      }
      if (page.length < AUDIT_MAX_PAGE) break;
      filter.before = page[page.length - 1].rv;
    }
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    if (format === 'json') {
      return { filename: `stowage-audit-${stamp}.json`, contentType: 'application/json', content: `${JSON.stringify(rows, null, 2)}\n`, rows: rows.length, truncated };
    }
    const columns = ['time', 'actor', 'action', 'kind', 'namespace', 'name', 'uid', 'resourceVersion', 'change'] as const;
    const content = toCsv(
      columns,
      rows.map((r) => [r.time, r.actor, r.action, r.kind, r.namespace, r.name, r.uid, r.rv, r.type]),
    );
    return { filename: `stowage-audit-${stamp}.csv`, contentType: 'text/csv', content, rows: rows.length, truncated };
  }

  private filter(input: AuditInput): AuditFilter {
    const kind = text('kind', input.kind, 100);
    const action = text('action', input.action, 20);
    if (action && !(ACTIONS as readonly string[]).includes(action)) throw bad(`invalid action "${action}": one of ${ACTIONS.join(', ')}`);
    const cursor = text('cursor', input.cursor, 20);
    if (cursor && (!/^[1-9]\d{0,18}$/.test(cursor) || BigInt(cursor) > MAX_RV)) throw bad('invalid cursor');
    const from = time('from', input.from);
    const to = time('to', input.to);
    if (from && to && from > to) throw bad('"from" is after "to"');
    return {
      actor: text('actor', input.actor, 300),
      namespace: text('namespace', input.namespace),
      kind: kind ? strategyOrThrow(kind).kind : undefined,
      name: text('name', input.name),
      action,
      from,
      to,
      before: cursor,
      heartbeats: input.heartbeats === true,
    };
  }
}

function base(r: Pick<HistoryRowWithObject, 'rv' | 'time' | 'actor' | 'action' | 'type'>) {
  return { rv: r.rv, time: r.time, actor: r.actor, action: r.action, type: r.type };
}

function eventEntry(b: ReturnType<typeof base>, e: Event): TimelineEntry {
  const reason = String(e.reason ?? '');
  const message = String(e.message ?? '');
  const count = Number(e.count ?? 1) || 1;
  return {
    ...b,
    entry: 'event',
    summary: [`${reason}${count > 1 ? ` (×${count})` : ''}`],
    changes: [],
    event: { type: String(e.type ?? 'Normal'), reason, message, count, source: String(e.source?.component ?? e.reportingComponent ?? '') },
  };
}

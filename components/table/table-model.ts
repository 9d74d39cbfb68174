// The rows of a list page: the cells kubectl prints (from each kind's strategy), plus
// what sorting and filtering need. Pure.
import { parseQuantity, quantityToBytes } from '@/server/domain/quantity';
import type { KubeObject, Strategy, TableColumn } from '@/server/resources/types';
import { isKind } from '@/server/resources/of-kind';
import { usedOfRow, type UsedBytes, type UsedView } from '../volumes/used-view';
import { replicaSummaryOf, type ReplicaSummary } from '../volumes/replica-view';

export interface ListColumn {
  /** Upper-case, as kubectl prints it: "ACCESS MODES". */
  header: string;
  /** Index into the strategy's cells; -1 for the NAMESPACE column the dashboard adds, or a label column. */
  index: number;
  def?: TableColumn;
  /** A label column: the label's key (header `label:KEY`). */
  label?: string;
  /** The dashboard's USED column (volumes and claims): used of capacity. */
  used?: true;
  /** The dashboard's REPLICAS column (volumes and claims): a replicated volume's copies. */
  replicas?: true;
}

export interface ListRow {
  key: string;
  obj: KubeObject;
  /** Display text of each visible column, in `columns` order. */
  cells: string[];
  /** Used of capacity, when the row has a USED column and the usage is known. */
  used?: UsedView;
  /** A replicated volume's copies, when the row has a REPLICAS column. */
  replicas?: ReplicaSummary;
}

/** Volumes and claims show how much of them is used, after their capacity. */
const HAS_USED = new Set(['PersistentVolume', 'PersistentVolumeClaim']);
const USED_COLUMN: ListColumn = { header: 'USED', index: -1, used: true };

const REPLICAS_COLUMN: ListColumn = { header: 'REPLICAS', index: -1, replicas: true };

function withUsed(strategy: Strategy, cols: ListColumn[]): ListColumn[] {
  if (!HAS_USED.has(strategy.kind)) return cols;
  const at = cols.findIndex((c) => c.header === 'CAPACITY');
  const used = at === -1 ? [...cols, USED_COLUMN] : [...cols.slice(0, at + 1), USED_COLUMN, ...cols.slice(at + 1)];
  return [...used, REPLICAS_COLUMN];
}

/** A row's replica summary: a volume's from its own annotations, a claim's from its volume's (its page brings them). */
function replicasOfRow(obj: KubeObject, now: Date, claimsReplication: Record<string, Record<string, string>> | undefined): ReplicaSummary {
  if (isKind(obj, 'PersistentVolume')) return replicaSummaryOf(obj.metadata?.annotations, now);
  return replicaSummaryOf(claimsReplication?.[objectKey(obj)], now);
}

export function visibleColumns(strategy: Strategy): ListColumn[] {
  const cols: ListColumn[] = strategy.table.columns
    .map((def, index) => ({ header: def.name.toUpperCase(), index, def }))
    .filter((c) => c.def.priority === 0);
  // Namespaced kinds across namespaces: kubectl -A puts NAMESPACE first.
  if (strategy.namespaced && !cols.some((c) => c.header === 'NAMESPACE')) cols.unshift({ header: 'NAMESPACE', index: -1 });
  return cols;
}

/** Columns shown when the user chose none: kubectl's, less the ones that are nearly always empty. */
const HIDDEN_BY_DEFAULT = new Set(['VOLUMEATTRIBUTESCLASS', 'REASON']);

/** Every column a list can show: kubectl's (with `-o wide`), and NAMESPACE for namespaced kinds. */
export function availableColumns(strategy: Strategy): ListColumn[] {
  const cols: ListColumn[] = strategy.table.columns.map((def, index) => ({ header: def.name.toUpperCase(), index, def }));
  if (strategy.namespaced && !cols.some((c) => c.header === 'NAMESPACE')) cols.unshift({ header: 'NAMESPACE', index: -1 });
  return withUsed(strategy, cols);
}

export function defaultColumnHeaders(strategy: Strategy): string[] {
  return availableColumns(strategy)
    .filter((c) => (c.def ? c.def.priority === 0 : true) && !HIDDEN_BY_DEFAULT.has(c.header))
    .map((c) => c.header);
}

export const LABEL_PREFIX = 'label:';

/** The columns of a choice (headers and `label:KEY`), in the order chosen; NAME always first. */
export function chosenColumns(strategy: Strategy, chosen: string[] | null): ListColumn[] {
  const all = availableColumns(strategy);
  const byHeader = new Map(all.map((c) => [c.header, c]));
  const out: ListColumn[] = [];
  const seen = new Set<string>();
  for (const h of chosen ?? defaultColumnHeaders(strategy)) {
    if (seen.has(h)) continue;
    seen.add(h);
    if (h.startsWith(LABEL_PREFIX) && h.length > LABEL_PREFIX.length) out.push({ header: h, index: -1, label: h.slice(LABEL_PREFIX.length) });
    else if (byHeader.has(h)) out.push(byHeader.get(h)!);
  }
  const name = byHeader.get('NAME');
  if (name && !seen.has('NAME')) out.unshift(name);
  return out;
}

function cellText(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (Array.isArray(v)) return v.join(',');
  return String(v);
}

export function objectKey(obj: KubeObject): string {
  return `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;
}

/**
 * The time ages are counted to: never before the object's own timestamps, so a clock
 * a little behind the server's shows "0s", not `<invalid>`.
 */
export function clampedNow(obj: KubeObject, now: Date): Date {
  let t = now.getTime();
  for (const ts of [obj.metadata?.creationTimestamp, obj.lastTimestamp, obj.eventTime, obj.firstTimestamp]) {
    const v = typeof ts === 'string' ? Date.parse(ts) : NaN;
    if (!Number.isNaN(v) && v > t) t = v;
  }
  return t === now.getTime() ? now : new Date(t);
}

/**
 * `claimsUsed`: a claims page's used bytes by `namespace/name` (volumes carry their own);
 * `claimsReplication`: its volumes' replication annotations, the same way.
 */
export function buildRow(strategy: Strategy, columns: ListColumn[], obj: KubeObject, now: Date, claimsUsed?: Record<string, UsedBytes>, claimsReplication?: Record<string, Record<string, string>>): ListRow {
  let raw: unknown[] = [];
  try {
    raw = strategy.table.row(obj, clampedNow(obj, now));
  } catch {
    raw = [];
  }
  const used = columns.some((c) => c.used) ? usedOfRow(obj, claimsUsed) : undefined;
  const replicas = columns.some((c) => c.replicas) ? replicasOfRow(obj, now, claimsReplication) : undefined;
  const cells = columns.map((c) =>
    c.used
      ? (used?.text ?? '')
      : c.replicas
        ? (replicas?.text ?? '')
        : c.label !== undefined
        ? Object.hasOwn(obj.metadata?.labels ?? {}, c.label)
          ? String(obj.metadata.labels![c.label])
          : ''
        : c.index === -1
          ? (obj.metadata?.namespace ?? '')
          : cellText(raw[c.index]),
  );
  return { key: objectKey(obj), obj, cells, ...(used ? { used } : {}), ...(replicas ? { replicas } : {}) };
}

export function buildRows(strategy: Strategy, columns: ListColumn[], items: KubeObject[], now: Date, claimsUsed?: Record<string, UsedBytes>): ListRow[] {
  return items.map((obj) => buildRow(strategy, columns, obj, now, claimsUsed));
}

type SortValue = string | number | bigint;

function timeOf(ts: unknown): number {
  const t = typeof ts === 'string' ? Date.parse(ts) : NaN;
  return Number.isNaN(t) ? 0 : t;
}

/** What a column sorts by: capacity by bytes, ages by time, counts by number, else text. */
export function sortValue(header: string, cell: string, obj: KubeObject, now: number): SortValue {
  switch (header) {
    case 'AGE':
      return now - timeOf(obj.metadata?.creationTimestamp);
    case 'LAST SEEN':
      return now - timeOf(obj.lastTimestamp ?? obj.eventTime ?? (isKind(obj, 'Event') ? obj.series?.lastObservedTime : undefined) ?? obj.metadata?.creationTimestamp);
    case 'FIRST SEEN':
      return now - timeOf(obj.firstTimestamp ?? obj.eventTime ?? obj.metadata?.creationTimestamp);
    case 'CAPACITY':
    case 'SIZE': {
      const q = cell ? parseQuantity(cell) : undefined;
      return q ? quantityToBytes(q) : -1n;
    }
    case 'USED':
      return usedOfRow(obj, undefined)?.usedBytes ?? -1n;
    case 'COUNT': {
      const n = Number(cell);
      return Number.isFinite(n) ? n : 0;
    }
    default:
      return cell;
  }
}

function compareValues(a: SortValue, b: SortValue): number {
  if (typeof a === 'string' || typeof b === 'string') {
    return String(a).localeCompare(String(b), undefined, { numeric: true, sensitivity: 'base' });
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

export interface SortState {
  header: string;
  dir: 'asc' | 'desc';
}

export function sortRows(rows: ListRow[], columns: ListColumn[], sort: SortState | undefined, now: number): ListRow[] {
  if (!sort) return rows;
  const at = columns.findIndex((c) => c.header === sort.header);
  if (at === -1) return rows;
  const sign = sort.dir === 'asc' ? 1 : -1;
  return rows
    .map((r) => ({ r, v: sortValue(sort.header, r.cells[at], r.obj, now) }))
    .sort((x, y) => sign * compareValues(x.v, y.v) || x.r.key.localeCompare(y.r.key))
    .map((x) => x.r);
}

/** Free text: any cell, or any label (`key=value`), contains the words (case-insensitive). */
export function matchesText(row: ListRow, text: string): boolean {
  const words = text.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const labels = Object.entries(row.obj.metadata?.labels ?? {}).map(([k, v]) => `${k}=${v}`);
  const hay = [...row.cells, ...labels].join('\n').toLowerCase();
  return words.every((w) => hay.includes(w));
}

// What a server-side list page shows, kept in the address bar: text, label selector,
// namespace, status, sort and the chosen columns. Pure: URL parameters in, a page
// request out, and the client-side rules (does a live object belong here, and where
// does it sort) that mirror the server's SQL.
import { matchesSelector, parseLabelSelector, type Selector } from '@/server/domain/label-selector';
import { parseQuantity, quantityToBytes } from '@/server/domain/quantity';
import type { KubeObject } from '@/server/resources/types';
import type { PersistentVolume } from '@/server/resources/persistent-volume/schema';
import type { PersistentVolumeClaim } from '@/server/resources/persistent-volume-claim/schema';
import { phaseOf, type KindUi } from '../objects/kinds';
import { isKind } from '@/server/resources/of-kind';
import { usageOf } from '@/server/domain/volume-usage';
import { pendingKindOf, type PendingKind } from '@/server/domain/claim-waiting';

/** The claims list's two kinds of Pending, as status filter values (URL ?status=...). */
export const PENDING_STATUS: Record<string, PendingKind> = { WaitingForPod: 'waiting', Stuck: 'stuck' };
export const PENDING_STATUS_OPTIONS = [
  { value: 'WaitingForPod', label: 'Pending: waiting for a pod' },
  { value: 'Stuck', label: 'Pending: stuck' },
];

export type SortKey = 'name' | 'namespace' | 'age' | 'phase' | 'storageClass' | 'capacity' | 'claim' | 'volume' | 'node' | 'accessModes' | 'volumeMode' | 'used';

/** The kinds whose list pages are paged, sorted and filtered by the server. */
export const SERVER_LISTED: ReadonlySet<string> = new Set(['PersistentVolume', 'PersistentVolumeClaim', 'StorageClass', 'Namespace']);

/** Columns (as kubectl heads them) the server can sort by. */
export const SORT_KEY_OF_HEADER: Record<string, SortKey> = {
  NAME: 'name',
  NAMESPACE: 'namespace',
  AGE: 'age',
  STATUS: 'phase',
  CAPACITY: 'capacity',
  STORAGECLASS: 'storageClass',
  CLAIM: 'claim',
  VOLUME: 'volume',
  'ACCESS MODES': 'accessModes',
  VOLUMEMODE: 'volumeMode',
  USED: 'used',
};

export interface ListState {
  text: string;
  selector: string;
  namespace: string | null;
  status: string | null;
  sort: { header: string; dir: 'asc' | 'desc' };
  /** Chosen columns (headers, and `label:KEY` for label columns); null: the defaults. */
  columns: string[] | null;
}

export function defaultListState(_ui: KindUi): ListState {
  return { text: '', selector: '', namespace: null, status: null, sort: { header: 'NAME', dir: 'asc' }, columns: null };
}

interface Params {
  get(key: string): string | null;
}

export function stateFromParams(params: Params, ui: KindUi): ListState {
  const d = defaultListState(ui);
  const sortParam = params.get('sort') ?? '';
  const m = /^(-)?(.+)$/.exec(sortParam);
  const header = m && Object.hasOwn(SORT_KEY_OF_HEADER, m[2].toUpperCase()) ? m[2].toUpperCase() : d.sort.header;
  const cols = params.get('cols');
  return {
    text: (params.get('q') ?? '').slice(0, 200),
    selector: (params.get('selector') ?? '').slice(0, 4096),
    namespace: ui.namespaced ? params.get('namespace') || null : null,
    status: params.get('status') || null,
    sort: { header, dir: m?.[1] ? 'desc' : 'asc' },
    columns: cols === null ? null : cols.split(',').filter(Boolean).slice(0, 40),
  };
}

/** The address-bar parameters of a state (defaults left out). */
export function stateToParams(s: ListState): Record<string, string> {
  const out: Record<string, string> = {};
  if (s.text) out.q = s.text;
  if (s.selector) out.selector = s.selector;
  if (s.namespace) out.namespace = s.namespace;
  if (s.status) out.status = s.status;
  if (s.sort.header !== 'NAME' || s.sort.dir !== 'asc') out.sort = `${s.sort.dir === 'desc' ? '-' : ''}${s.sort.header.toLowerCase()}`;
  if (s.columns) out.cols = s.columns.join(',');
  return out;
}

export function selectorError(s: string): string | undefined {
  if (!s.trim()) return undefined;
  try {
    parseLabelSelector(s);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

export interface PageRequest {
  kind: string;
  namespace?: string;
  labelSelector?: string;
  fields?: { phase?: string[] };
  text?: string;
  pending?: PendingKind;
  sort: { key: SortKey; dir: 'asc' | 'desc' };
}

/** The server request for a state (an invalid selector is left out until it is fixed). */
export function pageRequest(s: ListState, ui: KindUi): PageRequest {
  const req: PageRequest = { kind: ui.kind, sort: { key: SORT_KEY_OF_HEADER[s.sort.header] ?? 'name', dir: s.sort.dir } };
  if (ui.namespaced && s.namespace) req.namespace = s.namespace;
  if (s.selector.trim() && !selectorError(s.selector)) req.labelSelector = s.selector.trim();
  if (s.status && ui.kind === 'PersistentVolumeClaim' && PENDING_STATUS[s.status]) req.pending = PENDING_STATUS[s.status];
  else if (s.status) req.fields = { phase: [s.status] };
  if (s.text.trim()) req.text = s.text.trim();
  return req;
}

/** Does a live object belong in the list of this request? Mirrors the server's WHERE. */
export function matchesRequest(o: KubeObject, req: PageRequest, selector?: Selector): boolean {
  if (o.kind !== req.kind) return false;
  if (req.namespace && o.metadata.namespace !== req.namespace) return false;
  const phase = phaseOf(o);
  if (req.fields?.phase && !req.fields.phase.includes(phase ?? '')) return false;
  if (req.pending && (!isKind(o, 'PersistentVolumeClaim') || o.metadata.deletionTimestamp || pendingKindOf(o) !== req.pending)) return false;
  if (req.labelSelector && !matchesSelector(selector ?? parseLabelSelector(req.labelSelector), o.metadata.labels)) return false;
  if (req.text) {
    const hay = [o.metadata.name, o.metadata.namespace, JSON.stringify(o.metadata.labels ?? {}), phase, classOf(o)].join('\n').toLowerCase();
    if (!req.text.toLowerCase().split(/\s+/).every((w) => hay.includes(w))) return false;
  }
  return true;
}

/** Volumes and claims: the kinds whose spec names a class, a size, access modes and a volume mode. */
function isVolumeOrClaim(o: KubeObject): o is PersistentVolume | PersistentVolumeClaim {
  return isKind(o, 'PersistentVolume') || isKind(o, 'PersistentVolumeClaim');
}

function classOf(o: KubeObject): string | undefined {
  return isVolumeOrClaim(o) ? o.spec?.storageClassName : undefined;
}

const MODE_BITS: Record<string, number> = { ReadWriteOnce: 1, ReadOnlyMany: 2, ReadWriteMany: 4, ReadWriteOncePod: 8 };

function bytesOf(q: unknown): bigint | null {
  const p = typeof q === 'string' ? parseQuantity(q) : undefined;
  return p ? quantityToBytes(p) : null;
}

/** A claim's used bytes as its list knows them (its volume's, brought with the page). */
export type UsedLookup = (o: KubeObject) => bigint | undefined;

/** The value a server sort key reads from an object (null where its column is NULL). */
export function sortValue(o: KubeObject, key: SortKey, usedOf?: UsedLookup): string | number | bigint | null {
  switch (key) {
    case 'used': {
      const u = isKind(o, 'PersistentVolume') ? usageOf(o)?.bytes : usedOf?.(o);
      return u ?? null;
    }
    case 'name':
      return o.metadata.name ?? '';
    case 'namespace':
      return o.metadata.namespace ?? '';
    case 'age':
      return Date.parse(o.metadata.creationTimestamp ?? '') || 0;
    case 'phase':
      return phaseOf(o) ?? null;
    case 'storageClass':
      return classOf(o) ?? null;
    case 'capacity':
      return isKind(o, 'PersistentVolume') ? bytesOf(o.spec?.capacity?.storage) : isKind(o, 'PersistentVolumeClaim') ? bytesOf(o.spec?.resources?.requests?.storage) : null;
    case 'claim': {
      const r = isKind(o, 'PersistentVolume') ? o.spec?.claimRef : undefined;
      return r ? `${r.namespace ?? ''}\u0000${r.name ?? ''}` : null;
    }
    case 'volume':
      return (isKind(o, 'PersistentVolumeClaim') ? o.spec?.volumeName : undefined) || null;
    case 'node':
      return null;
    case 'accessModes':
      return ((isVolumeOrClaim(o) ? o.spec?.accessModes : undefined) ?? []).reduce((n, m) => n | (MODE_BITS[m] ?? 0), 0) || null;
    case 'volumeMode':
      return (isVolumeOrClaim(o) ? o.spec?.volumeMode : undefined) ?? null;
  }
}

/** Byte-wise, like the server's COLLATE "C". */
function cmp(a: string | number | bigint, b: string | number | bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The server's ORDER BY as a comparator: the key (NULLs smallest), then namespace, name. */
export function compareFor(sort: { key: SortKey; dir: 'asc' | 'desc' }, usedOf?: UsedLookup): (a: KubeObject, b: KubeObject) => number {
  const sign = sort.dir === 'desc' ? -1 : 1;
  return (a, b) => {
    const va = sortValue(a, sort.key, usedOf);
    const vb = sortValue(b, sort.key, usedOf);
    let c = va === null ? (vb === null ? 0 : -1) : vb === null ? 1 : cmp(va, vb);
    if (c === 0 && sort.key !== 'namespace') c = cmp(a.metadata.namespace ?? '', b.metadata.namespace ?? '');
    if (c === 0) c = cmp(a.metadata.name ?? '', b.metadata.name ?? '');
    return sign * c;
  };
}

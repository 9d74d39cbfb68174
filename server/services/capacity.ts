// The Capacity page and the home page's capacity warnings: sums per class, node and
// namespace, the trend per class with "days until full", "days until the quota is full" per
// namespace, quotas near full and wipes in progress, each limited to what the principal may
// read.
import { isAllowed, visibleNamespaces, type Principal } from '../domain/authorization';
import { forecastFull, forecastQuotaFull, soonerFirst, storageLimits, type Forecast } from '../domain/capacity-forecast';
import { bucketsFor, seriesFromChanges, type BucketChange, type SeriesPoint, type Totals } from '../domain/capacity-series';
import { limitsNearFull, type LimitPressure } from '../domain/quota-pressure';
import { CleanupJobStore } from '../store/cleanup-jobs';
import {
  boundVolumesByNamespace,
  claimsByNamespace,
  currentBytesByClass,
  firstHistoryTime,
  historyDeltas,
  nearlyFullVolumes,
  usedBytesSums,
  volumesByNode,
} from '../store/capacity-queries';
import { usedPercent } from '../domain/nearly-full';
import { SettingsService } from './settings';
import { countByPhaseAndClass } from '../store/object-page';
import type { ObjectStore } from '../store/object-store';
import { ofKind } from '../resources/of-kind';
import { noProvisioner } from '../domain/well-known/provisioners';

export interface VolumeSums {
  volumes: number;
  /** Sum of the volumes' capacity, bytes (decimal string). */
  provisionedBytes: string;
  boundBytes: string;
  /** Available volumes' capacity: what a claim could still bind to. */
  freeBytes: string;
  /** Bytes written on the volumes: null while no agent or plugin reports it. */
  usedBytes: string | null;
}

export interface ClassRow extends VolumeSums {
  storageClass: string;
  claims: number;
  requestedBytes: string;
}

export interface NodeRow extends VolumeSums {
  nodeName: string;
}

export interface NamespaceRow {
  namespace: string;
  claims: number;
  pendingClaims: number;
  requestedBytes: string;
  boundVolumes: number;
  /** Capacity of the volumes bound to the namespace's claims. */
  boundBytes: string;
  usedBytes: string | null;
}

export interface CapacityOverview {
  /** Whether volume and node figures are included (developers see their claims only). */
  seeVolumes: boolean;
  classes: ClassRow[];
  nodes: NodeRow[];
  namespaces: NamespaceRow[];
}

export interface TrendPoint {
  /** ISO time of the end of the bucket. */
  t: string;
  provisionedBytes: string;
  boundBytes: string;
  requestedBytes: string;
}

export interface ClassTrend {
  storageClass: string;
  points: TrendPoint[];
  /** When bound bytes reach the provisioned capacity (unknown for readers who cannot see volumes). */
  forecast: Forecast;
}

export interface CapacityTrend {
  from: string;
  stepMs: number;
  classes: ClassTrend[];
}

export interface QuotaLimitForecast {
  /** The ResourceQuota's name (in the row's namespace). */
  quota: string;
  /** requests.storage, or <class>.storageclass.storage.k8s.io/requests.storage. */
  resource: string;
  hardBytes: string;
  /** What the namespace's claims (of the limit's class) request now. */
  requestedBytes: string;
  forecast: Forecast;
}

export interface NamespaceQuotaForecast {
  namespace: string;
  /** Every storage limit of the namespace's quotas, the soonest full first. */
  limits: QuotaLimitForecast[];
}

/** A claim past the "nearly full" threshold (volume name for those who may list volumes). */
export interface ClaimNearlyFull {
  namespace: string;
  name: string;
  volume?: string;
  usedBytes: string;
  capacityBytes: string;
  /** Whole percent, rounded down. */
  percent: number;
}

export interface QuotaNearFull {
  namespace: string;
  name: string;
  limits: LimitPressure[];
}

export interface WipesInProgress {
  nodeName: string;
  running: number;
  queued: number;
}

const add = (a: string, b: string | bigint) => (BigInt(a) + BigInt(b)).toString();
const emptySums = (): VolumeSums => ({ volumes: 0, provisionedBytes: '0', boundBytes: '0', freeBytes: '0', usedBytes: null });
const MAX_QUOTAS = 1000;
const HOUR_MS = 3600 * 1000;
const DAY_MS = 24 * HOUR_MS;

export class CapacityService {
  constructor(
    readonly store: ObjectStore,
    private readonly settings: SettingsService = new SettingsService(store),
  ) {}

  private scope(p: Principal) {
    const claimNs = visibleNamespaces(p, 'list', 'PersistentVolumeClaim');
    return { seeVolumes: isAllowed(p, 'list', 'PersistentVolume'), namespaces: claimNs === 'all' ? undefined : claimNs };
  }

  async overview(p: Principal): Promise<CapacityOverview> {
    const { seeVolumes, namespaces } = this.scope(p);
    const kinds = seeVolumes ? ['PersistentVolume', 'PersistentVolumeClaim'] : ['PersistentVolumeClaim'];
    const [classRows, nodeRows, claimRows, boundRows, usedRows] = await Promise.all([
      countByPhaseAndClass(this.store, kinds, namespaces),
      seeVolumes ? volumesByNode(this.store) : Promise.resolve([]),
      claimsByNamespace(this.store, namespaces),
      boundVolumesByNamespace(this.store, namespaces),
      usedBytesSums(this.store),
    ]);

    const classes = new Map<string, ClassRow>();
    for (const r of classRows) {
      const cls = r.storageClass ?? '';
      const c = classes.get(cls) ?? { storageClass: cls, ...emptySums(), claims: 0, requestedBytes: '0' };
      if (r.kind === 'PersistentVolume') addVolumes(c, r.phase, r.count, r.bytes);
      else {
        c.claims += r.count;
        c.requestedBytes = add(c.requestedBytes, r.bytes);
      }
      classes.set(cls, c);
    }

    const nodes = new Map<string, NodeRow>();
    for (const r of nodeRows) {
      const n = nodes.get(r.nodeName) ?? { nodeName: r.nodeName, ...emptySums() };
      addVolumes(n, r.phase, r.count, r.bytes);
      nodes.set(r.nodeName, n);
    }

    const spaces = new Map<string, NamespaceRow>();
    const ns = (name: string) => {
      const x = spaces.get(name) ?? { namespace: name, claims: 0, pendingClaims: 0, requestedBytes: '0', boundVolumes: 0, boundBytes: '0', usedBytes: null };
      spaces.set(name, x);
      return x;
    };
    for (const r of claimRows) {
      const x = ns(r.namespace);
      x.claims += r.count;
      if (r.phase === 'Pending' || r.phase === null) x.pendingClaims += r.count;
      x.requestedBytes = add(x.requestedBytes, r.requestedBytes);
    }
    for (const r of boundRows) {
      const x = ns(r.namespace);
      x.boundVolumes += r.count;
      x.boundBytes = add(x.boundBytes, r.bytes);
    }

    // Used bytes where volumes report them (a developer: their namespaces' claims only).
    for (const u of usedRows) {
      const row = u.by === 'class' ? (seeVolumes ? classes.get(u.key) : undefined) : u.by === 'node' ? nodes.get(u.key) : spaces.get(u.key);
      if (row) row.usedBytes = u.usedBytes;
    }

    const byName = <T>(m: Map<string, T>) => [...m.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, v]) => v);
    return { seeVolumes, classes: byName(classes), nodes: byName(nodes), namespaces: byName(spaces) };
  }

  /** The classes whose provisioner makes their volumes (not `kubernetes.io/no-provisioner`). */
  private async dynamicClasses(): Promise<Set<string>> {
    const classes = ofKind((await this.store.list('StorageClass')).items, 'StorageClass');
    return new Set(classes.filter((c) => c.provisioner && c.provisioner !== noProvisioner).map((c) => c.metadata.name ?? ''));
  }

  /** Provisioned, bound and requested bytes per class over (at most) the last `days` days. */
  async trend(p: Principal, days = 30, now = Date.now()): Promise<CapacityTrend> {
    const { seeVolumes, namespaces } = this.scope(p);
    const kinds = seeVolumes ? ['PersistentVolume', 'PersistentVolumeClaim'] : ['PersistentVolumeClaim'];
    const oldest = await firstHistoryTime(this.store, kinds, new Date(now - days * 24 * 3600 * 1000));
    const b = bucketsFor(now, oldest?.getTime(), days, true);
    const [current, deltas] = await Promise.all([
      currentBytesByClass(this.store, kinds, namespaces),
      historyDeltas(this.store, { kinds, from: new Date(b.from), stepMs: b.stepMs, namespaces }),
    ]);
    const key = (kind: string, cls: string) => `${kind}\u0000${cls}`;
    const cur = new Map<string, Totals>();
    for (const r of current) {
      const k = key(r.kind, r.storageClass);
      const x = cur.get(k) ?? { total: 0n, bound: 0n };
      cur.set(k, { total: x.total + BigInt(r.bytes), bound: x.bound + (r.bound ? BigInt(r.bytes) : 0n) });
    }
    const series = seriesFromChanges(
      b,
      now,
      cur,
      deltas.map((d) => ({ key: key(d.kind, d.storageClass), bucket: d.bucket, total: BigInt(d.total), bound: BigInt(d.bound) })),
    );
    const classNames = new Set([...series.keys()].map((k) => k.split('\u0000')[1]));
    const dynamic = await this.dynamicClasses();
    const classes: ClassTrend[] = [...classNames].sort().map((cls) => {
      const pv = series.get(key('PersistentVolume', cls));
      const pvc = series.get(key('PersistentVolumeClaim', cls));
      const len = (pv ?? pvc)!.length;
      const points: TrendPoint[] = Array.from({ length: len }, (_, i) => ({
        t: new Date((pv ?? pvc)![i].t).toISOString(),
        provisionedBytes: (pv?.[i].total ?? 0n).toString(),
        boundBytes: (pv?.[i].bound ?? 0n).toString(),
        requestedBytes: (pvc?.[i].total ?? 0n).toString(),
      }));
      const forecast: Forecast = seeVolumes
        ? forecastFull((pv ?? []).map((x) => ({ t: x.t, provisioned: Number(x.total), bound: Number(x.bound) })), { dynamic: dynamic.has(cls) })
        : { state: 'unknown', reason: 'volumes are not visible to you' };
      return { storageClass: cls, points, forecast };
    });
    return { from: new Date(b.from).toISOString(), stepMs: b.stepMs, classes };
  }

  /**
   * "Days until the quota is full" for every storage limit of the quotas of the namespaces
   * whose quotas and claims the principal may read: the trend of the namespace's requested
   * bytes (all claims, or the limit's class) projected to the limit. Each namespace's trend
   * is read from that namespace's history rows only, so nothing outside it (no cluster
   * totals, no other namespace's history age) shapes what a developer sees.
   */
  async quotaForecasts(p: Principal, days = 30, now = Date.now()): Promise<NamespaceQuotaForecast[]> {
    const claimNs = visibleNamespaces(p, 'list', 'PersistentVolumeClaim');
    const readable = (ns: string) => claimNs === 'all' || claimNs.includes(ns);
    const byNs = new Map<string, { quota: string; limits: ReturnType<typeof storageLimits> }[]>();
    for (const q of await this.visibleQuotas(p)) {
      const ns = q.metadata.namespace ?? '';
      const limits = storageLimits(q.spec?.hard);
      if (!limits.length || !readable(ns)) continue;
      byNs.set(ns, [...(byNs.get(ns) ?? []), { quota: q.metadata.name ?? '', limits }]);
    }
    const out = await Promise.all(
      [...byNs.entries()].map(async ([namespace, quotas]): Promise<NamespaceQuotaForecast> => {
        const classes = quotas.flatMap((q) => q.limits.flatMap((l) => (l.storageClass === undefined ? [] : [l.storageClass])));
        const series = await this.requestedSeries(namespace, classes, days, now);
        const limits = quotas.flatMap(({ quota, limits }) =>
          limits.map((l): QuotaLimitForecast => {
            const s = requestedOf(series, l.storageClass);
            return {
              quota,
              resource: l.resource,
              hardBytes: l.hardBytes.toString(),
              requestedBytes: (s.at(-1)?.total ?? 0n).toString(),
              forecast: forecastQuotaFull(
                s.map((x) => ({ t: x.t, requested: Number(x.total) })),
                Number(l.hardBytes),
              ),
            };
          }),
        );
        limits.sort((a, b) => soonerFirst(a.forecast, b.forecast) || `${a.quota}/${a.resource}`.localeCompare(`${b.quota}/${b.resource}`));
        return { namespace, limits };
      }),
    );
    return out.sort((a, b) => a.namespace.localeCompare(b.namespace));
  }

  /**
   * Requested bytes per class of one namespace's claims over (at most) the last `days` days:
   * hourly changes from the namespace's own history rows, whose first change picks the
   * buckets (as bucketsFor does for the cluster), summed into those buckets. `classes` (and
   * '') always have a series, zero where no claim of theirs was seen.
   */
  private async requestedSeries(namespace: string, classes: string[], days: number, now: number): Promise<Map<string, SeriesPoint[]>> {
    const kinds = ['PersistentVolumeClaim'];
    const window = Math.floor((now - days * DAY_MS) / DAY_MS) * DAY_MS;
    const [current, hourly] = await Promise.all([
      currentBytesByClass(this.store, kinds, [namespace]),
      historyDeltas(this.store, { kinds, from: new Date(window), stepMs: HOUR_MS, namespaces: [namespace] }),
    ]);
    // No change in the window: the requests were flat all of it.
    const first = hourly.length ? window + Math.min(...hourly.map((d) => d.bucket)) * HOUR_MS : now - days * DAY_MS;
    const b = bucketsFor(now, first, days);
    const cur = new Map<string, Totals>(['', ...classes].map((c) => [c, { total: 0n, bound: 0n }]));
    for (const r of current) {
      const x = cur.get(r.storageClass) ?? { total: 0n, bound: 0n };
      cur.set(r.storageClass, { total: x.total + BigInt(r.bytes), bound: 0n });
    }
    return seriesFromChanges(b, now, cur, coarsen(hourly, window, b));
  }

  /** ResourceQuotas of the namespaces the principal may read whose storage limits are ≥ 80% used. */
  async quotasNearFull(p: Principal, threshold = 0.8): Promise<QuotaNearFull[]> {
    const out: QuotaNearFull[] = [];
    for (const q of await this.visibleQuotas(p)) {
      const limits = limitsNearFull(q.spec?.hard ?? {}, q.status?.used ?? {}, threshold);
      if (limits.length) out.push({ namespace: q.metadata.namespace ?? '', name: q.metadata.name ?? '', limits });
    }
    return out.sort((a, b) => b.limits[0].ratio - a.limits[0].ratio || `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`));
  }

  private async visibleQuotas(p: Principal) {
    const visible = visibleNamespaces(p, 'list', 'ResourceQuota');
    const lists = visible === 'all' ? [await this.store.list('ResourceQuota', { limit: MAX_QUOTAS })] : await Promise.all(visible.map((namespace) => this.store.list('ResourceQuota', { namespace, limit: MAX_QUOTAS })));
    return ofKind(lists.flatMap((l) => l.items), 'ResourceQuota');
  }

  /**
   * Claims whose volume's used bytes reach the "nearly full" threshold (the setting, else
   * STOWAGE_NEARLY_FULL_PERCENT, else 90%), fullest first: every claim for those who may
   * list claims everywhere, a developer's namespaces' only.
   */
  async claimsNearlyFull(p: Principal, limit = 50): Promise<{ thresholdPercent: number; claims: ClaimNearlyFull[] }> {
    const visible = visibleNamespaces(p, 'list', 'PersistentVolumeClaim');
    const thresholdPercent = await this.settings.nearlyFullPercent();
    if (visible !== 'all' && visible.length === 0) return { thresholdPercent, claims: [] };
    const rows = await nearlyFullVolumes(this.store, thresholdPercent, limit, visible === 'all' ? undefined : visible);
    const seeVolumes = isAllowed(p, 'list', 'PersistentVolume');
    return {
      thresholdPercent,
      claims: rows.map((r) => ({
        namespace: r.claimNamespace,
        name: r.claimName,
        ...(seeVolumes ? { volume: r.volume } : {}),
        usedBytes: r.usedBytes,
        capacityBytes: r.capacityBytes,
        percent: usedPercent(BigInt(r.usedBytes), BigInt(r.capacityBytes)),
      })),
    };
  }

  /** Local-volume wipes queued or running, per node (for those who may read nodes). */
  async wipesInProgress(p: Principal): Promise<WipesInProgress[] | null> {
    if (!isAllowed(p, 'list', 'Node')) return null;
    const counts = await new CleanupJobStore(this.store).openCounts();
    const nodes = new Map<string, WipesInProgress>();
    for (const c of counts) {
      if (c.state !== 'running' && c.state !== 'queued') continue;
      const n = nodes.get(c.nodeName) ?? { nodeName: c.nodeName, running: 0, queued: 0 };
      n[c.state] += c.count;
      nodes.set(c.nodeName, n);
    }
    return [...nodes.values()].sort((a, b) => a.nodeName.localeCompare(b.nodeName));
  }
}

function addVolumes(s: VolumeSums, phase: string | null, count: number, bytes: string) {
  s.volumes += count;
  s.provisionedBytes = add(s.provisionedBytes, bytes);
  if (phase === 'Bound') s.boundBytes = add(s.boundBytes, bytes);
  if (phase === 'Available') s.freeBytes = add(s.freeBytes, bytes);
}

/** Hourly changes (bucket i starts at `from` + i hours) moved into the buckets of `b`; those before `b.from` are in its first value already. */
function coarsen(hourly: { storageClass: string; bucket: number; total: string }[], from: number, b: { from: number; stepMs: number }): BucketChange[] {
  return hourly
    .map((d) => ({ key: d.storageClass, bucket: Math.floor((from + d.bucket * HOUR_MS - b.from) / b.stepMs), total: BigInt(d.total), bound: 0n }))
    .filter((d) => d.bucket >= 0);
}

/** The requested bytes a limit counts: one class's series, or every class's summed. */
function requestedOf(series: Map<string, SeriesPoint[]>, storageClass: string | undefined): SeriesPoint[] {
  if (storageClass !== undefined) return series.get(storageClass) ?? [];
  return [...series.values()].reduce((sum, s) => sum.map((x, i) => ({ ...x, total: x.total + s[i].total })));
}

// "Days until the quota is full": for every storage limit of the quotas a principal may
// read, the trend of the namespace's requested bytes (all claims, or the limit's class)
// projected to the limit (domain/capacity-forecast.ts), from that namespace's own history.
import { visibleNamespaces, type Principal } from '../domain/authorization';
import { forecastQuotaFull, soonerFirst, storageLimits, type Forecast } from '../domain/capacity-forecast';
import { bucketsFor, seriesFromChanges, type BucketChange, type SeriesPoint, type Totals } from '../domain/capacity-series';
import type { ResourceQuota } from '../resources/resource-quota/schema';
import { currentBytesByClass, historyDeltas } from '../store/capacity-queries';
import type { ObjectStore } from '../store/object-store';

const HOUR_MS = 3600 * 1000;
const DAY_MS = 24 * HOUR_MS;

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

/**
 * "Days until the quota is full" for every storage limit of the quotas of the namespaces
 * whose quotas and claims the principal may read: the trend of the namespace's requested
 * bytes (all claims, or the limit's class) projected to the limit. Each namespace's trend
 * is read from that namespace's history rows only, so nothing outside it (no cluster
 * totals, no other namespace's history age) shapes what a developer sees.
 * `readableQuotas`: the ResourceQuotas `p` may read.
 */
export async function namespaceQuotaForecasts(store: ObjectStore, p: Principal, readableQuotas: ResourceQuota[], days: number, now: number): Promise<NamespaceQuotaForecast[]> {
  const claimNs = visibleNamespaces(p, 'list', 'PersistentVolumeClaim');
  const readable = (ns: string) => claimNs === 'all' || claimNs.includes(ns);
  const byNs = new Map<string, { quota: string; limits: ReturnType<typeof storageLimits> }[]>();
  for (const q of readableQuotas) {
    const ns = q.metadata.namespace ?? '';
    const limits = storageLimits(q.spec?.hard);
    if (!limits.length || !readable(ns)) continue;
    byNs.set(ns, [...(byNs.get(ns) ?? []), { quota: q.metadata.name ?? '', limits }]);
  }
  const out = await Promise.all(
    [...byNs.entries()].map(async ([namespace, quotas]): Promise<NamespaceQuotaForecast> => {
      const classes = quotas.flatMap((q) => q.limits.flatMap((l) => (l.storageClass === undefined ? [] : [l.storageClass])));
      const series = await requestedSeries(store, namespace, classes, days, now);
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
async function requestedSeries(store: ObjectStore, namespace: string, classes: string[], days: number, now: number): Promise<Map<string, SeriesPoint[]>> {
  const kinds = ['PersistentVolumeClaim'];
  const window = Math.floor((now - days * DAY_MS) / DAY_MS) * DAY_MS;
  const [current, hourly] = await Promise.all([
    currentBytesByClass(store, kinds, [namespace]),
    historyDeltas(store, { kinds, from: new Date(window), stepMs: HOUR_MS, namespaces: [namespace] }),
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

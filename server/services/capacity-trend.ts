// The Capacity page's trend: provisioned, bound and requested bytes per class over the
// last days, from the current sums and the history's changes, with "days until full" per
// class (domain/capacity-forecast.ts).
import { forecastFull, type Forecast } from '../domain/capacity-forecast';
import { bucketsFor, seriesFromChanges, type Totals } from '../domain/capacity-series';
import { noProvisioner } from '../domain/well-known/provisioners';
import { ofKind } from '../resources/of-kind';
import { currentBytesByClass, firstHistoryTime, historyDeltas } from '../store/capacity-queries';
import type { ObjectStore } from '../store/object-store';

/** What a principal may see of capacity: volumes (and nodes) or not; claims of these namespaces (undefined: all). */
export interface CapacityScope {
  seeVolumes: boolean;
  namespaces: string[] | undefined;
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

/** The classes whose provisioner makes their volumes (not `kubernetes.io/no-provisioner`). */
async function dynamicClasses(store: ObjectStore): Promise<Set<string>> {
  const classes = ofKind((await store.list('StorageClass')).items, 'StorageClass');
  return new Set(classes.filter((c) => c.provisioner && c.provisioner !== noProvisioner).map((c) => c.metadata.name ?? ''));
}

/** Provisioned, bound and requested bytes per class over (at most) the last `days` days. */
export async function capacityTrend(store: ObjectStore, scope: CapacityScope, days: number, now: number): Promise<CapacityTrend> {
  const { seeVolumes, namespaces } = scope;
  const kinds = seeVolumes ? ['PersistentVolume', 'PersistentVolumeClaim'] : ['PersistentVolumeClaim'];
  const oldest = await firstHistoryTime(store, kinds, new Date(now - days * 24 * 3600 * 1000));
  const b = bucketsFor(now, oldest?.getTime(), days, true);
  const [current, deltas] = await Promise.all([
    currentBytesByClass(store, kinds, namespaces),
    historyDeltas(store, { kinds, from: new Date(b.from), stepMs: b.stepMs, namespaces }),
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
  const dynamic = await dynamicClasses(store);
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

// The Capacity page and the home page's capacity warnings: sums per class, node and
// namespace, the trend per class with "days until full", "days until the quota is full" per
// namespace, quotas near full and wipes in progress, each limited to what the principal may
// read. The trend per class is capacity-trend.ts; the quota forecasts, quota-forecast.ts.
import { isAllowed, visibleNamespaces, type Principal } from '../domain/authorization';
import { limitsNearFull, type LimitPressure } from '../domain/quota-pressure';
import { CleanupJobStore } from '../store/cleanup-jobs';
import { boundVolumesByNamespace, claimsByNamespace, nearlyFullVolumes, usedBytesSums, volumesByNode } from '../store/capacity-queries';
import { usedPercent } from '../domain/nearly-full';
import { SettingsService } from './settings';
import { countByPhaseAndClass } from '../store/object-page';
import type { ObjectStore } from '../store/object-store';
import { ofKind } from '../resources/of-kind';
import { capacityTrend, type CapacityScope, type CapacityTrend } from './capacity-trend';
import { namespaceQuotaForecasts, type NamespaceQuotaForecast } from './quota-forecast';

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

export class CapacityService {
  constructor(
    readonly store: ObjectStore,
    private readonly settings: SettingsService = new SettingsService(store),
  ) {}

  private scope(p: Principal): CapacityScope {
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

  /** Provisioned, bound and requested bytes per class over (at most) the last `days` days. */
  async trend(p: Principal, days = 30, now = Date.now()): Promise<CapacityTrend> {
    return capacityTrend(this.store, this.scope(p), days, now);
  }

  /** "Days until the quota is full" for every storage limit of the quotas `p` may read (quota-forecast.ts). */
  async quotaForecasts(p: Principal, days = 30, now = Date.now()): Promise<NamespaceQuotaForecast[]> {
    return namespaceQuotaForecasts(this.store, p, await this.visibleQuotas(p), days, now);
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

// Used bytes of the volumes the in-tree plugins made on this node (host-path: statfs of a
// mount point, else a bounded walk of the directory), written on the PV as annotations
// (domain/volume-usage.ts) so that the claim page can show them without Prometheus.
// Never a write storm: each volume is measured at most every `minIntervalMs`, and written
// only when the number changed; the watch enqueues only newly added volumes (its own
// annotation writes do not feed back), the periodic resync does the rest.
import { annDynamicallyProvisioned } from '../../domain/well-known/annotations';
import { usageOf, usageUpdate, withUsage } from '../../domain/volume-usage';
import type { UsageBudget } from '../../provisioners/os';
import type { ChangeEvent } from '../../store/change-feed';
import { write } from '../runtime/write';
import type { ProvisioningDeps } from '../provisioner/deps';
import type { ControllerSpec, ReconcileContext } from '../runtime/controller';

const PV = 'PersistentVolume';
export const volumeUsageName = 'volume-usage';

export interface VolumeUsageOptions {
  /** The least time between two writes of one volume's usage (ms, default 60 s). */
  minIntervalMs?: number;
  /** How often every volume is looked at (ms, default 60 s). */
  resyncMs?: number;
  /** The most one measurement may cost (default 2 s or 200,000 entries). */
  budget?: UsageBudget;
  now?: () => number;
}

export type VolumeUsageDeps = Pick<ProvisioningDeps, 'store' | 'plugins' | 'assets' | 'node'>;
export type UsageOutcome = 'written' | 'unchanged' | 'recent' | 'not-measured';

/** Measures one volume and writes its usage when due and changed. */
export async function syncVolumeUsage(d: VolumeUsageDeps, ctx: ReconcileContext, name: string, o: VolumeUsageOptions = {}): Promise<UsageOutcome> {
  const minInterval = o.minIntervalMs ?? 60_000;
  const now = o.now ?? Date.now;
  const pv = await d.store.tryGet(PV, undefined, name);
  if (!pv || pv.metadata.deletionTimestamp) return 'not-measured';
  const plugin = d.plugins.get(pv.metadata.annotations?.[annDynamicallyProvisioned] ?? '');
  if (!plugin?.usage) return 'not-measured';
  // Not even measured while the last write is young: a walk is the expensive part.
  const prev = usageOf(pv);
  if (prev) {
    const age = now() - Date.parse(prev.at);
    if (age >= 0 && age < minInterval) return 'recent';
  }
  const measured = await plugin.usage(pv, o.budget ?? { ms: 2000, entries: 200_000 });
  if (!measured) return 'not-measured';
  if (!usageUpdate(pv, measured, now(), minInterval)) return 'unchanged';
  return write(d, ctx, async (tx) => {
    const fresh = await tx.get(PV, undefined, name);
    if (!fresh || fresh.metadata.deletionTimestamp) return 'not-measured';
    const update = usageUpdate(fresh, measured, now(), minInterval);
    if (!update) return 'unchanged';
    fresh.metadata.annotations = withUsage(fresh.metadata.annotations, update);
    await tx.update(fresh);
    return 'written';
  });
}

async function keys(d: VolumeUsageDeps): Promise<string[]> {
  const measurable = new Set([...d.plugins.values()].filter((p) => p.usage).map((p) => p.name));
  const records = await d.assets.list({ node: d.node, states: ['created'] });
  return [...new Set(records.filter((r) => measurable.has(r.plugin)).map((r) => `pv/${r.pvName}`))];
}

export function volumeUsageSpec(d: VolumeUsageDeps, o: VolumeUsageOptions = {}): ControllerSpec {
  return {
    name: volumeUsageName,
    concurrency: 1,
    watch: {
      kinds: [PV],
      keysFor: (e: ChangeEvent) => (e.type === 'ADDED' && d.plugins.get(e.object.metadata.annotations?.[annDynamicallyProvisioned] ?? '')?.usage ? [`pv/${e.name}`] : []),
    },
    listKeys: () => keys(d),
    resync: { everyMs: o.resyncMs ?? 60_000, listKeys: () => keys(d) },
    reconcile: async (key, ctx) => {
      if (key.startsWith('pv/')) await syncVolumeUsage(d, ctx, key.slice(3), o);
    },
  };
}

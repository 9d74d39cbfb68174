// The resource quota controller on the shared runtime (upstream pkg/controller/resourcequota,
// for the claim resources): keys ns/<namespace>, fed by quota and claim changes (a deleted
// claim gives its room back) and a periodic resync; each reconcile counts the namespace's
// claims and writes every quota's status (hard from spec, used) that differs. Claim writes
// keep status.used current too (services/quota-admission.ts); this catches deletes and
// quotas created or edited afterwards. A claim change is heard only in a namespace with a
// quota, and only when it moves the claim's usage (its count, class or requested storage).
// Other counted kinds (object counts, count/<resource>.<group>) are heard when one comes or
// goes, and a VolumeSnapshot also when its restoreSize changes (snapshots.stowage.io/storage);
// Events are counted at the resync only (they come in bursts and are seldom limited).
import { countedKinds, syncQuotas } from '../../services/quota-admission';
import type { ObjectStore } from '../../store/object-store';
import { namespacesWithQuotas } from '../../store/quota-usage';
import type { ControllerSpec } from '../runtime/controller';
import { claimUsage } from '../../domain/quota';
import { formatQuantity } from '../../domain/quantity';
import type { PersistentVolumeClaim } from '../../resources/persistent-volume-claim/schema';

export const resourceQuotaControllerName = 'resource-quota-controller';

/** The kinds whose changes move a quota's usage (every namespaced kind counted, but Events). */
const WATCHED = ['ResourceQuota', ...countedKinds.map((k) => k.kind).filter((k) => k !== 'ResourceQuota' && k !== 'Event')];

export interface ResourceQuotaDeps {
  store: ObjectStore;
}

/** What a claim counts for in a quota (its usage), as text: equal text, nothing to count again. */
function usageText(claim: PersistentVolumeClaim): string {
  return JSON.stringify([...claimUsage(claim)].map(([k, v]) => [k, formatQuantity(v)]));
}

export function resourceQuotaSpec(d: ResourceQuotaDeps, opts: { resyncMs?: number } = {}): ControllerSpec {
  // Namespaces that have (or had) a quota: a claim change elsewhere counts for nothing
  // (upstream's replenishment hears only changes that move a quota's usage). Until the
  // first list is in, every change counts.
  const quotaNamespaces = new Set<string>();
  let listed = false;
  /** Per claim of such a namespace, the usage it was last seen with. */
  const counted = new Map<string, string>();
  /** Per snapshot of such a namespace, the restoreSize it was last seen with. */
  const sizes = new Map<string, string>();
  const keys = async () => {
    const namespaces = await namespacesWithQuotas(d.store);
    for (const ns of namespaces) quotaNamespaces.add(ns);
    listed = true;
    return namespaces.map((ns) => `ns/${ns}`);
  };
  return {
    name: resourceQuotaControllerName,
    concurrency: 2,
    watch: {
      kinds: WATCHED,
      keysFor: (e) => {
        if (!e.namespace) return [];
        const key = `ns/${e.namespace}`;
        if (e.kind === 'ResourceQuota') {
          quotaNamespaces.add(e.namespace);
          return [key];
        }
        if (e.kind !== 'PersistentVolumeClaim') {
          if (listed && !quotaNamespaces.has(e.namespace)) return [];
          if (e.type === 'DELETED') sizes.delete(`${e.namespace}/${e.name}`);
          if (e.type !== 'MODIFIED') return [key];
          if (e.kind !== 'VolumeSnapshot') return [];
          // A change of kind VolumeSnapshot: only a new restoreSize counts again.
          const snap = `${e.namespace}/${e.name}`;
          const size = JSON.stringify(e.object.status?.restoreSize ?? null);
          if (sizes.get(snap) === size) return [];
          sizes.set(snap, size);
          return [key];
        }
        const claim = `${e.namespace}/${e.name}`;
        if (listed && !quotaNamespaces.has(e.namespace)) {
          counted.delete(claim);
          return [];
        }
        if (e.type === 'DELETED') {
          counted.delete(claim);
          return [key];
        }
        // A change of kind PersistentVolumeClaim: only a new usage counts again.
        const usage = usageText(e.object);
        if (counted.get(claim) === usage) return [];
        counted.set(claim, usage);
        return [key];
      },
    },
    listKeys: keys,
    resync: { everyMs: opts.resyncMs ?? 60_000, listKeys: keys },
    reconcile: async (key, ctx) => {
      const namespace = key.slice('ns/'.length);
      // Its own writes' echoes need no reconcile.
      if (namespace) for (const rv of await syncQuotas(d.store, namespace)) ctx.wrote(rv);
    },
  };
}

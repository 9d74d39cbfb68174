// The resource quota controller on the shared runtime (upstream pkg/controller/resourcequota,
// for the claim resources): keys ns/<namespace>, fed by quota and claim changes (a deleted
// claim gives its room back) and a periodic resync; each reconcile counts the namespace's
// claims and writes every quota's status (hard from spec, used) that differs. Claim writes
// keep status.used current too (services/quota-admission.ts); this catches deletes and
// quotas created or edited afterwards. A claim change is heard only in a namespace with a
// quota, and only when it moves the claim's usage (its count, class or requested storage).
import { syncQuotas } from '../../services/quota-admission';
import type { ObjectStore } from '../../store/object-store';
import { namespacesWithQuotas } from '../../store/quota-usage';
import type { ControllerSpec } from '../runtime/controller';
import { claimUsage } from '../../domain/quota';
import { formatQuantity } from '../../domain/quantity';
import type { PersistentVolumeClaim } from '../../resources/persistent-volume-claim/schema';

export const resourceQuotaControllerName = 'resource-quota-controller';

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
      kinds: ['ResourceQuota', 'PersistentVolumeClaim'],
      keysFor: (e) => {
        if (!e.namespace) return [];
        const key = `ns/${e.namespace}`;
        if (e.kind === 'ResourceQuota') {
          quotaNamespaces.add(e.namespace);
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
        const usage = usageText(e.object as PersistentVolumeClaim);
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

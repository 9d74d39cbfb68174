// The resource quota controller on the shared runtime (upstream pkg/controller/resourcequota,
// for the claim resources): keys ns/<namespace>, fed by quota and claim changes (a deleted
// claim gives its room back) and a periodic resync; each reconcile counts the namespace's
// claims and writes every quota's status (hard from spec, used) that differs. Claim writes
// keep status.used current too (services/quota-admission.ts); this catches deletes and
// quotas created or edited afterwards.
import { syncQuotas } from '../../services/quota-admission';
import type { ObjectStore } from '../../store/object-store';
import { namespacesWithQuotas } from '../../store/quota-usage';
import type { ControllerSpec } from '../runtime/controller';

export const resourceQuotaControllerName = 'resource-quota-controller';

export interface ResourceQuotaDeps {
  store: ObjectStore;
}

export function resourceQuotaSpec(d: ResourceQuotaDeps, opts: { resyncMs?: number } = {}): ControllerSpec {
  const keys = async () => (await namespacesWithQuotas(d.store)).map((ns) => `ns/${ns}`);
  return {
    name: resourceQuotaControllerName,
    concurrency: 2,
    watch: {
      kinds: ['ResourceQuota', 'PersistentVolumeClaim'],
      keysFor: (e) => (e.namespace ? [`ns/${e.namespace}`] : []),
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

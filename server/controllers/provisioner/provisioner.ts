// The provisioning controller on the shared runtime: keys pvc/<namespace>/<name> for claims
// handed to an in-tree plugin, plus one key, `sweep`, that settles stale intent records.
// On start it first settles every record of this node (crash recovery), before any worker
// provisions anything.
import type { ChangeEvent } from '../../store/change-feed';
import type { ControllerSpec, ReconcileContext, ReconcileResult } from '../runtime/controller';
import type { ProvisioningDeps } from './deps';
import { provisionClaim } from './provision-claim';
import { claimsOfClass, claimsToProvision } from '../../store/provisioning-queries';
import { sweepAssets } from './sweep';

export const provisionerName = 'persistentvolume-provisioner';
export const sweepKey = 'sweep';

const claimKey = (r: { namespace: string; name: string }) => `pvc/${r.namespace}/${r.name}`;

export interface ProvisionerSpecOptions {
  concurrency?: number;
  /** How often pending claims are listed again and the sweep runs (ms, default 60 s). */
  resyncMs?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
}

export function provisionerSpec(d: ProvisioningDeps, opts: ProvisionerSpecOptions = {}): ControllerSpec {
  const names = [...d.plugins.keys()];
  let recovered = false;
  return {
    name: provisionerName,
    concurrency: opts.concurrency ?? 4,
    baseDelayMs: opts.baseDelayMs ?? 1000,
    maxDelayMs: opts.maxDelayMs ?? 300_000,
    watch: {
      kinds: ['PersistentVolumeClaim', 'StorageClass'],
      keysFor: (e: ChangeEvent) => {
        if (e.type === 'DELETED') return [];
        return e.kind === 'StorageClass' ? [`sc/${e.name}`] : [claimKey(e)];
      },
    },
    listKeys: async () => {
      // Crash recovery, once, before the workers start: nothing of ours is in flight yet.
      if (!recovered) {
        await sweepAssets(d, 0);
        recovered = true;
      }
      return (await claimsToProvision(d.store, names)).map(claimKey);
    },
    resync: {
      everyMs: opts.resyncMs ?? 60_000,
      listKeys: async () => [...(await claimsToProvision(d.store, names)).map(claimKey), sweepKey],
    },
    reconcile: async (key: string, ctx: ReconcileContext): Promise<ReconcileResult | void> => {
      if (key === sweepKey) {
        await sweepAssets(d, d.sweepGraceMs);
        return;
      }
      if (key.startsWith('sc/')) {
        for (const c of await claimsOfClass(d.store, key.slice(3))) ctx.enqueue(claimKey(c));
        return;
      }
      const [kind, namespace, name] = key.split('/');
      if (kind !== 'pvc' || namespace === undefined || !name) return;
      return provisionClaim(d, ctx, namespace, name);
    },
  };
}

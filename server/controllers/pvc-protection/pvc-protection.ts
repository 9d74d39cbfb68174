// The pvc-protection controller on the shared runtime: keys pvc/<namespace>/<name>, fed
// by claim changes and by pod changes (each claim a pod names). Adds the finalizer to
// claims created without it (admission adds it on create), and removes it from a claim
// being deleted once no live pod uses it. The pods are read fresh from the store for every
// decision (upstream double-checks with a live list before removing, for the same reason).
import { isPodTerminated, podClaimNames, podsProtectingClaim } from '../../domain/pod-claims';
import type { Pod } from '../../resources/pod/schema';
import { claimsToProtect } from '../../store/protection-queries';
import type { ObjectStore } from '../../store/object-store';
import type { ControllerSpec, ReconcileContext } from '../runtime/controller';
import { write } from '../runtime/write';
import { claimChangeNeedsLook, decideClaimProtection } from './decide';
import { pvcProtectionFinalizer } from '../../domain/well-known/finalizers';

const PVC = 'PersistentVolumeClaim';
export const pvcProtectionName = 'pvc-protection-controller';

export interface PvcProtectionDeps {
  store: ObjectStore;
}

/** Every pod of the namespace (the claims' consumers are found by their volumes). */
export async function podsInNamespace(store: ObjectStore, namespace: string): Promise<Pod[]> {
  return (await store.list('Pod', { namespace })).items;
}

export async function protectClaim(d: PvcProtectionDeps, ctx: ReconcileContext, namespace: string, name: string): Promise<void> {
  const read = await d.store.recent(PVC, namespace, name);
  if (!read) return;
  const usedBy = read.metadata.deletionTimestamp ? podsProtectingClaim(await podsInNamespace(d.store, namespace), namespace, name) : [];
  const action = decideClaimProtection(read, usedBy);
  if (action.kind === 'none') return;
  if (action.kind === 'wait') {
    ctx.log.debug({ claim: `${namespace}/${name}`, usedBy }, 'claim in use; deletion waits');
    return;
  }
  const wrote = await write(d, ctx, async (t) => {
    const c = await t.get(PVC, namespace, name);
    if (!c || c.metadata.uid !== read.metadata.uid || c.metadata.resourceVersion !== read.metadata.resourceVersion) return false;
    const finalizers = c.metadata.finalizers ?? [];
    c.metadata.finalizers =
      action.kind === 'add' ? [...finalizers, pvcProtectionFinalizer] : finalizers.filter((f) => f !== pvcProtectionFinalizer);
    await t.update(c);
    return true;
  });
  if (!wrote) ctx.enqueue(`pvc/${namespace}/${name}`);
}

export function pvcProtectionSpec(d: PvcProtectionDeps, opts: { concurrency?: number; resyncMs?: number } = {}): ControllerSpec {
  const keys = async () => (await claimsToProtect(d.store)).map((r) => `pvc/${r.namespace}/${r.name}`);
  return {
    name: pvcProtectionName,
    concurrency: opts.concurrency ?? 4,
    watch: {
      kinds: [PVC, 'Pod'],
      keysFor: (e) => {
        if (e.kind === PVC) return e.type !== 'DELETED' && claimChangeNeedsLook(e.object) ? [`pvc/${e.namespace}/${e.name}`] : [];
        // Upstream enqueuePVCs: only a pod that is gone, finished or not on a node can
        // change whether its claims may lose the finalizer.
        if (e.kind !== 'Pod') return [];
        const pod = e.object;
        if (e.type !== 'DELETED' && !isPodTerminated(pod) && pod.spec?.nodeName) return [];
        return podClaimNames(pod).map((c) => `pvc/${e.namespace}/${c}`);
      },
    },
    listKeys: keys,
    resync: { everyMs: opts.resyncMs ?? 60_000, listKeys: keys },
    reconcile: async (key, ctx) => {
      const [, namespace, name] = key.split('/');
      if (namespace && name) await protectClaim(d, ctx, namespace, name);
    },
  };
}

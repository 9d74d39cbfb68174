// PV protection (upstream pkg/controller/volume/pvprotection): every volume carries the
// finalizer kubernetes.io/pv-protection, so deleting a volume that is Bound only marks it;
// the finalizer is removed, and the volume goes, once it is no longer bound to a claim.
import type { PersistentVolume } from '../../resources/persistent-volume/schema';
import type { ChangeEvent } from '../../store/change-feed';
import type { ObjectStore } from '../../store/object-store';
import type { ControllerSpec, ReconcileContext } from '../runtime/controller';
import { write } from '../runtime/write';
import { volumesToProtect } from '../../store/protection-queries';
import { pvProtectionFinalizer } from '../../domain/well-known/finalizers';

const PV = 'PersistentVolume';

/** It needs the store only (it runs with the provisioning controllers, or alone). */
export interface ProtectionDeps {
  store: ObjectStore;
}
export const pvProtectionName = 'pv-protection-controller';

/** Upstream isBeingUsed: a Bound volume is in use by its claim. */
export const isInUse = (pv: PersistentVolume) => pv.status?.phase === 'Bound';

const has = (pv: PersistentVolume) => (pv.metadata.finalizers ?? []).includes(pvProtectionFinalizer);
const needsAdd = (pv: PersistentVolume) => !pv.metadata.deletionTimestamp && !has(pv);
const needsRemove = (pv: PersistentVolume) => !!pv.metadata.deletionTimestamp && has(pv) && !isInUse(pv);

/**
 * Whether the volume, as a change left it, needs the finalizer added or removed. It depends
 * on the volume alone, so the watch enqueues only such changes (the resync looks at all).
 */
export const volumeNeedsProtectionChange = (pv: PersistentVolume) => needsAdd(pv) || needsRemove(pv);

export async function protectVolume(d: ProtectionDeps, ctx: ReconcileContext, name: string): Promise<void> {
  const read = await d.store.tryGet(PV, undefined, name);
  if (!read) return;
  if (!volumeNeedsProtectionChange(read)) return;
  await write(d, ctx, async (tx) => {
    const pv = await tx.get(PV, undefined, name);
    if (!pv) return;
    if (needsAdd(pv)) pv.metadata.finalizers = [...(pv.metadata.finalizers ?? []), pvProtectionFinalizer];
    else if (needsRemove(pv)) pv.metadata.finalizers = pv.metadata.finalizers!.filter((f) => f !== pvProtectionFinalizer);
    else return;
    await tx.update(pv);
  });
}

const keys = async (d: ProtectionDeps) => (await volumesToProtect(d.store)).map((r) => `pv/${r.name}`);

export function pvProtectionSpec(d: ProtectionDeps, opts: { concurrency?: number; resyncMs?: number } = {}): ControllerSpec {
  return {
    name: pvProtectionName,
    concurrency: opts.concurrency ?? 2,
    watch: {
      kinds: [PV],
      keysFor: (e: ChangeEvent) => (e.kind === PV && e.type !== 'DELETED' && volumeNeedsProtectionChange(e.object) ? [`pv/${e.name}`] : []),
    },
    listKeys: () => keys(d),
    resync: { everyMs: opts.resyncMs ?? 60_000, listKeys: () => keys(d) },
    reconcile: async (key, ctx) => {
      if (key.startsWith('pv/')) await protectVolume(d, ctx, key.slice(3));
    },
  };
}

// PVC protection (upstream pkg/controller/volume/pvcprotection and the
// StorageObjectInUseProtection admission plugin), as a pure decision: every claim carries
// kubernetes.io/pvc-protection from creation; a claim being deleted keeps it while any pod
// placed on a node (upstream counts only scheduled pods) and not Succeeded or Failed names
// the claim, and loses it once none does.
import type { PersistentVolumeClaim } from '../../resources/persistent-volume-claim/schema';
import { pvcProtectionFinalizer } from '../../domain/well-known/finalizers';

export type ProtectionAction = { kind: 'add' } | { kind: 'remove' } | { kind: 'wait'; usedBy: string[] } | { kind: 'none' };

/** What to do with the claim's finalizer, given the names of the pods that use it now. */
export function decideClaimProtection(claim: PersistentVolumeClaim, usedBy: string[]): ProtectionAction {
  const has = (claim.metadata.finalizers ?? []).includes(pvcProtectionFinalizer);
  if (!claim.metadata.deletionTimestamp) return has ? { kind: 'none' } : { kind: 'add' };
  if (!has) return { kind: 'none' };
  return usedBy.length > 0 ? { kind: 'wait', usedBy } : { kind: 'remove' };
}

/**
 * Whether a change that left the claim in this state can call for any action: the
 * decision depends on the claim itself and on its pods, whose own changes enqueue it. The
 * watch enqueues only such changes, so a claim's other updates (binding, status) cost no
 * look (the periodic resync still looks at every claim that may need one).
 */
export function claimChangeNeedsLook(claim: PersistentVolumeClaim): boolean {
  return decideClaimProtection(claim, []).kind !== 'none';
}

// What the binder does with a volume (upstream syncVolume and reclaimVolume,
// pkg/controller/volume/persistentvolume/pv_controller.go). Pure: volume-sync.ts reads the
// volume and the claim its claimRef names, this picks the step, volume-sync does it.
import type { PersistentVolume } from '../../resources/persistent-volume/schema';
import type { PersistentVolumeClaim } from '../../resources/persistent-volume-claim/schema';
import { chooseDeleter } from '../deleter/decide';
import { annDynamicallyProvisioned } from '../../domain/well-known/annotations';
import { reasons } from '../../domain/well-known/event-reasons';

export interface VolumeFacts {
  volume: PersistentVolume;
  /** The claim the claimRef names (read only when the claimRef has a uid), if it exists. */
  claim?: PersistentVolumeClaim;
  /** Provisioner names of the in-tree plugins (the deleter controller deletes their volumes). */
  inTreeProvisioners: ReadonlySet<string>;
  /**
   * A Recycle volume whose claim is gone (no claim of that name at all): the pods, not
   * terminated, that still name that claim ("namespace/name", sorted; upstream isVolumeUsed).
   */
  podsUsingClaimRef?: string[];
}

/** The volume goes Failed with why, and an Event says it. */
export interface Failure {
  message?: string;
  reason: string;
  event: string;
  /** Written even when the volume is Failed already (with another message). */
  force: boolean;
}

/**
 * One step:
 *   available     phase Available, then wake the claims it could serve, or the one it is reserved for
 *   release       phase Released (unless Released or Failed already), then the reclaim
 *                 policy: nothing to do here, or Failed with why
 *   mismatch      the claim bound it on the volume's side only, with another volumeMode: Events
 *   enqueueClaim  the claim's sync finishes the binding
 *   bound         phase Bound (and the claim's sync finishes its side when it is not Bound)
 *   unbind        its claim is bound to another volume: undo the binding the controller made
 */
export type VolumeAction =
  | { action: 'available'; then: 'wakeClaims' | 'enqueueClaim' }
  | { action: 'release'; setReleased: boolean; fail?: Failure; notice?: { reason: string; message: string } }
  | { action: 'mismatch'; volumeEvent: string; claimEvent: string }
  | { action: 'enqueueClaim' }
  | { action: 'bound'; enqueueClaim: boolean }
  | { action: 'unbind' };

export function decideVolume(f: VolumeFacts): VolumeAction {
  const { volume } = f;
  const ref = volume.spec?.claimRef;
  // Unused, or reserved for a claim that has not bound it yet (the claim's sync does that).
  if (!ref) return { action: 'available', then: 'wakeClaims' };
  if (!ref.uid) return { action: 'available', then: 'enqueueClaim' };
  // A claim of the same name but another uid: the one this volume was bound to is gone.
  const claim = f.claim?.metadata.uid === ref.uid ? f.claim : undefined;
  if (!claim) return release(f);
  if (!claim.spec?.volumeName) {
    if ((claim.spec?.volumeMode ?? 'Filesystem') !== (volume.spec?.volumeMode ?? 'Filesystem')) {
      return {
        action: 'mismatch',
        volumeEvent: `Cannot bind PersistentVolume to requested PersistentVolumeClaim "${claim.metadata.name}" due to incompatible volumeMode.`,
        claimEvent: `Cannot bind PersistentVolume "${volume.metadata.name}" to requested PersistentVolumeClaim due to incompatible volumeMode.`,
      };
    }
    // Bound on this side only (e.g. just provisioned): the claim's sync finishes it.
    return { action: 'enqueueClaim' };
  }
  if (claim.spec.volumeName === volume.metadata.name) return { action: 'bound', enqueueClaim: claim.status?.phase !== 'Bound' };
  // The claim is bound to another volume.
  const provisionedForIt = volume.metadata.annotations?.[annDynamicallyProvisioned] !== undefined;
  if (provisionedForIt && volume.spec?.persistentVolumeReclaimPolicy === 'Delete') return release(f);
  return { action: 'unbind' };
}

/** Released, then its reclaim policy. Failed is not overwritten: the user sees what went wrong while we retry. */
function release(f: VolumeFacts): VolumeAction {
  const phase: string | undefined = f.volume.status?.phase;
  const kept = phase === 'Released' || phase === 'Failed';
  const after = { phase: kept ? phase : 'Released', message: kept ? f.volume.status?.message : undefined };
  // Upstream recycleVolumeOperation: a volume still used by pods is not recycled; a Normal
  // event says so, the phase stays, and the next sync looks again.
  if (f.volume.spec?.persistentVolumeReclaimPolicy === 'Recycle' && !f.claim && (f.podsUsingClaimRef?.length ?? 0) > 0) {
    return { action: 'release', setReleased: !kept, notice: { reason: reasons.volumeFailedRecycle, message: `Volume is used by pods: ${f.podsUsingClaimRef!.join(',')}` } };
  }
  return { action: 'release', setReleased: !kept, fail: reclaimFailure(f, after) };
}

/** Upstream reclaimVolume: Retain keeps it; Delete is the deleter controller's (in-tree) or the external provisioner's; no recycler exists. */
function reclaimFailure(f: VolumeFacts, after: { phase: string; message?: string }): Failure | undefined {
  switch (f.volume.spec?.persistentVolumeReclaimPolicy) {
    case 'Retain':
      return undefined;
    case 'Delete': {
      const choice = chooseDeleter(f.volume, f.inTreeProvisioners);
      if (choice.deleter !== 'none') return undefined;
      // Nobody can: Failed with why, once; every later sync tries again and stays Failed.
      if (after.phase === 'Failed' && after.message === choice.message) return undefined;
      return { message: choice.message, reason: reasons.volumeFailedDelete, event: choice.message, force: true };
    }
    case 'Recycle': {
      if (after.phase === 'Failed') return undefined;
      const message = 'No recycler plugin found for the volume!';
      return { message, reason: reasons.volumeFailedRecycle, event: message, force: false };
    }
    default:
      if (after.phase === 'Failed') return undefined;
      return { reason: reasons.volumeUnknownReclaimPolicy, event: 'Volume has unrecognized PersistentVolumeReclaimPolicy', force: false };
  }
}

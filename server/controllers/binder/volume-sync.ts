// The volume half of the binder: upstream syncVolume and reclaimVolume. It moves a volume
// through its phases (Pending -> Available -> Bound -> Released / Failed), releases it
// when its claim is gone, applies the reclaim policy, and, when a volume becomes
// Available, wakes a few of the Pending claims it could serve (upstream waits for its
// 15 s resync instead).
import { accessModesToBits } from '../../domain/access-modes';
import { volumeClass } from '../../domain/matching';
import { bytesOf } from '../../resources/resource-list';
import type { KubeObject } from '../../resources/types';
import { claimsNaming, claimsWaitingFor } from '../../store/volume-queries';
import type { ReconcileContext } from '../runtime/controller';
import { chooseDeleter } from '../deleter/decide';
import { annBoundByController, annDynamicallyProvisioned } from '../../domain/well-known/annotations';
import { reasons } from '../../domain/well-known/event-reasons';
import type { VolumeHint } from './bind-prefetch';
import { event, write, type BinderDeps } from './deps';
import { claimKey } from './keys';

const PV = 'PersistentVolume';

/** Saves a new phase (and clears the message) unless it is already set; returns the volume. */
async function setPhase(d: BinderDeps, ctx: ReconcileContext, volume: KubeObject, phase: string, message?: string, evenIfSamePhase = false): Promise<KubeObject> {
  if (volume.status?.phase === phase && !evenIfSamePhase) return volume;
  const next = structuredClone(volume);
  next.status = { ...next.status, phase };
  if (message) next.status.message = message;
  else delete next.status.message;
  return write(d, ctx, (tx) => tx.update(next, { subresource: 'status' }), { volume: volume.metadata.name! } satisfies VolumeHint);
}

/**
 * Claims waiting for this volume get another look: those naming it (spec.volumeName), and
 * a few of those it could serve that are not queued already.
 */
async function wakeWaitingClaims(d: BinderDeps, ctx: ReconcileContext, volume: KubeObject): Promise<void> {
  for (const c of await claimsNaming(d.store, volume.metadata.name!)) ctx.enqueue(claimKey(c.namespace, c.name));
  const bytes = bytesOf(volume.spec?.capacity?.storage);
  if (!bytes || volume.metadata.deletionTimestamp) return;
  const waiting = await claimsWaitingFor(
    d.store,
    {
      storageClass: volumeClass(volume),
      volumeMode: volume.spec?.volumeMode ?? 'Filesystem',
      accessModes: accessModesToBits(volume.spec?.accessModes ?? []),
      bytes,
    },
    16,
  );
  let woken = 0;
  for (const c of waiting) {
    const key = claimKey(c.namespace, c.name);
    if (ctx.isQueued(key)) continue;
    ctx.enqueue(key);
    if (++woken >= 3) break;
  }
}

/** Upstream reclaimVolume: Retain keeps it; Delete goes to the deleter; no recycler exists. */
async function reclaim(d: BinderDeps, ctx: ReconcileContext, volume: KubeObject): Promise<void> {
  switch (volume.spec?.persistentVolumeReclaimPolicy) {
    case 'Retain':
      return;
    case 'Delete': {
      const choice = chooseDeleter(volume, d.inTreeProvisioners);
      if (choice.deleter === 'inTree') return d.deleter.deleteVolume(volume, ctx);
      if (choice.deleter === 'external') return; // its provisioner deletes it (seed 000)
      // Nobody can: Failed with why, once; every later sync tries again and stays Failed.
      if (volume.status?.phase === 'Failed' && volume.status?.message === choice.message) return;
      const failed = await setPhase(d, ctx, volume, 'Failed', choice.message, true);
      return event(d, failed, 'Warning', reasons.volumeFailedDelete, choice.message);
    }
    case 'Recycle': {
      if (volume.status?.phase === 'Failed') return;
      const failed = await setPhase(d, ctx, volume, 'Failed', 'No recycler plugin found for the volume!');
      return event(d, failed, 'Warning', reasons.volumeFailedRecycle, 'No recycler plugin found for the volume!');
    }
    default: {
      if (volume.status?.phase === 'Failed') return;
      const failed = await setPhase(d, ctx, volume, 'Failed');
      return event(d, failed, 'Warning', reasons.volumeUnknownReclaimPolicy, 'Volume has unrecognized PersistentVolumeReclaimPolicy');
    }
  }
}

/** Upstream unbindVolume: undo a binding the controller made, or forget the uid of the user's. */
async function unbind(d: BinderDeps, ctx: ReconcileContext, volume: KubeObject): Promise<void> {
  const next = structuredClone(volume);
  if (next.metadata.annotations?.[annBoundByController] !== undefined) {
    delete next.spec.claimRef;
    delete next.metadata.annotations[annBoundByController];
    if (Object.keys(next.metadata.annotations).length === 0) delete next.metadata.annotations;
  } else {
    delete next.spec.claimRef.uid;
  }
  next.status = { ...next.status, phase: 'Available' };
  delete next.status.message;
  await write(d, ctx, (tx) => tx.updateAll(next), { volume: volume.metadata.name! } satisfies VolumeHint);
}

export async function syncVolume(d: BinderDeps, ctx: ReconcileContext, name: string): Promise<void> {
  const volume = await d.store.tryGet(PV, undefined, name);
  if (!volume) return;
  const ref = volume.spec?.claimRef;
  if (!ref) {
    // Unused.
    const now = await setPhase(d, ctx, volume, 'Available');
    return wakeWaitingClaims(d, ctx, now);
  }
  const refKey = claimKey(ref.namespace ?? '', ref.name ?? '');
  if (!ref.uid) {
    // Reserved for a claim that has not bound it yet: the claim's sync does that.
    await setPhase(d, ctx, volume, 'Available');
    ctx.enqueue(refKey);
    return;
  }
  let claim = await d.store.tryGet('PersistentVolumeClaim', ref.namespace ?? '', ref.name ?? '');
  // A claim of the same name but another uid: the one this volume was bound to is gone.
  if (claim && claim.metadata.uid !== ref.uid) claim = undefined;
  if (!claim) {
    // Do not overwrite Failed: let the user see what went wrong while we retry.
    const released = volume.status?.phase === 'Released' || volume.status?.phase === 'Failed' ? volume : await setPhase(d, ctx, volume, 'Released');
    return reclaim(d, ctx, released);
  }
  if (!claim.spec?.volumeName) {
    if ((claim.spec?.volumeMode ?? 'Filesystem') !== (volume.spec?.volumeMode ?? 'Filesystem')) {
      await event(d, volume, 'Warning', reasons.volumeMismatch, `Cannot bind PersistentVolume to requested PersistentVolumeClaim "${claim.metadata.name}" due to incompatible volumeMode.`);
      await event(d, claim, 'Warning', reasons.volumeMismatch, `Cannot bind PersistentVolume "${name}" to requested PersistentVolumeClaim due to incompatible volumeMode.`);
      return;
    }
    // Bound on this side only (e.g. just provisioned): the claim's sync finishes it.
    ctx.enqueue(refKey);
    return;
  }
  if (claim.spec.volumeName === name) {
    await setPhase(d, ctx, volume, 'Bound');
    if (claim.status?.phase !== 'Bound') ctx.enqueue(refKey);
    return;
  }
  // The claim is bound to another volume.
  const provisionedForIt = volume.metadata.annotations?.[annDynamicallyProvisioned] !== undefined;
  if (provisionedForIt && volume.spec?.persistentVolumeReclaimPolicy === 'Delete') {
    const released = volume.status?.phase === 'Released' || volume.status?.phase === 'Failed' ? volume : await setPhase(d, ctx, volume, 'Released');
    return reclaim(d, ctx, released);
  }
  return unbind(d, ctx, volume);
}


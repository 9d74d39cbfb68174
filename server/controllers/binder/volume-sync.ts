// The volume half of the binder: upstream syncVolume and reclaimVolume. It moves a volume
// through its phases (Pending -> Available -> Bound -> Released / Failed), releases it
// when its claim is gone, applies the reclaim policy, and, when a volume becomes
// Available, wakes a few of the Pending claims it could serve (upstream waits for its
// 15 s resync instead). What to do is decide-volume.ts's choice; this reads and does it.
import { accessModesToBits } from '../../domain/access-modes';
import { volumeClass } from '../../domain/matching';
import { bytesOf } from '../../resources/resource-list';
import type { PersistentVolume } from '../../resources/persistent-volume/schema';
import { podsNamingClaim as podsNamingClaimIn } from '../../store/consumer-queries';
import { podsUsingClaim } from '../../domain/pod-claims';
import { claimsToWake } from '../../store/volume-queries';
import type { ReconcileContext } from '../runtime/controller';
import { annBoundByController } from '../../domain/well-known/annotations';
import { reasons } from '../../domain/well-known/event-reasons';
import type { VolumeHint } from './bind-prefetch';
import { event } from '../runtime/event';
import { write } from '../runtime/write';
import { decideVolume, type VolumeAction } from './decide-volume';
import type { BinderDeps } from './deps';
import { claimKey } from './keys';

const PV = 'PersistentVolume';

/** Saves a new phase (and clears the message) unless it is already set; returns the volume. */
async function setPhase(d: BinderDeps, ctx: ReconcileContext, volume: PersistentVolume, phase: string, message?: string, evenIfSamePhase = false): Promise<PersistentVolume> {
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
async function wakeWaitingClaims(d: BinderDeps, ctx: ReconcileContext, volume: PersistentVolume): Promise<void> {
  const bytes = bytesOf(volume.spec?.capacity?.storage);
  // One read for both: a round trip per volume made Available counts in a burst of creates.
  const { naming, waiting } = await claimsToWake(
    d.store,
    volume.metadata.name!,
    bytes && !volume.metadata.deletionTimestamp
      ? {
          storageClass: volumeClass(volume),
          volumeMode: volume.spec?.volumeMode ?? 'Filesystem',
          accessModes: accessModesToBits(volume.spec?.accessModes ?? []),
          bytes,
        }
      : undefined,
    16,
  );
  for (const c of naming) ctx.enqueue(claimKey(c.namespace, c.name));
  let woken = 0;
  for (const c of waiting) {
    const key = claimKey(c.namespace, c.name);
    if (ctx.isQueued(key)) continue;
    ctx.enqueue(key);
    if (++woken >= 3) break;
  }
}

/** Upstream unbindVolume: undo a binding the controller made, or forget the uid of the user's. */
async function unbind(d: BinderDeps, ctx: ReconcileContext, volume: PersistentVolume): Promise<void> {
  // A stored volume has a spec (validation requires its capacity and source), and unbind
  // runs only for a volume whose claimRef points at a claim.
  const next = structuredClone(volume);
  if (next.metadata.annotations?.[annBoundByController] !== undefined) {
    delete next.spec!.claimRef;
    delete next.metadata.annotations[annBoundByController];
    if (Object.keys(next.metadata.annotations).length === 0) delete next.metadata.annotations;
  } else {
    delete next.spec!.claimRef!.uid;
  }
  next.status = { ...next.status, phase: 'Available' };
  delete next.status.message;
  await write(d, ctx, (tx) => tx.updateAll(next), { volume: volume.metadata.name! } satisfies VolumeHint);
}

/** Released unless it is already, then Failed with why when its reclaim policy says so. */
async function release(d: BinderDeps, ctx: ReconcileContext, volume: PersistentVolume, a: Extract<VolumeAction, { action: 'release' }>): Promise<void> {
  const released = a.setReleased ? await setPhase(d, ctx, volume, 'Released') : volume;
  if (a.notice) await event(d, released, 'Normal', a.notice.reason, a.notice.message);
  if (!a.fail) return;
  const failed = await setPhase(d, ctx, released, 'Failed', a.fail.message, a.fail.force);
  await event(d, failed, 'Warning', a.fail.reason, a.fail.event);
}

/** The pods (not terminated) that name claim namespace/name, as "namespace/name", sorted. */
async function podsNamingClaim(d: BinderDeps, namespace: string, name: string): Promise<string[]> {
  const pods = await podsNamingClaimIn(d.store, namespace, name);
  return podsUsingClaim(pods, namespace, name).map((p) => `${namespace}/${p}`);
}

export async function syncVolume(d: BinderDeps, ctx: ReconcileContext, name: string): Promise<void> {
  const volume = await d.store.recent(PV, undefined, name);
  if (!volume) return;
  const ref = volume.spec?.claimRef;
  const claim = ref?.uid ? await d.store.recent('PersistentVolumeClaim', ref.namespace ?? '', ref.name ?? '') : undefined;
  const recycleOfGoneClaim = ref?.uid && !claim && volume.spec?.persistentVolumeReclaimPolicy === 'Recycle';
  const podsUsingClaimRef = recycleOfGoneClaim ? await podsNamingClaim(d, ref.namespace ?? '', ref.name ?? '') : undefined;
  const a = decideVolume({ volume, claim, inTreeProvisioners: d.inTreeProvisioners, podsUsingClaimRef });
  const refKey = claimKey(ref?.namespace ?? '', ref?.name ?? '');
  switch (a.action) {
    case 'available': {
      const now = await setPhase(d, ctx, volume, 'Available');
      if (a.then === 'wakeClaims') return wakeWaitingClaims(d, ctx, now);
      ctx.enqueue(refKey);
      return;
    }
    case 'release':
      return release(d, ctx, volume, a);
    case 'mismatch':
      await event(d, volume, 'Warning', reasons.volumeMismatch, a.volumeEvent);
      await event(d, claim!, 'Warning', reasons.volumeMismatch, a.claimEvent);
      return;
    case 'enqueueClaim':
      ctx.enqueue(refKey);
      return;
    case 'bound':
      await setPhase(d, ctx, volume, 'Bound');
      if (a.enqueueClaim) ctx.enqueue(refKey);
      return;
    case 'unbind':
      return unbind(d, ctx, volume);
  }
}

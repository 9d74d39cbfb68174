// A claim the binder could not bind: hand it to provisioning when a class applies (seed
// 000 "Controller workflow for provisioning volumes", upstream provisionClaim), keep it
// Pending, and keep the explanation of why on it: the annotation
// stowage.io/binding-explanation and the condition Bindable=False. Both are written only
// when they change, and Events go out only then; a claim that found no volume gets them
// only after a grace (pendingGraceMs), its hand-over to a provisioner at once. What to say
// is decide.ts's choice; this writes it.
import { isDeepStrictEqual } from 'node:util';
import { explain, parseExplanation, sameExplanation, serializeExplanation, volumeModeMismatchMessage, type Explanation } from '../../domain/binding-explanation';
import { accessModesToBits } from '../../domain/access-modes';
import { claimClass, requestedStorage, type MatchOptions } from '../../domain/matching';
import { quantityToBytes } from '../../domain/quantity';
import type { PersistentVolume } from '../../resources/persistent-volume/schema';
import type { PersistentVolumeClaim } from '../../resources/persistent-volume-claim/schema';
import { nearVolumes } from '../../store/volume-queries';
import type { ReconcileContext, ReconcileResult } from '../runtime/controller';
import { event } from '../runtime/event';
import { write } from '../runtime/write';
import { annBetaStorageProvisioner, annBindingExplanation, annStorageProvisioner } from '../../domain/well-known/annotations';
import { conditionBindable } from '../../domain/well-known/conditions';
import { reasons } from '../../domain/well-known/event-reasons';
import type { ClaimAction } from './decide';
import type { BinderDeps } from './deps';
import { claimKey } from './keys';

/** The claim stays Pending (and, with `provision`, goes to its class's provisioner). */
export type PendingAction = Extract<ClaimAction, { action: 'pending' | 'provision' }>;

/**
 * How long the claim waits still before its explanation is written: a claim that finds no
 * volume waits `pendingGraceMs` first, looking again soon, then less often. Undefined: now.
 */
function graceLeft(d: BinderDeps, key: string): number | undefined {
  const now = d.now().getTime();
  const first = d.firstNoMatch.get(key);
  if (first === undefined) d.firstNoMatch.set(key, now);
  const waited = first === undefined ? 0 : now - first;
  if (waited < d.pendingGraceMs) return Math.min(d.pendingGraceMs - waited, Math.max(50, waited));
  return undefined;
}

/** The claim as it should be: Pending, with the explanation, the condition and the provisioner annotations. */
function pendingClaim(claim: PersistentVolumeClaim, provisioner: string | undefined, kept: Explanation, reason: string): PersistentVolumeClaim {
  const next = structuredClone(claim);
  const annotations: Record<string, string> = (next.metadata.annotations ??= {});
  if (provisioner !== undefined) {
    annotations[annStorageProvisioner] = provisioner;
    annotations[annBetaStorageProvisioner] = provisioner;
  }
  annotations[annBindingExplanation] = serializeExplanation(kept);
  const status = { ...(next.status ?? {}), phase: 'Pending' };
  delete status.accessModes;
  delete status.capacity;
  const others = (status.conditions ?? []).filter((c) => c?.type !== conditionBindable);
  const old = (claim.status?.conditions ?? []).find((c) => c?.type === conditionBindable);
  const condition = {
    type: conditionBindable,
    status: 'False',
    reason,
    message: kept.summary,
    lastTransitionTime: old?.status === 'False' ? old.lastTransitionTime : kept.evaluatedAt,
  };
  status.conditions = [...others, condition];
  next.status = status;
  return next;
}

/** The volumes that come nearest to the claim, for its explanation. */
function nearTo(d: BinderDeps, claim: PersistentVolumeClaim): Promise<PersistentVolume[]> {
  // nearVolumes reads rows of kind PV.
  return nearVolumes(d.store, {
    storageClass: claimClass(claim),
    volumeMode: claim.spec?.volumeMode ?? 'Filesystem',
    accessModes: accessModesToBits(claim.spec?.accessModes ?? []),
    minBytes: quantityToBytes(requestedStorage(claim)).toString(),
    limit: 4,
  });
}

/**
 * Writes `next` over the claim as it was read (its status too, with `withStatus`), then
 * the action's events. A claim changed meanwhile is looked at again; answers whether it was written.
 */
async function save(d: BinderDeps, ctx: ReconcileContext, claim: PersistentVolumeClaim, next: PersistentVolumeClaim, a: PendingAction, withStatus: boolean): Promise<boolean> {
  const saved = await write(d, ctx, async (tx) => {
    const current = await tx.get('PersistentVolumeClaim', claim.metadata.namespace, claim.metadata.name!);
    if (!current || current.metadata.resourceVersion !== claim.metadata.resourceVersion) return undefined;
    return withStatus ? tx.updateAll(next) : tx.update(next);
  });
  if (!saved) {
    ctx.enqueue(claimKey(claim.metadata.namespace ?? '', claim.metadata.name!));
    return false;
  }
  for (const e of a.events) await event(d, saved, e.type, e.reason, e.message);
  return true;
}

/** Only the provisioner annotations; the claim comes back when its grace is over. */
async function handOverOnly(d: BinderDeps, ctx: ReconcileContext, claim: PersistentVolumeClaim, provisioner: string, a: PendingAction): Promise<ReconcileResult | void> {
  const next = structuredClone(claim);
  next.metadata.annotations = { ...next.metadata.annotations, [annStorageProvisioner]: provisioner, [annBetaStorageProvisioner]: provisioner };
  if (await save(d, ctx, claim, next, a, false)) return { requeueAfter: d.pendingGraceMs };
}

/**
 * A claim left Pending whose only fitting volumes have the other volume mode (a Filesystem
 * claim of a class of local block devices) gets a FailedBinding Warning saying so, not
 * only the explanation annotation. Not when a provisioner will make it a volume.
 */
function withModeMismatch(a: PendingAction, claim: PersistentVolumeClaim, near: PersistentVolume[], opts: MatchOptions): PendingAction {
  if (a.action !== 'pending') return a;
  const message = volumeModeMismatchMessage(claim, near, opts);
  return message ? { ...a, events: [...a.events, { type: 'Warning', reason: reasons.failedBinding, message }] } : a;
}

/** Keeps the claim Pending with its explanation (and provisioner annotations). */
export async function keepPending(d: BinderDeps, ctx: ReconcileContext, claim: PersistentVolumeClaim, opts: MatchOptions, a: PendingAction): Promise<ReconcileResult | void> {
  const key = claimKey(claim.metadata.namespace ?? '', claim.metadata.name!);
  const provisioner = a.action === 'provision' ? a.provisioner : undefined;
  const handOver = provisioner !== undefined && claim.metadata.annotations?.[annStorageProvisioner] !== provisioner;
  const previous = parseExplanation(claim.metadata.annotations?.[annBindingExplanation]);
  if (!previous && d.pendingGraceMs > 0) {
    const wait = graceLeft(d, key);
    // Handed to its provisioner at once (upstream sets the annotations at once); the
    // explanation waits the grace like any other: a volume provisioned within it never
    // needed one, and the claim is written once instead of three times.
    if (wait !== undefined && handOver) return handOverOnly(d, ctx, claim, provisioner, a);
    if (wait !== undefined) return { requeueAfter: wait };
  }
  d.firstNoMatch.delete(key);

  const near = a.action === 'pending' && !a.showNear ? [] : await nearTo(d, claim);
  a = withModeMismatch(a, claim, near, opts);
  const { reason, explanation } = explain(claim, a.situation, near, d.now(), opts);
  const kept = sameExplanation(previous, explanation) ? previous! : explanation;
  const next = pendingClaim(claim, provisioner, kept, reason);
  if (isDeepStrictEqual(next.metadata, claim.metadata) && isDeepStrictEqual(next.status, claim.status)) {
    // Upstream emits its "still waiting" events on every sync; the recorder counts repeats.
    for (const e of a.events) await event(d, claim, e.type, e.reason, e.message);
    return;
  }
  await save(d, ctx, claim, next, a, true);
}

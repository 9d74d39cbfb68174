// A Pending claim that waits for a pod (its class binds on first use, WaitForFirstConsumer,
// and no pod using it is placed yet) is not stuck: it binds once a pod is scheduled. The
// binder says so in the claim's Bindable condition; these are its reasons. Pure.
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';
import { conditionBindable } from './well-known/conditions';
import { reasons } from './well-known/event-reasons';

/** The Bindable condition reasons of a claim that waits for a pod. */
export const WAITING_FOR_POD_REASONS: readonly string[] = [reasons.waitForFirstConsumer, reasons.waitForPodScheduled];

/** The list filter of Pending claims: those waiting for a pod, or the others (stuck). */
export const PENDING_KINDS = ['waiting', 'stuck'] as const;
export type PendingKind = (typeof PENDING_KINDS)[number];

export function waitsForPod(claim: Pick<PersistentVolumeClaim, 'status'>): boolean {
  if ((claim.status?.phase ?? 'Pending') !== 'Pending') return false;
  return (claim.status?.conditions ?? []).some((c) => c?.type === conditionBindable && WAITING_FOR_POD_REASONS.includes(String(c.reason ?? '')));
}

export function pendingKindOf(claim: Pick<PersistentVolumeClaim, 'status'>): PendingKind | undefined {
  if ((claim.status?.phase ?? 'Pending') !== 'Pending') return undefined;
  return waitsForPod(claim) ? 'waiting' : 'stuck';
}

// A claim's provisioning state from its annotations and Events. Pure.
import type { KubeObject } from '@/server/resources/types';
import type { Event } from '@/server/resources/event/schema';
import { annBetaStorageProvisioner, annStorageProvisioner } from '@/server/domain/well-known/annotations';
import { reasons } from '@/server/domain/well-known/event-reasons';

const PROVISIONING_REASONS = new Set<string>([reasons.provisioningSucceeded, reasons.provisioningFailed, reasons.externalProvisioning, reasons.provisioning]);

export function provisionerOf(claim: KubeObject): string | undefined {
  const a = claim.metadata.annotations ?? {};
  return a[annStorageProvisioner] || a[annBetaStorageProvisioner] || undefined;
}

export function eventTime(e: Event): string | undefined {
  return e.series?.lastObservedTime ?? e.lastTimestamp ?? e.eventTime ?? e.metadata.creationTimestamp;
}

/** The newest provisioning event about the claim; once its volume exists, the newest success. */
export function latestProvisioningEvent(events: Event[] | undefined, provisioned = false): Event | undefined {
  const wanted = provisioned && (events ?? []).some((e) => e.reason === reasons.provisioningSucceeded) ? new Set<string>([reasons.provisioningSucceeded]) : PROVISIONING_REASONS;
  let best: Event | undefined;
  for (const e of events ?? []) {
    if (!wanted.has(e.reason ?? '')) continue;
    if (!best || Date.parse(eventTime(e) ?? '') >= Date.parse(eventTime(best) ?? '')) best = e;
  }
  return best;
}

// A claim's provisioning state from its annotations and Events. Pure.
import type { KubeObject } from '@/server/resources/types';

export const PROVISIONER_ANNOTATION = 'volume.kubernetes.io/storage-provisioner';
export const BETA_PROVISIONER_ANNOTATION = 'volume.beta.kubernetes.io/storage-provisioner';
const PROVISIONING_REASONS = new Set(['ProvisioningSucceeded', 'ProvisioningFailed', 'ExternalProvisioning', 'Provisioning']);

export function provisionerOf(claim: KubeObject): string | undefined {
  const a = claim.metadata.annotations ?? {};
  return a[PROVISIONER_ANNOTATION] || a[BETA_PROVISIONER_ANNOTATION] || undefined;
}

export function eventTime(e: KubeObject): string | undefined {
  return e.series?.lastObservedTime ?? e.lastTimestamp ?? e.eventTime ?? e.metadata.creationTimestamp;
}

/** The newest provisioning event about the claim; once its volume exists, the newest success. */
export function latestProvisioningEvent(events: KubeObject[] | undefined, provisioned = false): KubeObject | undefined {
  const wanted = provisioned && (events ?? []).some((e) => e.reason === 'ProvisioningSucceeded') ? new Set(['ProvisioningSucceeded']) : PROVISIONING_REASONS;
  let best: KubeObject | undefined;
  for (const e of events ?? []) {
    if (!wanted.has(e.reason ?? '')) continue;
    if (!best || Date.parse(eventTime(e) ?? '') >= Date.parse(eventTime(best) ?? '')) best = e;
  }
  return best;
}

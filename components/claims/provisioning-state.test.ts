import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@/server/resources/types';
import type { Event } from '@/server/resources/event/schema';
import { latestProvisioningEvent, provisionerOf } from './provisioning-state';

const ev = (reason: string, at: string): Event => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: `${reason}-${at}`, namespace: 'default' },
  reason,
  lastTimestamp: at,
});

describe('latestProvisioningEvent', () => {
  const events = [
    ev('ProvisioningFailed', '2025-01-01T00:00:01Z'),
    ev('ProvisioningSucceeded', '2025-01-01T00:00:02Z'),
    ev('ExternalProvisioning', '2025-01-01T00:00:03Z'),
    ev('FailedBinding', '2025-01-01T00:00:04Z'),
  ];
  it('is the newest provisioning event while the volume is being made', () => expect(latestProvisioningEvent(events)?.reason).toBe('ExternalProvisioning'));
  it('is the newest success once the volume exists', () => expect(latestProvisioningEvent(events, true)?.reason).toBe('ProvisioningSucceeded'));
  it('is the newest of any provisioning event when no success was recorded', () =>
    expect(latestProvisioningEvent(events.filter((e) => e.reason !== 'ProvisioningSucceeded'), true)?.reason).toBe('ExternalProvisioning'));
  it('is nothing without provisioning events', () => expect(latestProvisioningEvent([ev('FailedBinding', '2025-01-01T00:00:00Z')])).toBeUndefined());
});

describe('provisionerOf', () => {
  const claim = (annotations: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c', annotations } });
  it('reads the GA annotation', () => expect(provisionerOf(claim({ 'volume.kubernetes.io/storage-provisioner': 'a' }))).toBe('a'));
  it('falls back to the beta one', () => expect(provisionerOf(claim({ 'volume.beta.kubernetes.io/storage-provisioner': 'b' }))).toBe('b'));
  it('is undefined when not handed over', () => expect(provisionerOf(claim({}))).toBeUndefined());
});

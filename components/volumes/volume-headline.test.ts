import { describe, expect, it } from 'vitest';
import type { PersistentVolume } from '@/server/resources/persistent-volume/schema';
import { volumeHeadline } from './volume-headline';

function pv(phase: string, o: { claim?: string; used?: string; terminating?: boolean } = {}): PersistentVolume {
  const [namespace, name] = (o.claim ?? '').split('/');
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: {
      name: 'v',
      ...(o.terminating ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
      ...(o.used ? { annotations: { 'stowage.io/used-bytes': o.used, 'stowage.io/used-bytes-time': '2026-01-01T00:00:00Z' } } : {}),
    },
    spec: { capacity: { storage: '10Gi' }, accessModes: ['ReadWriteOnce'], ...(o.claim ? { claimRef: { namespace, name } } : {}) },
    status: { phase },
  };
}

describe('volumeHeadline', () => {
  it.each([
    { name: 'bound with usage', pv: pv('Bound', { claim: 'team-a/data', used: String(1288490189) }), want: 'Bound to claim team-a/data; 1.2 GiB of 10 GiB used (12%).' },
    { name: 'bound, usage unknown', pv: pv('Bound', { claim: 'team-a/data' }), want: 'Bound to claim team-a/data.' },
    { name: 'available', pv: pv('Available'), want: 'Available: a claim that fits binds it.' },
    { name: 'available, reserved', pv: pv('Available', { claim: 'team-a/db' }), want: 'Available, reserved for claim team-a/db: only that claim binds it.' },
    { name: 'released', pv: pv('Released', { claim: 'team-a/old' }), want: 'Released: its claim team-a/old was deleted.' },
    { name: 'terminating wins over the phase', pv: pv('Bound', { claim: 'a/b', terminating: true }), want: 'Being deleted: it goes once its finalizers are removed.' },
  ])('$name', ({ pv: v, want }) => {
    expect(volumeHeadline(v).text).toBe(want);
  });
});

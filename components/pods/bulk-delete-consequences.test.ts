import { describe, expect, it } from 'vitest';
import type { PersistentVolumeClaim } from '@/server/resources/persistent-volume-claim/schema';
import type { Pod } from '@/server/resources/pod/schema';
import { bulkClaimDeletion } from './bulk-delete-consequences';

const claim = (name: string, volumeName?: string): PersistentVolumeClaim => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name, namespace: 'team-a' },
  spec: { ...(volumeName ? { volumeName } : {}) },
});
const pod = (name: string, claimName: string, phase = 'Running'): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'team-a' },
  spec: { containers: [], volumes: [{ name: 'd', persistentVolumeClaim: { claimName } }] },
  status: { phase },
});
const policies: Record<string, string> = { 'pv-del': 'Delete', 'pv-keep': 'Retain' };

describe('bulkClaimDeletion', () => {
  it.each([
    {
      name: 'a used claim and a Delete-policy claim are both named',
      claims: [claim('web', 'pv-keep'), claim('db', 'pv-del'), claim('idle')],
      pods: [pod('web-0', 'web'), pod('old', 'idle', 'Succeeded')],
      want: { inUse: [{ claim: 'team-a/web', pods: ['web-0'] }], dataDeleted: ['team-a/db'], policyUnknown: [] },
    },
    {
      name: 'a bound claim whose policy is unknown is said so',
      claims: [claim('x', 'pv-secret')],
      pods: [],
      want: { inUse: [], dataDeleted: [], policyUnknown: ['team-a/x'] },
    },
  ])('$name', ({ claims, pods, want }) => {
    expect(bulkClaimDeletion(claims, pods, (c) => policies[c.spec?.volumeName ?? ''])).toEqual(want);
  });
});

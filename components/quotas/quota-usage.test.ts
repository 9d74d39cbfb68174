import { describe, expect, it, test } from 'vitest';
import type { ResourceQuota } from '@/server/resources/resource-quota/schema';
import { isLimitsResource, quotaLimits, shortResource } from './quota-usage';

function quota(hard: Record<string, string>, used?: Record<string, string>): ResourceQuota {
  return { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q', namespace: 'team-a' }, spec: { hard }, status: used ? { hard, used } : undefined };
}

describe('quotaLimits', () => {
  test.each<[string, ResourceQuota, { resource: string; usedText: string; hardText: string; percent: number | undefined; full: boolean }[]]>([
    ['a size reads in binary units', quota({ 'requests.storage': '2Ti' }, { 'requests.storage': '264212084Ki' }), [{ resource: 'requests.storage', usedText: '252 GiB', hardText: '2 TiB', percent: 12.303, full: false }]],
    ['a count stays a count', quota({ persistentvolumeclaims: '10' }, { persistentvolumeclaims: '3' }), [{ resource: 'persistentvolumeclaims', usedText: '3', hardText: '10', percent: 30, full: false }]],
    ['not counted yet is 0 used', quota({ 'requests.storage': '50Gi' }), [{ resource: 'requests.storage', usedText: '0 B', hardText: '50 GiB', percent: 0, full: false }]],
    ['at the limit is full', quota({ pods: '2' }, { pods: '2' }), [{ resource: 'pods', usedText: '2', hardText: '2', percent: 100, full: true }]],
    ['over the limit is capped at 100 and full', quota({ pods: '2' }, { pods: '5' }), [{ resource: 'pods', usedText: '5', hardText: '2', percent: 100, full: true }]],
    ['a zero limit with nothing used is empty', quota({ pods: '0' }, { pods: '0' }), [{ resource: 'pods', usedText: '0', hardText: '0', percent: 0, full: false }]],
    ['milli quantities compare exactly', quota({ 'requests.cpu': '1' }, { 'requests.cpu': '500m' }), [{ resource: 'requests.cpu', usedText: '500m', hardText: '1', percent: 50, full: false }]],
    [
      'several resources in name order',
      quota({ 'requests.storage': '10Gi', persistentvolumeclaims: '4' }, { 'requests.storage': '5Gi', persistentvolumeclaims: '1' }),
      [
        { resource: 'persistentvolumeclaims', usedText: '1', hardText: '4', percent: 25, full: false },
        { resource: 'requests.storage', usedText: '5 GiB', hardText: '10 GiB', percent: 50, full: false },
      ],
    ],
  ])('%s', (_, q, want) => {
    expect(quotaLimits(q).map(({ resource, usedText, hardText, percent, full }) => ({ resource, usedText, hardText, percent, full }))).toEqual(want);
  });

  test('keeps the exact quantities for the tooltip', () => {
    expect(quotaLimits(quota({ 'requests.storage': '2Ti' }, { 'requests.storage': '264212084Ki' }))[0]).toMatchObject({ used: '264212084Ki', hard: '2Ti' });
  });
});

describe('isLimitsResource', () => {
  test.each([
    ['limits.memory', true],
    ['requests.storage', false],
    ['pods', false],
    ['fast.storageclass.storage.k8s.io/requests.storage', false],
  ])('%s -> %s', (r, want) => expect(isLimitsResource(r)).toBe(want));
});

describe('shortResource: a list cell names each limit briefly', () => {
  it.each([
    ['requests.storage', 'storage'],
    ['persistentvolumeclaims', 'claims'],
    ['gold.storageclass.storage.k8s.io/requests.storage', 'gold: storage'],
    ['fast-nvme.storageclass.storage.k8s.io/persistentvolumeclaims', 'fast-nvme: claims'],
    ['count/volumesnapshots.snapshot.storage.k8s.io', 'snapshots'],
    ['snapshots.stowage.io/storage', 'snapshot storage'],
    ['limits.memory', 'limits.memory'],
  ])('%s -> %s', (resource, want) => expect(shortResource(resource)).toBe(want));
});

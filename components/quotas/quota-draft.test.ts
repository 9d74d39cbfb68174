import { describe, expect, test } from 'vitest';
import type { ResourceQuota } from '@/server/resources/resource-quota/schema';
import { draftFromQuota, quotaDraftErrors, quotaFromDraft, storageResources, type QuotaDraft } from './quota-draft';

const draft = (over: Partial<QuotaDraft> = {}): QuotaDraft => ({ name: 'storage', namespace: 'team-a', limits: [{ resource: 'requests.storage', amount: '50Gi' }], ...over });

describe('quotaDraftErrors', () => {
  test.each<[string, QuotaDraft, string[]]>([
    ['a complete draft', draft(), []],
    ['no name', draft({ name: '' }), ['name']],
    ['a name with capitals', draft({ name: 'Storage' }), ['name']],
    ['no namespace', draft({ namespace: '' }), ['namespace']],
    ['no limits', draft({ limits: [] }), ['limits']],
    ['an empty resource', draft({ limits: [{ resource: ' ', amount: '1' }] }), ['limits.0.resource']],
    ['a resource twice', draft({ limits: [{ resource: 'pods', amount: '1' }, { resource: 'pods', amount: '2' }] }), ['limits.1.resource']],
    ['an amount that is no quantity', draft({ limits: [{ resource: 'requests.storage', amount: '50 GB' }] }), ['limits.0.amount']],
    ['a negative amount', draft({ limits: [{ resource: 'requests.storage', amount: '-1Gi' }] }), ['limits.0.amount']],
  ])('%s', (_, d, fields) => {
    expect(quotaDraftErrors(d).map((e) => e.field)).toEqual(fields);
  });
});

test('a new quota from a draft', () => {
  expect(quotaFromDraft(draft({ name: ' storage ', limits: [{ resource: ' requests.storage ', amount: ' 50Gi ' }] }))).toEqual({
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    metadata: { name: 'storage', namespace: 'team-a' },
    spec: { hard: { 'requests.storage': '50Gi' } },
  });
});

test('an edit replaces the hard limits and keeps the rest of the object', () => {
  const base: ResourceQuota = {
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    metadata: { name: 'storage', namespace: 'team-a', resourceVersion: '42', labels: { team: 'a' } },
    spec: { hard: { 'requests.storage': '10Gi', pods: '5' }, scopes: ['NotTerminating'] },
    status: { hard: { 'requests.storage': '10Gi' }, used: { 'requests.storage': '1Gi' } },
  };
  const d = draftFromQuota(base);
  expect(d).toEqual({ name: 'storage', namespace: 'team-a', limits: [{ resource: 'requests.storage', amount: '10Gi' }, { resource: 'pods', amount: '5' }] });
  const next = quotaFromDraft({ ...d, limits: [{ resource: 'requests.storage', amount: '20Gi' }] }, base);
  expect(next.spec).toEqual({ hard: { 'requests.storage': '20Gi' }, scopes: ['NotTerminating'] });
  expect(next.metadata).toEqual(base.metadata);
});

test('storage resources: the namespace-wide ones, then per class, then the snapshots\' count and bytes', () => {
  expect(storageResources(['fast'])).toEqual([
    'requests.storage',
    'persistentvolumeclaims',
    'fast.storageclass.storage.k8s.io/requests.storage',
    'fast.storageclass.storage.k8s.io/persistentvolumeclaims',
    'count/volumesnapshots.snapshot.storage.k8s.io',
    'snapshots.stowage.io/storage',
  ]);
});

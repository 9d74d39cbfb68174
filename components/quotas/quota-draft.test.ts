import { describe, expect, test } from 'vitest';
import type { ResourceQuota } from '@/server/resources/resource-quota/schema';
import { draftFromQuota, limitAmount, limitOf, quotaDraftErrors, quotaFromDraft, storageResources, type LimitDraft, type QuotaDraft } from './quota-draft';

const size = (resource: string, amount: string, unit: 'Gi' | 'Mi' | 'G' | 'T' = 'Gi'): LimitDraft => ({ resource, count: '', size: { size: amount, unit } });
const count = (resource: string, amount: string): LimitDraft => ({ resource, count: amount, size: { size: '', unit: 'Gi' } });
const draft = (over: Partial<QuotaDraft> = {}): QuotaDraft => ({ name: 'storage', namespace: 'team-a', limits: [size('requests.storage', '50')], ...over });

describe('quotaDraftErrors', () => {
  test.each<[string, QuotaDraft, string[]]>([
    ['a complete draft', draft(), []],
    ['no name', draft({ name: '' }), ['name']],
    ['a name with capitals', draft({ name: 'Storage' }), ['name']],
    ['no namespace', draft({ namespace: '' }), ['namespace']],
    ['no limits', draft({ limits: [] }), ['limits']],
    ['an empty resource', draft({ limits: [count(' ', '1')] }), ['limits.0.resource']],
    ['a resource twice', draft({ limits: [count('pods', '1'), count('pods', '2')] }), ['limits.1.resource']],
    ['a size that is no number', draft({ limits: [size('requests.storage', 'lots')] }), ['limits.0.amount']],
    ['a negative size', draft({ limits: [size('requests.storage', '-1')] }), ['limits.0.amount']],
    ['no size at all', draft({ limits: [size('requests.storage', '')] }), ['limits.0.amount']],
    ['a count with a unit', draft({ limits: [count('persistentvolumeclaims', '5Gi')] }), ['limits.0.amount']],
    ['a fractional count', draft({ limits: [count('persistentvolumeclaims', '2.5')] }), ['limits.0.amount']],
    ['a count and a per-class size', draft({ limits: [count('persistentvolumeclaims', '10'), size('gold.storageclass.storage.k8s.io/requests.storage', '1.5', 'G')] }), []],
  ])('%s', (_, d, fields) => {
    expect(quotaDraftErrors(d).map((e) => e.field)).toEqual(fields);
  });
});

test('a new quota from a draft', () => {
  expect(quotaFromDraft(draft({ name: ' storage ', limits: [size(' requests.storage ', ' 50 ')] }))).toEqual({
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
  expect(d).toEqual({ name: 'storage', namespace: 'team-a', limits: [size('requests.storage', '10'), count('pods', '5')] });
  const next = quotaFromDraft({ ...d, limits: [size('requests.storage', '20')] }, base);
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

describe('a limit row asks for a size with its unit, a count as a number: 500 is never 500 bytes', () => {
  test.each<[string, LimitDraft, string]>([
    ['500 Gi of storage', size('requests.storage', '500'), '500Gi'],
    ['1.5 Gi of storage', size('requests.storage', '1.5'), '1536Mi'],
    ['500 G of storage (decimal)', size('requests.storage', '500', 'G'), '500G'],
    ['snapshot bytes are a size', size('snapshots.stowage.io/storage', '2'), '2Gi'],
    ['10 claims', count('persistentvolumeclaims', '10'), '10'],
    ['007 snapshots', count('count/volumesnapshots.snapshot.storage.k8s.io', '007'), '7'],
    ['a count that is no number', count('persistentvolumeclaims', 'ten'), ''],
  ])('%s', (_, l, want) => expect(limitAmount(l)).toBe(want));

  test.each<[string, string, LimitDraft]>([
    ['requests.storage', '206336Mi', size('requests.storage', '201.5')],
    ['requests.storage', '2T', size('requests.storage', '2', 'T')],
    ['persistentvolumeclaims', '5', count('persistentvolumeclaims', '5')],
  ])('stored %s = %s is shown as a row', (resource, amount, want) => expect(limitOf(resource, amount)).toEqual(want));
});

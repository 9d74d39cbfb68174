import { describe, expect, test } from 'vitest';
import { createErrors, created, lines, updateErrors } from '../testing';
import type { KubeObject } from '../types';
import type { ResourceQuota } from './schema';
import { resourceQuotaStrategy as strategy } from './strategy';

// The spec as the kind has it, plus any field an invalid case adds (checked by the shape check).
const quota = (spec: NonNullable<ResourceQuota['spec']> & Record<string, unknown>, name = 'storage'): ResourceQuota => ({
  apiVersion: 'v1',
  kind: 'ResourceQuota',
  metadata: { name, namespace: 'team-a' },
  spec,
});
const gold = (r: string) => `gold.storageclass.storage.k8s.io/${r}`;

describe('ResourceQuota validation on create (upstream ValidateResourceQuota)', () => {
  test.each<{ rule: string; q: KubeObject; want: string[] }>([
    { rule: 'the storage resources are valid', q: quota({ hard: { 'requests.storage': '50Gi', persistentvolumeclaims: '10', 'count/persistentvolumeclaims': '10' } }), want: [] },
    { rule: 'class-scoped storage resources are valid', q: quota({ hard: { [gold('requests.storage')]: '10Gi', [gold('persistentvolumeclaims')]: '2' } }), want: [] },
    { rule: 'unrelated standard resources are kept', q: quota({ hard: { pods: '10', 'requests.cpu': '2', 'limits.memory': '4Gi' } }), want: [] },
    { rule: 'an empty spec is valid', q: quota({}), want: [] },
    { rule: 'a negative limit', q: quota({ hard: { 'requests.storage': '-1' } }), want: ['spec.hard[requests.storage]: Invalid value: "-1": must be greater than or equal to 0'] },
    { rule: 'a fractional claim count', q: quota({ hard: { persistentvolumeclaims: '0.5' } }), want: ['spec.hard[persistentvolumeclaims]: Invalid value: "500m": must be an integer'] },
    { rule: 'a fractional class claim count', q: quota({ hard: { [gold('persistentvolumeclaims')]: '1.5' } }), want: [`spec.hard[${gold('persistentvolumeclaims')}]: Invalid value: "1500m": must be an integer`] },
    {
      rule: 'a name that is not a quota resource',
      q: quota({ hard: { disks: '1' } }),
      want: ['spec.hard[disks]: Invalid value: "disks": must be a standard resource type or fully qualified', 'spec.hard[disks]: Invalid value: "disks": must be a standard resource for quota'],
    },
    { rule: 'storage alone is standard but no quota resource', q: quota({ hard: { storage: '1Gi' } }), want: ['spec.hard[storage]: Invalid value: "storage": must be a standard resource for quota'] },
    { rule: 'an unknown scope', q: quota({ hard: { pods: '1' }, scopes: ['Weekend'] }), want: ['spec.scopes: Invalid value: ["Weekend"]: unsupported scope'] },
    { rule: 'a pod scope on a storage limit', q: quota({ hard: { 'requests.storage': '1Gi' }, scopes: ['Terminating'] }), want: ['spec.scopes: Invalid value: ["Terminating"]: unsupported scope applied to resource'] },
    { rule: 'conflicting scopes', q: quota({ hard: { pods: '1' }, scopes: ['Terminating', 'NotTerminating'] }), want: ['spec.scopes: Invalid value: ["Terminating","NotTerminating"]: conflicting scopes'] },
    { rule: 'the volume attributes class scope on storage is valid', q: quota({ hard: { 'requests.storage': '1Gi' }, scopes: ['VolumeAttributesClass'] }), want: [] },
    {
      rule: 'a scope selector without values for In',
      q: quota({ hard: { pods: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In' }] } }),
      want: ["spec.scopeSelector.matchExpressions[0].values: Invalid value: []: must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"],
    },
    { rule: 'a name that is no DNS subdomain', q: quota({}, 'Big_Quota'), want: [expect.stringMatching(/^metadata.name: Invalid value: "Big_Quota"/)] },
  ])('$rule', ({ q, want }) => {
    expect(lines(createErrors(strategy, q))).toEqual(want);
  });

  test('an unknown field is refused', () => {
    expect(lines(createErrors(strategy, quota({ hard: {}, limits: {} })))).toEqual([expect.stringContaining('unknown field "spec.limits"')]);
  });
});

describe('ResourceQuota on create and update', () => {
  test('status sent on create is dropped (the controllers write it) and quantities are canonical', () => {
    const q = created(strategy, { ...quota({ hard: { 'requests.storage': '1024Mi' } }), status: { used: { 'requests.storage': '0' } } });
    expect(q.status).toBeUndefined();
    expect(q.spec?.hard).toEqual({ 'requests.storage': '1Gi' });
  });
  test('scopes are immutable', () => {
    const prev = created(strategy, quota({ hard: { pods: '1' }, scopes: ['BestEffort'] }));
    expect(lines(updateErrors(strategy, prev, { ...prev, spec: { hard: { pods: '1' }, scopes: ['NotBestEffort'] } }))).toEqual([
      'spec.scopes: Invalid value: ["NotBestEffort"]: field is immutable',
    ]);
  });
  test('limits may change', () => {
    const prev = created(strategy, quota({ hard: { 'requests.storage': '1Gi' } }));
    expect(updateErrors(strategy, prev, { ...prev, spec: { hard: { 'requests.storage': '2Gi' } } })).toEqual([]);
  });
});

describe('ResourceQuota table (upstream printResourceQuota)', () => {
  test.each<{ name: string; hard: Record<string, string>; used: Record<string, string>; request: string; limit: string }>([
    {
      name: 'requests and counts in the REQUEST column, sorted',
      hard: { 'requests.storage': '50Gi', persistentvolumeclaims: '5' },
      used: { 'requests.storage': '12Gi', persistentvolumeclaims: '2' },
      request: 'persistentvolumeclaims: 2/5, requests.storage: 12Gi/50Gi',
      limit: '',
    },
    { name: 'limits.* in the LIMIT column', hard: { 'limits.memory': '4Gi', pods: '3' }, used: {}, request: 'pods: 0/3', limit: 'limits.memory: 0/4Gi' },
  ])('$name', ({ hard, used, request, limit }) => {
    const q = { ...quota({ hard }), status: { hard, used } };
    const row = strategy.table.row(q, new Date());
    expect(row.slice(2)).toEqual([request, limit]);
  });
});

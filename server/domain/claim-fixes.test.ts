import { describe, expect, it } from 'vitest';
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';
import type { PersistentVolume } from '../resources/persistent-volume/schema';
import { claimFixes, fixFor, volumePrefill, type ClassFacts, type FixFacts } from './claim-fixes';

const caps = { accessModes: ['ReadWriteOnce', 'ReadWriteOncePod'], volumeModes: ['Filesystem'] };

function claim(o: { cls?: string | null; phase?: string; volumeName?: string; terminating?: boolean; modes?: string[]; selector?: NonNullable<PersistentVolumeClaim['spec']>['selector'] } = {}): PersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'data', namespace: 'team-a', ...(o.terminating ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
    spec: {
      accessModes: o.modes ?? ['ReadWriteOnce'],
      resources: { requests: { storage: '1Gi' } },
      ...(o.cls === null ? {} : { storageClassName: o.cls ?? 'manual' }),
      ...(o.volumeName ? { volumeName: o.volumeName } : {}),
      ...(o.selector ? { selector: o.selector } : {}),
    },
    status: { phase: o.phase ?? 'Pending' },
  };
}

function sc(name: string, provisioner: string, inTree = true): ClassFacts {
  return { sc: { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name }, provisioner }, capabilities: inTree ? caps : undefined, inTree };
}

function pv(name: string, o: { size?: string; cls?: string; phase?: string; claimRef?: boolean } = {}): PersistentVolume {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name },
    spec: {
      capacity: { storage: o.size ?? '2Gi' },
      accessModes: ['ReadWriteOnce'],
      storageClassName: o.cls ?? 'manual',
      hostPath: { path: '/x' },
      ...(o.claimRef ? { claimRef: { namespace: 'other', name: 'x' } } : {}),
    },
    status: { phase: o.phase ?? 'Available' },
  };
}

const classes = [sc('manual', 'kubernetes.io/no-provisioner', false), sc('fast', 'stowage.io/host-path'), sc('remote', 'example.com/nfs', false)];

function facts(over: Partial<FixFacts> = {}): FixFacts {
  return { claim: claim(), role: 'admin', mayWriteClaim: true, classes, volumes: [], podsUsing: [], ...over };
}

const brief = (f: FixFacts) => claimFixes(f).map((x) => `${x.kind}${x.target ? `:${x.target}` : ''}=${x.allowed ? 'ok' : `no(${x.reason})`}`);

const rows: { name: string; facts: FixFacts; want: string[] }[] = [
  {
    name: 'admin, class set, in-tree class can provision: create, recreate, no pre-bind without volumes',
    facts: facts(),
    want: ['create-volume=ok', 'recreate-with-class:fast=ok'],
  },
  {
    name: 'developer: create-volume refused, recreate offered',
    facts: facts({ role: 'developer' }),
    want: ['create-volume=no(only administrators create volumes; ask one, or pick a class that provisions)', 'recreate-with-class:fast=ok'],
  },
  {
    name: 'claim without a class: switch (no recreate)',
    facts: facts({ claim: claim({ cls: null }) }),
    want: ['create-volume=ok', 'switch-class:fast=ok'],
  },
  {
    name: 'a pod uses the claim: recreate refused',
    facts: facts({ podsUsing: ['web-0'] }),
    want: ['create-volume=ok', 'recreate-with-class:fast=no(pod web-0 uses the claim; stop them first)'],
  },
  {
    name: 'viewer without write: recreate refused',
    facts: facts({ role: 'viewer', mayWriteClaim: false }),
    want: ['create-volume=no(only administrators create volumes; ask one, or pick a class that provisions)', 'recreate-with-class:fast=no(you may not delete and create claims in this namespace)'],
  },
  {
    name: 'Block claim: host-path cannot make it, no class fix',
    facts: facts({ claim: { ...claim(), spec: { ...claim().spec, volumeMode: 'Block' } } }),
    want: ['create-volume=ok'],
  },
  {
    name: 'fitting Available volume is offered for pre-bind; small, claimed and other-class ones are not',
    facts: facts({ volumes: [pv('fits'), pv('small', { size: '500Mi' }), pv('taken', { claimRef: true }), pv('other', { cls: 'fast' }), pv('bound', { phase: 'Bound' })] }),
    want: ['create-volume=ok', 'recreate-with-class:fast=ok', 'pre-bind:fits=ok'],
  },
  {
    name: 'developer cannot pre-bind',
    facts: facts({ role: 'developer', volumes: [pv('fits')] }),
    want: ['create-volume=no(only administrators create volumes; ask one, or pick a class that provisions)', 'recreate-with-class:fast=ok', 'pre-bind:fits=no(only administrators pre-bind claims to volumes)'],
  },
  {
    name: 'provisioning of class fast is failing: a class with the same provisioner and parameters is not offered, one with other parameters is',
    facts: facts({
      claim: claim({ cls: 'fast' }),
      provisioningFailure: 'not enough space: 76797532 bytes free',
      classes: [...classes, sc('fast-copy', 'stowage.io/host-path'), { ...sc('fast-big', 'stowage.io/host-path'), sc: { ...sc('fast-big', 'stowage.io/host-path').sc, parameters: { basePath: '/big' } } }],
    }),
    want: ['create-volume=ok', 'recreate-with-class:fast-big=ok'],
  },
  {
    name: 'no failure: every class that can provision is offered',
    facts: facts({ claim: claim({ cls: 'fast' }), classes: [...classes, sc('fast-copy', 'stowage.io/host-path')] }),
    want: ['create-volume=ok', 'recreate-with-class:fast-copy=ok'],
  },
  { name: 'Bound claim: nothing', facts: facts({ claim: claim({ phase: 'Bound', volumeName: 'v' }) }), want: [] },
  { name: 'terminating claim: nothing', facts: facts({ claim: claim({ terminating: true }) }), want: [] },
  { name: 'claim naming a volume: nothing', facts: facts({ claim: claim({ volumeName: 'v' }) }), want: [] },
];

describe('claimFixes', () => {
  it.each(rows)('$name', ({ facts: f, want }) => {
    expect(brief(f)).toEqual(want);
  });
});

describe('recreate wording', () => {
  it('a WaitForFirstConsumer class provisions when a pod first uses the claim, not at once', () => {
    const wfc: ClassFacts = { ...sc('late', 'stowage.io/host-path'), sc: { ...sc('late', 'stowage.io/host-path').sc, volumeBindingMode: 'WaitForFirstConsumer' } };
    const fix = claimFixes(facts({ classes: [...classes, wfc] })).find((x) => x.target === 'late')!;
    expect(fix.changes.at(-1)).toBe('stowage.io/host-path provisions a volume for the new claim when a pod first uses it (the class binds on first use)');
    const now = claimFixes(facts()).find((x) => x.target === 'fast')!;
    expect(now.changes.at(-1)).toBe('stowage.io/host-path provisions a volume for the new claim');
  });
});

describe('fixFor', () => {
  const cases: { name: string; kind: Parameters<typeof fixFor>[1]; target?: string; f: FixFacts; allowed: boolean; reason?: RegExp; denied?: boolean }[] = [
    { name: 'a developer naming a volume to pre-bind is denied for who they are', kind: 'pre-bind', target: 'fits', f: facts({ role: 'developer' }), allowed: false, reason: /only administrators/, denied: true },
    { name: 'a recreate refused because a pod uses the claim is not a denial', kind: 'recreate-with-class', target: 'fast', f: facts({ podsUsing: ['web-0'] }), allowed: false, reason: /uses the claim/, denied: false },
    { name: 'a viewer is denied the recreate', kind: 'recreate-with-class', target: 'fast', f: facts({ role: 'viewer', mayWriteClaim: false }), allowed: false, reason: /may not delete and create/, denied: true },
    { name: 'pre-bind a fitting volume', kind: 'pre-bind', target: 'fits', f: facts({ volumes: [pv('fits')] }), allowed: true },
    { name: 'pre-bind an unknown volume', kind: 'pre-bind', target: 'nope', f: facts({ volumes: [pv('fits')] }), allowed: false, reason: /not an Available volume that fits/ },
    { name: 'switch when the class is set', kind: 'switch-class', target: 'fast', f: facts(), allowed: false, reason: /cannot provision this claim here, or the claim's class cannot be set/ },
    { name: 'recreate to the external class', kind: 'recreate-with-class', target: 'remote', f: facts(), allowed: false, reason: /cannot provision/ },
    { name: 'anything on a Bound claim', kind: 'recreate-with-class', target: 'fast', f: facts({ claim: claim({ phase: 'Bound', volumeName: 'v' }) }), allowed: false, reason: /Bound; fixes are for Pending claims/ },
  ];
  it.each(cases)('$name', ({ kind, target, f, allowed, reason, denied }) => {
    const fix = fixFor(f, kind, target);
    expect(fix.allowed).toBe(allowed);
    if (reason) expect(fix.reason).toMatch(reason);
    if (denied !== undefined) expect(Boolean(fix.denied)).toBe(denied);
  });
});

describe('volumePrefill', () => {
  const cases: { name: string; claim: PersistentVolumeClaim; want: Record<string, unknown> }[] = [
    { name: 'plain claim', claim: claim(), want: { capacity: '1Gi', accessModes: ['ReadWriteOnce'], volumeMode: 'Filesystem', storageClassName: 'manual', labels: {} } },
    {
      name: 'selector labels and In expressions',
      claim: claim({ selector: { matchLabels: { tier: 'gold' }, matchExpressions: [{ key: 'zone', operator: 'In', values: ['a', 'b'] }, { key: 'x', operator: 'NotIn', values: ['y'] }] } }),
      want: { labels: { tier: 'gold', zone: 'a' } },
    },
    { name: 'no class', claim: claim({ cls: null }), want: { storageClassName: '' } },
  ];
  it.each(cases)('$name', ({ claim: c, want }) => {
    expect(volumePrefill(c)).toMatchObject(want);
  });
});

import { describe, expect, test } from 'vitest';
import {
  countRemaining,
  decideNamespace,
  emptyTally,
  failingConditions,
  immortalDeleteRefusal,
  nextConditions,
  remainingEstimateSeconds,
  remainingOf,
  terminatingCreateRefusal,
  type ContentTally,
  type NamespaceCondition,
  type NamespaceFacts,
  type NamespaceStep,
} from './namespace-lifecycle';

const T0 = '2026-01-01T00:00:00Z';
const T1 = '2026-01-01T00:05:00Z';

function tally(items: [plural: string, group: string, finalizers?: string[]][], errors: string[] = []): ContentTally {
  const t = emptyTally();
  for (const [p, g, f] of items) countRemaining(t, p, g, f);
  t.errors = errors;
  return t;
}

const ok = (type: string, reason: string, message: string, at = T0): NamespaceCondition => ({ type, status: 'False', lastTransitionTime: at, reason, message });
const allOk = (at = T0): NamespaceCondition[] => [
  ok('NamespaceDeletionDiscoveryFailure', 'ResourcesDiscovered', 'All resources successfully discovered', at),
  ok('NamespaceDeletionGroupVersionParsingFailure', 'ParsedGroupVersions', 'All legacy kube types successfully parsed', at),
  ok('NamespaceDeletionContentFailure', 'ContentDeleted', 'All content successfully deleted, may be waiting on finalization', at),
  ok('NamespaceContentRemaining', 'ContentRemoved', 'All content successfully removed', at),
  ok('NamespaceFinalizersRemaining', 'ContentHasNoFinalizers', 'All content-preserving finalizers finished', at),
];

// Upstream pkg/controller/namespace/deletion/namespaced_resources_deleter_test.go and
// status_condition_utils_test.go, case by case.
describe('namespace controller decisions (upstream TestFinalized, testSyncNamespaceThatIsTerminating, testSyncNamespaceThatIsActive)', () => {
  test.each<{ name: string; facts: NamespaceFacts; want: NamespaceStep['kind'] }>([
    { name: 'an Active namespace is left alone (testSyncNamespaceThatIsActive)', facts: { exists: true, specFinalizers: ['kubernetes'] }, want: 'none' },
    { name: 'a namespace that is gone needs nothing (Delete of a NotFound namespace)', facts: { exists: false, specFinalizers: [] }, want: 'none' },
    { name: 'a Terminating namespace with our finalizer is emptied (testSyncNamespaceThatIsTerminating)', facts: { exists: true, deletionTimestamp: T0, specFinalizers: ['kubernetes'] }, want: 'empty' },
    { name: 'a finalized namespace is deleted (TestFinalized: no spec.finalizers)', facts: { exists: true, deletionTimestamp: T0, specFinalizers: [] }, want: 'delete' },
    { name: 'another party\'s finalizer left: not finalized, wait (TestFinalized: other finalizer)', facts: { exists: true, deletionTimestamp: T0, specFinalizers: ['example.com/other'] }, want: 'wait-for-others' },
    { name: 'ours and another\'s: ours is done first', facts: { exists: true, deletionTimestamp: T0, specFinalizers: ['example.com/other', 'kubernetes'] }, want: 'empty' },
  ])('$name', ({ facts, want }) => {
    expect(decideNamespace(facts).kind).toBe(want);
  });
});

describe('namespace status conditions (upstream TestUpdateConditions and ProcessContentTotals)', () => {
  test.each<{ name: string; old: NamespaceCondition[]; tally: ContentTally; want: NamespaceCondition[]; changed: boolean }>([
    { name: 'write new conditions: every maintained type, each its ok variant', old: [], tally: tally([]), want: allOk(T1), changed: true },
    { name: 'leave unchanged conditions alone (their transition times kept)', old: allOk(), tally: tally([]), want: allOk(), changed: false },
    {
      name: 'leave unknown condition types as they are',
      old: [{ type: 'Example', status: 'True', reason: 'Mine', message: 'kept' }, ...allOk()],
      tally: tally([]),
      want: [{ type: 'Example', status: 'True', reason: 'Mine', message: 'kept' }, ...allOk()],
      changed: false,
    },
    {
      name: 'overwrite with failure: content remaining, counted per resource as upstream prints it',
      old: allOk(),
      tally: tally([
        ['persistentvolumeclaims', '', ['kubernetes.io/pvc-protection']],
        ['persistentvolumeclaims', '', ['kubernetes.io/pvc-protection']],
        ['volumesnapshots', 'snapshot.storage.k8s.io'],
      ]),
      want: [
        ...allOk().slice(0, 3),
        { type: 'NamespaceContentRemaining', status: 'True', lastTransitionTime: T1, reason: 'SomeResourcesRemain', message: 'Some resources are remaining: persistentvolumeclaims. has 2 resource instances, volumesnapshots.snapshot.storage.k8s.io has 1 resource instances' },
        { type: 'NamespaceFinalizersRemaining', status: 'True', lastTransitionTime: T1, reason: 'SomeFinalizersRemain', message: 'Some content in the namespace has finalizers remaining: kubernetes.io/pvc-protection in 2 resource instances' },
      ],
      changed: true,
    },
    {
      name: 'replace with success: the failure clears and its transition time moves',
      old: [...allOk().slice(0, 3), { type: 'NamespaceContentRemaining', status: 'True', lastTransitionTime: T0, reason: 'SomeResourcesRemain', message: 'Some resources are remaining: pods. has 1 resource instances' }, allOk()[4]],
      tally: tally([]),
      want: [...allOk().slice(0, 3), ok('NamespaceContentRemaining', 'ContentRemoved', 'All content successfully removed', T1), allOk()[4]],
      changed: true,
    },
    {
      name: 'content deletion failures, sorted, counted (makeDeleteContentCondition)',
      old: allOk(),
      tally: tally([], ['secrets.: boom', 'configmaps.: bang']),
      want: [
        ...allOk().slice(0, 2),
        { type: 'NamespaceDeletionContentFailure', status: 'True', lastTransitionTime: T1, reason: 'ContentDeletionFailed', message: 'Failed to delete all resource types, 2 remaining: configmaps.: bang, secrets.: boom' },
        ...allOk().slice(3),
      ],
      changed: true,
    },
  ])('$name', ({ old, tally: t, want, changed }) => {
    const got = nextConditions(old, t, T1);
    expect(got.conditions).toEqual(want);
    expect(got.changed).toBe(changed);
  });

  test('finalizers are listed sorted, each with its count', () => {
    const t = tally([
      ['pods', '', ['b.example.com/x']],
      ['configmaps', '', ['a.example.com/y', 'b.example.com/x']],
    ]);
    expect(failingConditions(t, T1).map((c) => c.message)).toEqual([
      'Some resources are remaining: configmaps. has 1 resource instances, pods. has 1 resource instances',
      'Some content in the namespace has finalizers remaining: a.example.com/y in 1 resource instances, b.example.com/x in 2 resource instances',
    ]);
  });
});

describe('namespace lifecycle admission (upstream plugin/pkg/admission/namespace/lifecycle)', () => {
  test.each([
    { name: 'TestAdmissionNamespaceDeletion: default may not be deleted', ns: 'default', refused: true },
    { name: 'TestAdmissionNamespaceDeletion: kube-system may not be deleted', ns: 'kube-system', refused: true },
    { name: 'TestAdmissionNamespaceDeletion: kube-public may not be deleted', ns: 'kube-public', refused: true },
    { name: 'TestAdmissionNamespaceDeletion: any other namespace may', ns: 'team-a', refused: false },
  ])('$name', ({ ns, refused }) => {
    const e = immortalDeleteRefusal(ns);
    if (!refused) return expect(e).toBeUndefined();
    expect(e?.code).toBe('Forbidden');
    expect(e?.message).toBe(`namespaces "${ns}" is forbidden: this namespace may not be deleted`);
  });

  test('TestAdmissionNamespaceTerminating: a create is Forbidden with the NamespaceTerminating cause', () => {
    const e = terminatingCreateRefusal('persistentvolumeclaims', '', 'data', 'team-a');
    expect(e.code).toBe('Forbidden');
    expect(e.message).toBe('persistentvolumeclaims "data" is forbidden: unable to create new content in namespace team-a because it is being terminated');
    expect(e.details.causes).toEqual([{ reason: 'NamespaceTerminating', message: 'namespace team-a is being terminated', field: 'metadata.namespace' }]);
    const grouped = terminatingCreateRefusal('volumesnapshots', 'snapshot.storage.k8s.io', 's1', 'team-a');
    expect(grouped.message).toMatch(/^volumesnapshots\.snapshot\.storage\.k8s\.io "s1" is forbidden: /);
  });
});

describe('the estimate of remaining content (upstream estimateGracefulTermination, finalizerEstimateSeconds)', () => {
  test.each([
    { name: 'nothing remaining: no wait', graces: [], finalizers: false, want: 0 },
    { name: 'pods terminating: the longest grace', graces: [30, 5], finalizers: false, want: 30 },
    { name: 'finalizers only: 15 s', graces: [], finalizers: true, want: 15 },
    { name: 'both: the longer', graces: [5], finalizers: true, want: 15 },
  ])('$name', ({ graces, finalizers, want }) => {
    expect(remainingEstimateSeconds(graces, finalizers)).toBe(want);
  });
});

describe('what a Terminating namespace still holds, read back from its conditions (the dashboard)', () => {
  test.each<{ name: string; tally: ContentTally; want: ReturnType<typeof remainingOf> }>([
    { name: 'nothing remaining', tally: tally([]), want: { resources: [], finalizers: [] } },
    {
      name: 'claims held by pvc-protection and a snapshot of a grouped kind',
      tally: tally([
        ['persistentvolumeclaims', '', ['kubernetes.io/pvc-protection']],
        ['persistentvolumeclaims', '', ['kubernetes.io/pvc-protection']],
        ['volumesnapshots', 'snapshot.storage.k8s.io'],
      ]),
      want: {
        resources: [
          { resource: 'persistentvolumeclaims', group: '', count: 2 },
          { resource: 'volumesnapshots', group: 'snapshot.storage.k8s.io', count: 1 },
        ],
        finalizers: [{ finalizer: 'kubernetes.io/pvc-protection', count: 2 }],
      },
    },
    { name: 'a deletion failure', tally: tally([], ['secrets.: boom']), want: { resources: [], finalizers: [], failure: 'Failed to delete all resource types, 1 remaining: secrets.: boom' } },
  ])('$name', ({ tally: t, want }) => {
    expect(remainingOf(nextConditions([], t, T1).conditions)).toEqual(want);
  });

  test('no conditions yet: nothing known', () => {
    expect(remainingOf(undefined)).toEqual({ resources: [], finalizers: [] });
  });
});

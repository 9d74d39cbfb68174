import { describe, expect, it } from 'vitest';
import { orphanFinalizer } from '../domain/well-known/finalizers';
import { strategyForKind } from '../resources/registry';
import type { KubeObject, Strategy } from '../resources/types';
import { planDelete, type DeletePlan } from './deletion';
import type { DeleteOptions } from './write-options';

const strategy = (kind: string): Strategy => strategyForKind(kind)!;
const MARKED = '2026-01-01T00:00:00Z';

function volume(o: { finalizers?: string[]; marked?: boolean; grace?: number } = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: {
      name: 'pv-1',
      uid: 'u1',
      resourceVersion: '7',
      generation: 2,
      ...(o.finalizers ? { finalizers: o.finalizers } : {}),
      ...(o.marked ? { deletionTimestamp: MARKED, deletionGracePeriodSeconds: o.grace ?? 0 } : {}),
    },
    spec: { capacity: { storage: '1Gi' } },
  };
}

/** A pod running on a node: a node agent must unpublish its volumes, so it has a grace period. */
function runningPod(o: { marked?: boolean; grace?: number } = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'ns', uid: 'u2', generation: 1, ...(o.marked ? { deletionTimestamp: MARKED, deletionGracePeriodSeconds: o.grace ?? 30 } : {}) },
    spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'i' }] },
    status: { phase: 'Running' },
  };
}

function namespace(o: { marked?: boolean; finalizers?: string[] } = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'team', uid: 'u3', ...(o.marked ? { deletionTimestamp: MARKED } : {}) },
    spec: { finalizers: o.finalizers ?? ['kubernetes'] },
    status: { phase: o.marked ? 'Terminating' : 'Active' },
  };
}

/** What a plan says, in a few words a table can hold. */
function summary(plan: DeletePlan) {
  if ('unchanged' in plan) return { outcome: 'unchanged' };
  const m = plan.object.metadata;
  return {
    outcome: plan.type,
    marked: m.deletionTimestamp !== undefined,
    grace: m.deletionGracePeriodSeconds,
    generation: m.generation,
    finalizers: m.finalizers ?? [],
  };
}

describe('planDelete', () => {
  it.each<{ name: string; obj: KubeObject; opts?: DeleteOptions; want: ReturnType<typeof summary> }>([
    { name: 'no finalizers, no grace period: deleted now', obj: volume(), want: { outcome: 'DELETED', marked: false, grace: undefined, generation: 2, finalizers: [] } },
    { name: 'a finalizer holds it: marked, grace 0, generation counted', obj: volume({ finalizers: ['f'] }), want: { outcome: 'MODIFIED', marked: true, grace: 0, generation: 3, finalizers: ['f'] } },
    { name: 'a finalizer holds it, already marked: unchanged', obj: volume({ finalizers: ['f'], marked: true }), want: { outcome: 'unchanged' } },
    { name: 'a finalizer holds it, marked with grace pending: grace cut to 0', obj: volume({ finalizers: ['f'], marked: true, grace: 30 }), want: { outcome: 'MODIFIED', marked: true, grace: 0, generation: 2, finalizers: ['f'] } },
    { name: 'orphan propagation: the orphan finalizer holds it, marked', obj: volume(), opts: { propagationPolicy: 'Orphan' }, want: { outcome: 'MODIFIED', marked: true, grace: 0, generation: 3, finalizers: [orphanFinalizer] } },
    { name: 'orphan propagation, orphan finalizer already there: held by it, marked', obj: volume({ finalizers: [orphanFinalizer] }), opts: { propagationPolicy: 'Orphan' }, want: { outcome: 'MODIFIED', marked: true, grace: 0, generation: 3, finalizers: [orphanFinalizer] } },
    { name: 'running pod: Terminating for its default grace period', obj: runningPod(), want: { outcome: 'MODIFIED', marked: true, grace: 30, generation: 2, finalizers: [] } },
    { name: 'running pod, asked for grace 5: Terminating for 5 s', obj: runningPod(), opts: { gracePeriodSeconds: 5 }, want: { outcome: 'MODIFIED', marked: true, grace: 5, generation: 2, finalizers: [] } },
    { name: 'terminating pod, a longer grace asked: unchanged (never lengthened)', obj: runningPod({ marked: true, grace: 10 }), opts: { gracePeriodSeconds: 60 }, want: { outcome: 'unchanged' } },
    { name: 'terminating pod, a shorter grace asked: shortened, generation kept', obj: runningPod({ marked: true, grace: 30 }), opts: { gracePeriodSeconds: 5 }, want: { outcome: 'MODIFIED', marked: true, grace: 5, generation: 1, finalizers: [] } },
    { name: 'running pod, grace 0 asked: deleted now', obj: runningPod(), opts: { gracePeriodSeconds: 0 }, want: { outcome: 'DELETED', marked: false, grace: undefined, generation: 1, finalizers: [] } },
    { name: 'namespace: marked Terminating by its kind finalizers', obj: namespace(), want: { outcome: 'MODIFIED', marked: true, grace: undefined, generation: undefined, finalizers: [] } },
    { name: 'namespace marked, kind finalizers left: unchanged', obj: namespace({ marked: true }), want: { outcome: 'unchanged' } },
    { name: 'namespace marked, kind finalizers gone: deleted now', obj: namespace({ marked: true, finalizers: [] }), want: { outcome: 'DELETED', marked: true, grace: undefined, generation: undefined, finalizers: [] } },
  ])('$name', ({ obj, opts, want }) => {
    expect(summary(planDelete(strategy(obj.kind), obj.metadata.name!, obj, opts ?? {}))).toEqual(want);
  });

  it('a marked namespace is Terminating', () => {
    const plan = planDelete(strategy('Namespace'), 'team', namespace(), {});
    expect('object' in plan && plan.object.status).toEqual({ phase: 'Terminating' });
  });

  it.each([
    { name: 'uid precondition of another object', opts: { preconditions: { uid: 'other' } }, message: 'Precondition failed: UID in precondition: other, UID in object meta: u1' },
    { name: 'resourceVersion precondition of an older version', opts: { preconditions: { resourceVersion: '6' } }, message: 'Precondition failed: ResourceVersion in precondition: 6, ResourceVersion in object meta: 7' },
  ])('$name: Conflict', ({ opts, message }) => {
    expect(() => planDelete(strategy('PersistentVolume'), 'pv-1', volume(), opts)).toThrow(expect.objectContaining({ code: 'Conflict', message }));
  });

  it('leaves the stored object as it was', () => {
    const prev = volume({ finalizers: ['f'] });
    const before = structuredClone(prev);
    planDelete(strategy('PersistentVolume'), 'pv-1', prev, { propagationPolicy: 'Orphan' });
    expect(prev).toEqual(before);
  });
});

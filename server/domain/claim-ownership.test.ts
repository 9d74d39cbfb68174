import { describe, expect, test } from 'vitest';
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';
import { controllerOwnedChanges, keepControllerOwned } from './claim-ownership';

function claim(o: { volumeName?: string; annotations?: Record<string, string> } = {}): PersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'c', namespace: 'team-a', annotations: o.annotations },
    spec: { accessModes: ['ReadWriteOnce'], volumeName: o.volumeName },
  };
}

describe('controllerOwnedChanges', () => {
  test.each([
    { name: 'a plain new claim', next: claim(), prev: undefined, refused: false },
    { name: 'a new claim naming a volume', next: claim({ volumeName: 'pv-1' }), prev: undefined, refused: true },
    { name: 'a new claim marked bind-completed', next: claim({ annotations: { 'pv.kubernetes.io/bind-completed': 'yes' } }), prev: undefined, refused: true },
    { name: 'a new claim handed to a provisioner', next: claim({ annotations: { 'volume.beta.kubernetes.io/storage-provisioner': 'x' } }), prev: undefined, refused: true },
    { name: 'a new claim naming its node', next: claim({ annotations: { 'volume.kubernetes.io/selected-node': 'n1' } }), prev: undefined, refused: true },
    { name: 'a claim moved to another node', next: claim({ annotations: { 'volume.kubernetes.io/selected-node': 'n2' } }), prev: claim({ annotations: { 'volume.kubernetes.io/selected-node': 'n1' } }), refused: true },
    { name: 'a claim whose selected node is dropped', next: claim(), prev: claim({ annotations: { 'volume.kubernetes.io/selected-node': 'n1' } }), refused: true },
    { name: 'a claim keeping the node placement chose', next: claim({ annotations: { 'volume.kubernetes.io/selected-node': 'n1', team: 'a' } }), prev: claim({ annotations: { 'volume.kubernetes.io/selected-node': 'n1' } }), refused: false },
    { name: 'a bound claim kept as it is', next: claim({ volumeName: 'pv-1', annotations: { 'pv.kubernetes.io/bind-completed': 'yes' } }), prev: claim({ volumeName: 'pv-1', annotations: { 'pv.kubernetes.io/bind-completed': 'yes' } }), refused: false },
    { name: 'a bound claim moved to another volume', next: claim({ volumeName: 'pv-2' }), prev: claim({ volumeName: 'pv-1' }), refused: true },
    { name: 'an unbound claim given a volume', next: claim({ volumeName: 'pv-2' }), prev: claim(), refused: true },
    { name: 'the explanation changed', next: claim({ annotations: { 'stowage.io/binding-explanation': '{"x":1}' } }), prev: claim({ annotations: { 'stowage.io/binding-explanation': '{}' } }), refused: true },
    { name: 'a label-like annotation added', next: claim({ annotations: { team: 'a' } }), prev: claim(), refused: false },
  ])('$name: refused=$refused', ({ next, prev, refused }) => {
    expect(controllerOwnedChanges(next, prev).length > 0).toBe(refused);
  });
});

test('a replace that leaves out what the controllers wrote keeps it, and is then allowed', () => {
  const prev = claim({ volumeName: 'pv-1', annotations: { 'pv.kubernetes.io/bind-completed': 'yes', 'stowage.io/binding-explanation': '{}' } });
  const next = claim({ annotations: { team: 'a' } });
  keepControllerOwned(next, prev);
  expect(next.spec?.volumeName).toBe('pv-1');
  expect(next.metadata.annotations).toEqual({ team: 'a', 'pv.kubernetes.io/bind-completed': 'yes', 'stowage.io/binding-explanation': '{}' });
  expect(controllerOwnedChanges(next, prev)).toEqual([]);
});

// Validation refuses these shapes first (for every role alike); these functions must still
// never throw on them, whatever reaches them.
describe('hostile shapes: never a throw', () => {
  const bound = claim({ volumeName: 'pv-1', annotations: { 'pv.kubernetes.io/bind-completed': 'yes' } });
  const hostile = (o: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', ...o }) as unknown as PersistentVolumeClaim;
  const proto = JSON.parse('{"__proto__":{"polluted":"1"}}') as unknown;
  test.each([
    { name: 'spec a string', next: hostile({ metadata: { name: 'c' }, spec: 'x' }) },
    { name: 'spec null', next: hostile({ metadata: { name: 'c' }, spec: null }) },
    { name: 'spec a list', next: hostile({ metadata: { name: 'c' }, spec: ['a'] }) },
    { name: 'spec a number', next: hostile({ metadata: { name: 'c' }, spec: 42 }) },
    { name: 'annotations a string', next: hostile({ metadata: { name: 'c', annotations: 'x' }, spec: {} }) },
    { name: 'annotations null', next: hostile({ metadata: { name: 'c', annotations: null }, spec: {} }) },
    { name: 'annotations a list', next: hostile({ metadata: { name: 'c', annotations: ['a'] }, spec: {} }) },
    { name: 'annotations a number', next: hostile({ metadata: { name: 'c', annotations: 42 }, spec: {} }) },
    { name: 'annotations with a __proto__ key', next: hostile({ metadata: { name: 'c', annotations: proto }, spec: { volumeName: proto } }) },
    { name: 'metadata a string', next: hostile({ metadata: 'x', spec: {} }) },
    { name: 'metadata null', next: hostile({ metadata: null, spec: {} }) },
  ])('$name', ({ next }) => {
    expect(() => keepControllerOwned(next, bound)).not.toThrow();
    expect(() => controllerOwnedChanges(next, bound)).not.toThrow();
    expect(() => controllerOwnedChanges(next, undefined)).not.toThrow();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test('a stored claim of a broken shape does not throw either', () => {
    const stored = hostile({ metadata: { name: 'c', annotations: 'x' }, spec: 'x' });
    expect(() => keepControllerOwned(claim(), stored)).not.toThrow();
    expect(controllerOwnedChanges(claim(), stored)).toEqual([]);
  });
});

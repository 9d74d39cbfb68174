import { describe, expect, it, test } from 'vitest';
import type { PersistentVolumeClaim } from '@/server/resources/persistent-volume-claim/schema';
import { expandBlocker, expansionStage, newSizeProblem } from './expansion-stage';

const claim = (requested: string, capacity: string, conditions: object[] = [], phase = 'Bound'): PersistentVolumeClaim => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'c', namespace: 'ns' },
  spec: { resources: { requests: { storage: requested } } },
  status: { phase, capacity: { storage: capacity }, conditions },
});

describe('expansionStage', () => {
  test.each([
    { name: 'at its size', c: claim('1Gi', '1Gi'), want: undefined },
    { name: 'not bound', c: claim('2Gi', '1Gi', [], 'Pending'), want: undefined },
    { name: 'nothing yet', c: claim('2Gi', '1Gi'), want: 'Waiting for the resizer' },
    { name: 'Resizing', c: claim('2Gi', '1Gi', [{ type: 'Resizing', status: 'True' }]), want: 'Resizing' },
    { name: 'FileSystemResizePending', c: claim('2Gi', '1Gi', [{ type: 'FileSystemResizePending', status: 'True' }]), want: 'Growing the filesystem' },
    {
      name: 'ControllerResizeError',
      c: claim('2Gi', '1Gi', [{ type: 'Resizing', status: 'True' }, { type: 'ControllerResizeError', status: 'True', message: 'disk full' }]),
      want: 'Resize failed',
    },
  ])('$name -> $want', ({ c, want }) => {
    expect(expansionStage(c)?.label).toBe(want);
  });

  test('the failure detail carries the message', () => {
    const c = claim('2Gi', '1Gi', [{ type: 'ControllerResizeError', status: 'True', message: 'disk full' }]);
    expect(expansionStage(c)?.detail).toBe('1 GiB → 2 GiB: disk full; it is retried.');
  });
});

describe('newSizeProblem', () => {
  test.each([
    { input: '2Gi', current: '1Gi', want: undefined },
    { input: ' 2Gi ', current: '1Gi', want: undefined },
    { input: '1Gi', current: '1Gi', want: 'Must be larger than the current 1 GiB: claims only grow' },
    { input: '512Mi', current: '1Gi', want: 'Must be larger than the current 1 GiB: claims only grow' },
    { input: 'lots', current: '1Gi', want: 'Enter a size, such as 2 Gi' },
    { input: '', current: '1536Mi', want: 'Enter a size, such as 2 Gi' },
    { input: '1536Mi', current: '1536Mi', want: 'Must be larger than the current 1.5 GiB: claims only grow' },
  ])('$input over $current -> $want', ({ input, current, want }) => {
    expect(newSizeProblem(input, current)).toBe(want);
  });
});

describe('expandBlocker', () => {
  const bound = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c' }, spec: {}, status: { phase: 'Bound' } } as const;
  it.each([
    { name: 'class allows, user may: no blocker', claim: bound, sc: { allowVolumeExpansion: true }, may: true, cls: 'fast', want: undefined },
    { name: 'class does not allow', claim: bound, sc: {}, may: true, cls: 'fast', want: 'Class fast does not allow expansion (allowVolumeExpansion is not true).' },
    { name: 'no class', claim: bound, sc: undefined, may: true, cls: '', want: 'The claim has no storage class, so nothing can grow its volume.' },
    { name: 'viewer', claim: bound, sc: { allowVolumeExpansion: true }, may: false, cls: 'fast', want: 'You may not update claims in this namespace.' },
    { name: 'Pending: no Expand at all', claim: { ...bound, status: { phase: 'Pending' } }, sc: {}, may: true, cls: 'fast', want: undefined },
  ])('$name', ({ claim, sc, may, cls, want }) => {
    expect(expandBlocker(claim, sc, may, cls)).toBe(want);
  });
});

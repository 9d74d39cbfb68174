import { describe, expect, test } from 'vitest';
import type { PersistentVolumeClaim } from '../../resources/persistent-volume-claim/schema';
import { capacityQuantity, expansionWanted, fsResizePendingMessage, statusFor } from './decide';

const claim = (requested: string, capacity: string | undefined, phase = 'Bound', extra: Record<string, any> = {}): PersistentVolumeClaim => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'c', namespace: 'ns' },
  spec: { volumeName: 'pv1', resources: { requests: { storage: requested } } },
  status: { phase, ...(capacity ? { capacity: { storage: capacity } } : {}), ...extra },
});

describe('expansionWanted', () => {
  test.each([
    { requested: '2Gi', capacity: '1Gi', phase: 'Bound', want: 2n ** 31n },
    { requested: '1Gi', capacity: '1Gi', phase: 'Bound', want: undefined },
    { requested: '1024Mi', capacity: '1Gi', phase: 'Bound', want: undefined },
    { requested: '1Gi', capacity: '2Gi', phase: 'Bound', want: undefined },
    { requested: '2Gi', capacity: '1Gi', phase: 'Pending', want: undefined },
    { requested: '2G', capacity: '1Gi', phase: 'Bound', want: 2_000_000_000n },
  ])('$requested wanted over capacity $capacity ($phase) -> $want', ({ requested, capacity, phase, want }) => {
    expect(expansionWanted(claim(requested, capacity, phase))).toBe(want);
  });
});

describe('capacityQuantity', () => {
  test.each([
    { requested: '2Gi', bytes: 2n ** 31n, want: '2Gi' },
    { requested: '2Gi', bytes: 2n ** 31n + 512n, want: '2147484160' },
    { requested: '3Gi', bytes: 3n * 2n ** 30n, want: '3Gi' },
  ])('$bytes bytes for a request of $requested -> $want', ({ requested, bytes, want }) => {
    expect(capacityQuantity(claim(requested, '1Gi'), bytes)).toBe(want);
  });
});

describe('statusFor', () => {
  const now = '2026-01-01T00:00:00Z';
  const c = claim('2Gi', '1Gi', 'Bound', { conditions: [{ type: 'Other', status: 'True' }] });

  test('resizing: allocatedResources, InProgress, Resizing condition', () => {
    const s = statusFor(c, { kind: 'resizing' }, now);
    expect(s.allocatedResources).toEqual({ storage: '2Gi' });
    expect(s.allocatedResourceStatuses).toEqual({ storage: 'ControllerResizeInProgress' });
    expect(s.conditions.map((x: any) => x.type)).toEqual(['Other', 'Resizing']);
    expect(s.capacity).toEqual({ storage: '1Gi' });
  });

  test('failed: the error is a condition; capacity unchanged', () => {
    const s = statusFor(c, { kind: 'failed', message: 'disk full' }, now);
    expect(s.conditions.map((x: any) => [x.type, x.message])).toEqual([['Other', undefined], ['Resizing', undefined], ['ControllerResizeError', 'disk full']]);
    expect(s.capacity).toEqual({ storage: '1Gi' });
  });

  test('fsPending: FileSystemResizePending replaces Resizing', () => {
    const s = statusFor(statusAs(c, statusFor(c, { kind: 'resizing' }, now)), { kind: 'fsPending' }, now);
    expect(s.conditions.map((x: any) => [x.type, x.message])).toEqual([['Other', undefined], ['FileSystemResizePending', fsResizePendingMessage]]);
    expect(s.allocatedResourceStatuses).toEqual({ storage: 'NodeResizePending' });
  });

  test('done: the new capacity, the stage conditions and statuses gone', () => {
    const resizing = statusAs(c, statusFor(c, { kind: 'resizing' }, now));
    const pending = statusAs(c, statusFor(resizing, { kind: 'fsPending' }, now));
    const s = statusFor(pending, { kind: 'done', capacity: '2Gi' }, now);
    expect(s.capacity).toEqual({ storage: '2Gi' });
    expect(s.allocatedResources).toEqual({ storage: '2Gi' });
    expect(s.allocatedResourceStatuses).toBeUndefined();
    expect(s.conditions).toEqual([{ type: 'Other', status: 'True' }]);
  });
});

function statusAs(c: PersistentVolumeClaim, status: Record<string, any>): PersistentVolumeClaim {
  return { ...c, status };
}

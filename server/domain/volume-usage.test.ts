import { describe, expect, it } from 'vitest';
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';
import type { PersistentVolume } from '../resources/persistent-volume/schema';
import { capacityView, usageOf, usageUpdate, withUsage } from './volume-usage';
import { annUsedBytes as U, annUsedBytesPartial as P, annUsedBytesTime as T } from './well-known/annotations';

const pv = (annotations: Record<string, string> = {}, size = '1Gi'): PersistentVolume => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name: 'v', annotations },
  spec: { capacity: { storage: size } },
  status: { phase: 'Bound' },
});
const NOW = Date.parse('2026-01-01T00:10:00Z');

describe('usageOf', () => {
  const cases: { name: string; a: Record<string, string>; want: unknown }[] = [
    { name: 'absent', a: {}, want: undefined },
    { name: 'valid', a: { [U]: '42', [T]: '2026-01-01T00:00:00Z' }, want: { bytes: 42n, at: '2026-01-01T00:00:00Z', partial: false } },
    { name: 'partial', a: { [U]: '42', [T]: '2026-01-01T00:00:00Z', [P]: 'true' }, want: { bytes: 42n, at: '2026-01-01T00:00:00Z', partial: true } },
    { name: 'negative number', a: { [U]: '-1', [T]: '2026-01-01T00:00:00Z' }, want: undefined },
    { name: 'not a number', a: { [U]: '1Gi', [T]: '2026-01-01T00:00:00Z' }, want: undefined },
    { name: 'absurdly long', a: { [U]: '9'.repeat(31), [T]: '2026-01-01T00:00:00Z' }, want: undefined },
    { name: 'bad time', a: { [U]: '1', [T]: 'yesterday' }, want: undefined },
  ];
  it.each(cases)('$name', ({ a, want }) => expect(usageOf(pv(a))).toEqual(want));
});

describe('usageUpdate', () => {
  const cases: { name: string; a: Record<string, string>; bytes: bigint; partial?: boolean; write: boolean }[] = [
    { name: 'first measurement is written', a: {}, bytes: 5n, write: true },
    { name: 'changed and old enough', a: { [U]: '4', [T]: '2026-01-01T00:00:00Z' }, bytes: 5n, write: true },
    { name: 'changed but too recent', a: { [U]: '4', [T]: '2026-01-01T00:09:30Z' }, bytes: 5n, write: false },
    { name: 'unchanged and old', a: { [U]: '5', [T]: '2026-01-01T00:00:00Z' }, bytes: 5n, write: false },
    { name: 'same bytes but now complete', a: { [U]: '5', [T]: '2026-01-01T00:00:00Z', [P]: 'true' }, bytes: 5n, write: true },
    { name: 'garbled previous value is replaced', a: { [U]: 'x', [T]: '2026-01-01T00:09:59Z' }, bytes: 5n, write: true },
    { name: 'a time in the future does not block forever', a: { [U]: '4', [T]: '2027-01-01T00:00:00Z' }, bytes: 5n, write: true },
  ];
  it.each(cases)('$name', ({ a, bytes, partial, write }) => {
    const u = usageUpdate(pv(a), { bytes, partial: partial ?? false }, NOW, 60_000);
    expect(u !== undefined).toBe(write);
    if (u) expect(u[U]).toBe(bytes.toString());
  });

  it('withUsage drops a stale partial mark and keeps other annotations', () => {
    const next = withUsage({ keep: 'me', [P]: 'true' }, usageUpdate(pv(), { bytes: 1n, partial: false }, NOW, 60_000)!);
    expect(next).toEqual({ keep: 'me', [U]: '1', [T]: '2026-01-01T00:10:00Z' });
  });
});

describe('capacityView', () => {
  const claim = (phase: string, cap?: string): PersistentVolumeClaim => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'c', namespace: 'n' },
    spec: { resources: { requests: { storage: '1Gi' } } },
    status: { phase, ...(cap ? { capacity: { storage: cap } } : {}) },
  });
  const cases: { name: string; c: PersistentVolumeClaim; v?: PersistentVolume; want: Record<string, unknown> }[] = [
    { name: 'pending: requested only', c: claim('Pending'), want: { requested: '1Gi', partial: false, unknownBecause: 'the claim is not bound to a volume yet' } },
    { name: 'bound without usage', c: claim('Bound', '2Gi'), v: pv(), want: { requested: '1Gi', provisioned: '2Gi', unknownBecause: expect.stringMatching(/nothing reports/) } },
    { name: 'bound with usage', c: claim('Bound', '2Gi'), v: pv({ [U]: String(512 * 1024 * 1024), [T]: '2026-01-01T00:00:00Z' }), want: { used: '512Mi', percent: 25, usedAt: '2026-01-01T00:00:00Z' } },
    { name: 'over-full is capped at 100', c: claim('Bound', '1Gi'), v: pv({ [U]: String(4 * 1024 ** 3), [T]: '2026-01-01T00:00:00Z' }), want: { used: '4Gi', percent: 100 } },
  ];
  it.each(cases)('$name', ({ c, v, want }) => expect(capacityView(c, v)).toMatchObject(want));
});

import { describe, expect, test } from 'vitest';
import { bucketsFor, seriesFromChanges, type BucketChange, type Totals } from './capacity-series';

const H = 60 * 60 * 1000;
const D = 24 * H;
const NOW = Date.UTC(2026, 10, 24, 12, 30);

describe('bucketsFor', () => {
  test.each([
    { name: 'no history: one hourly bucket ending now', oldest: undefined, want: { from: Date.UTC(2026, 10, 24, 12), stepMs: H, count: 1 } },
    { name: 'history of 3 hours: hourly from its first hour', oldest: NOW - 3 * H, want: { from: Date.UTC(2026, 10, 24, 9), stepMs: H, count: 4 } },
    { name: 'history of 5 days: daily from its first day', oldest: NOW - 5 * D, want: { from: Date.UTC(2026, 10, 19), stepMs: D, count: 6 } },
    { name: 'history of a year: daily over the last 30 days', oldest: NOW - 365 * D, want: { from: Date.UTC(2026, 9, 25), stepMs: D, count: 31 } },
  ])('$name', ({ oldest, want }) => {
    expect(bucketsFor(NOW, oldest)).toEqual(want);
  });

  const M = 60 * 1000;
  test.each([
    { name: 'no history: one 5-minute bucket ending now', oldest: undefined, want: { from: NOW, stepMs: 5 * M, count: 1 } },
    { name: 'history of 40 minutes: 5-minute buckets from its first', oldest: NOW - 40 * M - 1, want: { from: NOW - 45 * M, stepMs: 5 * M, count: 9 } },
    { name: 'history of exactly 3 hours: still 5 minutes', oldest: NOW - 3 * H, want: { from: NOW - 3 * H, stepMs: 5 * M, count: 36 } },
    { name: 'history of 5 hours: 15-minute buckets', oldest: NOW - 5 * H, want: { from: NOW - 5 * H, stepMs: 15 * M, count: 20 } },
    { name: 'history of 13 hours: hourly', oldest: NOW - 13 * H, want: { from: Date.UTC(2026, 10, 23, 23), stepMs: H, count: 14 } },
    { name: 'history of 5 days: daily as without fine', oldest: NOW - 5 * D, want: { from: Date.UTC(2026, 10, 19), stepMs: D, count: 6 } },
  ])('fine: $name', ({ oldest, want }) => {
    expect(bucketsFor(NOW, oldest, 30, true)).toEqual(want);
  });
});

describe('seriesFromChanges', () => {
  const b = { from: 0, stepMs: 10, count: 3 };
  const now = 25;
  const t = (total: number, bound: number): Totals => ({ total: BigInt(total), bound: BigInt(bound) });
  const ch = (key: string, bucket: number, total: number, bound: number): BucketChange => ({ key, bucket, ...t(total, bound) });
  test.each([
    {
      name: 'no changes: flat at the current value',
      current: [['a', t(5, 2)]] as [string, Totals][],
      changes: [] as BucketChange[],
      want: { a: [[0, 5, 2], [10, 5, 2], [20, 5, 2], [25, 5, 2]] },
    },
    {
      name: 'a volume added in bucket 1 and bound in bucket 2',
      current: [['a', t(15, 10)]] as [string, Totals][],
      changes: [ch('a', 1, 10, 0), ch('a', 2, 0, 10)],
      want: { a: [[0, 5, 0], [10, 5, 0], [20, 15, 0], [25, 15, 10]] },
    },
    {
      name: 'a class whose volumes are all gone starts from its changes',
      current: [] as [string, Totals][],
      changes: [ch('b', 0, 4, 0), ch('b', 2, -4, 0)],
      want: { b: [[0, 0, 0], [10, 4, 0], [20, 4, 0], [25, 0, 0]] },
    },
  ])('$name', ({ current, changes, want }) => {
    const got = seriesFromChanges(b, now, new Map(current), changes);
    expect(Object.fromEntries([...got].map(([k, pts]) => [k, pts.map((p) => [p.t, Number(p.total), Number(p.bound)])]))).toEqual(want);
  });
});

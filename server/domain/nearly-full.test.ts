import { describe, expect, test } from 'vitest';
import { isNearlyFull, nearlyFullAction, nearlyFullMessage, parseNearlyFullPercent, type NearlyFullInput } from './nearly-full';

const Gi = 1024n ** 3n;

describe('nearlyFullAction', () => {
  const rows: (Omit<NearlyFullInput, 'thresholdPercent'> & { threshold?: number; want: string })[] = [
    { usedBytes: 0n, capacityBytes: Gi, marked: false, want: 'none' },
    { usedBytes: (Gi * 89n) / 100n, capacityBytes: Gi, marked: false, want: 'none' },
    { usedBytes: (Gi * 90n) / 100n + 1n, capacityBytes: Gi, marked: false, want: 'warn' },
    { usedBytes: Gi, capacityBytes: Gi, marked: false, want: 'warn' },
    { usedBytes: Gi, capacityBytes: Gi, marked: true, want: 'none' },
    { usedBytes: (Gi * 95n) / 100n, capacityBytes: Gi, marked: true, want: 'none' },
    { usedBytes: (Gi * 50n) / 100n, capacityBytes: Gi, marked: true, want: 'clear' },
    { usedBytes: (Gi * 50n) / 100n, capacityBytes: Gi, marked: false, threshold: 50, want: 'warn' },
    { usedBytes: (Gi * 80n) / 100n, capacityBytes: Gi, marked: true, threshold: 99, want: 'clear' },
    { usedBytes: undefined, capacityBytes: Gi, marked: true, want: 'clear' },
    { usedBytes: undefined, capacityBytes: Gi, marked: false, want: 'none' },
    { usedBytes: 5n, capacityBytes: 0n, marked: false, want: 'none' },
    { usedBytes: 5n, capacityBytes: undefined, marked: true, want: 'clear' },
  ];
  test.each(rows.map((r) => ({ ...r, name: `used ${r.usedBytes} of ${r.capacityBytes} at ${r.threshold ?? 90}%, ${r.marked ? 'marked' : 'unmarked'}: ${r.want}` })))('$name', (r) => {
    expect(nearlyFullAction({ usedBytes: r.usedBytes, capacityBytes: r.capacityBytes, marked: r.marked, thresholdPercent: r.threshold ?? 90 })).toBe(r.want);
  });

  test('a usage series warns once per crossing', () => {
    let marked = false;
    const actions: string[] = [];
    for (const pct of [10n, 50n, 91n, 95n, 99n, 40n, 92n, 92n]) {
      const a = nearlyFullAction({ usedBytes: (Gi * pct) / 100n, capacityBytes: Gi, thresholdPercent: 90, marked });
      actions.push(a);
      if (a === 'warn') marked = true;
      if (a === 'clear') marked = false;
    }
    expect(actions).toEqual(['none', 'none', 'warn', 'none', 'none', 'clear', 'warn', 'none']);
  });
});

describe('isNearlyFull', () => {
  test.each([
    { used: 90n, cap: 100n, pct: 90, want: true },
    { used: 89n, cap: 100n, pct: 90, want: false },
    { used: 100n, cap: 100n, pct: 100, want: true },
    { used: 1n, cap: 0n, pct: 1, want: false },
  ])('$used of $cap at $pct%: $want', ({ used, cap, pct, want }) => expect(isNearlyFull(used, cap, pct)).toBe(want));
});

describe('parseNearlyFullPercent', () => {
  test.each([
    { v: '90', want: 90 },
    { v: ' 75 ', want: 75 },
    { v: 100, want: 100 },
    { v: '0', want: undefined },
    { v: '101', want: undefined },
    { v: '9.5', want: undefined },
    { v: 'ninety', want: undefined },
    { v: undefined, want: undefined },
  ])('$v: $want', ({ v, want }) => expect(parseNearlyFullPercent(v)).toBe(want));
});

test('the message says used, capacity, share and threshold', () => {
  expect(nearlyFullMessage((Gi * 95n) / 100n, Gi, 90)).toBe('volume is 94% full: 973Mi used of 1Gi (warning at 90%); expand the claim or free space');
});

import { describe, expect, test } from 'vitest';
import { gibOf, percentOf, shortBytes } from './capacity-format';

describe('shortBytes', () => {
  test.each([
    { s: null, want: 'unknown' },
    { s: '0', want: '0' },
    { s: '512', want: '512' },
    { s: '1024', want: '1Ki' },
    { s: String(1536 * 1024 * 1024), want: '1.5Gi' },
    { s: String(10n * 1024n ** 4n), want: '10Ti' },
    { s: String(-(5n * 1024n ** 3n)), want: '-5Gi' },
  ])('$s → $want', ({ s, want }) => {
    expect(shortBytes(s)).toBe(want);
  });
});

describe('gibOf and percentOf', () => {
  test.each([
    { name: '2 GiB', got: () => gibOf(String(2n * 1024n ** 3n)), want: 2 },
    { name: 'half a GiB', got: () => gibOf(String(512n * 1024n ** 2n)), want: 0.5 },
    { name: '5 of 20 is 25%', got: () => percentOf('5', '20'), want: 25 },
    { name: 'nothing of nothing has no percent', got: () => percentOf('0', '0'), want: undefined },
  ])('$name', ({ got, want }) => {
    expect(got()).toBe(want);
  });
});

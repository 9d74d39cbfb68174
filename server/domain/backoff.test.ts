import { describe, expect, it } from 'vitest';
import { backoffMs } from './backoff';

describe('backoffMs', () => {
  it.each([
    { failures: 0, want: 1000 },
    { failures: 1, want: 1000 },
    { failures: 2, want: 2000 },
    { failures: 3, want: 4000 },
    { failures: 5, want: 16_000 },
    { failures: 6, want: 30_000 },
    { failures: 1000, want: 30_000 },
    { failures: -3, want: 1000 },
  ])('$failures failures in a row: $want ms (1 s doubling, at most 30 s)', ({ failures, want }) => {
    expect(backoffMs(failures, 1000, 30_000)).toBe(want);
  });
});

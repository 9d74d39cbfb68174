import { describe, expect, it } from 'vitest';
import { afterFailedTry, databaseRetryDelayMs } from './database-wait';

describe('databaseRetryDelayMs', () => {
  it.each([
    [0, 500],
    [1, 1000],
    [2, 2000],
    [3, 4000],
    [4, 5000],
    [50, 5000],
    [-1, 500],
  ])('try %i waits %i ms', (attempt, want) => expect(databaseRetryDelayMs(attempt)).toBe(want));
});

describe('afterFailedTry', () => {
  it.each([
    { name: 'unreachable at first: wait and try again', unavailable: true, stopping: false, attempt: 0, elapsedMs: 10, want: { retry: true, delayMs: 500 } },
    { name: 'still unreachable later: a longer pause', unavailable: true, stopping: false, attempt: 3, elapsedMs: 5_000, want: { retry: true, delayMs: 4000 } },
    { name: 'a wrong password or a bug: no retry', unavailable: false, stopping: false, attempt: 0, elapsedMs: 10, want: { retry: false } },
    { name: 'stopping: no retry', unavailable: true, stopping: true, attempt: 0, elapsedMs: 10, want: { retry: false } },
    { name: 'the next try would end past the wait: give up', unavailable: true, stopping: false, attempt: 8, elapsedMs: 56_000, want: { retry: false } },
    { name: 'just inside the wait: one more try', unavailable: true, stopping: false, attempt: 8, elapsedMs: 55_000, want: { retry: true, delayMs: 5000 } },
  ])('$name', ({ name: _name, want, ...input }) => expect(afterFailedTry(input)).toEqual(want));
});

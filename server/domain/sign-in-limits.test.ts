import { describe, expect, test } from 'vitest';
import { EMPTY, isIdle, startAttempt, succeeded, waitFor, type KeyState } from './sign-in-limits';

const limits = { windowMs: 1000, lockoutMs: 5000 };

function attempts(times: number[], max: number, ok: boolean[] = []): KeyState {
  return times.reduce((s, t, i) => {
    const next = startAttempt(s, t, max, limits);
    return ok[i] ? succeeded(next, t) : next;
  }, EMPTY);
}

describe('sign-in limits', () => {
  test.each([
    { name: '2 failures of 3 allowed: may try', times: [0, 10], max: 3, at: 20, wait: 0 },
    { name: 'the 3rd failure of 3 locks out for the lockout time', times: [0, 10, 20], max: 3, at: 20, wait: 5000 },
    { name: 'a lockout ends', times: [0, 10, 20], max: 3, at: 5020, wait: 0 },
    { name: 'failures older than the window do not count', times: [0, 10, 1500], max: 3, at: 1500, wait: 0 },
    { name: 'a success does not count as a failure', times: [0, 10, 20], max: 3, ok: [false, true, false], at: 20, wait: 0 },
  ])('$name', ({ times, max, ok, at, wait }) => {
    expect(waitFor(attempts(times, max, ok), at)).toBe(wait);
  });

  test('a running attempt counts until it is known to have succeeded', () => {
    const s = startAttempt(startAttempt(EMPTY, 0, 2, limits), 1, 2, limits);
    expect(waitFor(s, 1)).toBe(5000);
  });

  test.each([
    { name: 'fresh state', s: EMPTY, at: 0, want: true },
    { name: 'a failure within the window', s: { failures: [900], lockedUntil: 0 }, at: 1000, want: false },
    { name: 'locked', s: { failures: [], lockedUntil: 2000 }, at: 1000, want: false },
    { name: 'everything old', s: { failures: [0], lockedUntil: 500 }, at: 1000, want: true },
  ])('isIdle: $name → $want', ({ s, at, want }) => expect(isIdle(s, at, 1000)).toBe(want));
});

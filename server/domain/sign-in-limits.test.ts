import { describe, expect, test } from 'vitest';
import {
  addressAttempt,
  addressOverCeiling,
  addressSucceeded,
  backoffMs,
  clientKey,
  freeFailuresFrom,
  NO_FAILURES,
  pairAttempt,
  pairForgotten,
  pairWait,
  type AddressState,
  type PairState,
} from './sign-in-limits';

const limits = { freeFailures: 3, firstDelayMs: 1000, maxDelayMs: 8000, addressCeiling: 4, windowMs: 60_000 };

/** A pair after failed attempts at these times, with `free` free failures. */
function failed(times: number[], free = limits.freeFailures): PairState {
  return times.reduce((s, t) => pairAttempt(s, t, free, limits), NO_FAILURES);
}

describe('backoffMs', () => {
  test.each([
    { failures: 0, free: 3, want: 0 },
    { failures: 2, free: 3, want: 0 },
    { failures: 3, free: 3, want: 1000 },
    { failures: 4, free: 3, want: 2000 },
    { failures: 5, free: 3, want: 4000 },
    { failures: 6, free: 3, want: 8000 },
    { failures: 7, free: 3, want: 8000 },
    { failures: 10_000, free: 3, want: 8000 },
    { failures: 1, free: 0, want: 1000 },
    { failures: 2, free: 0, want: 2000 },
  ])('$failures failures, $free free: wait $want ms', ({ failures, free, want }) => {
    expect(backoffMs(failures, free, limits)).toBe(want);
  });
});

describe('pairWait: one name from one address', () => {
  test.each([
    { name: '2 failures of 3 free: may try at once', times: [0, 10], at: 20, want: 0 },
    { name: 'the 3rd failure: the next attempt waits 1 s from it', times: [0, 10, 20], at: 20, want: 1000 },
    { name: 'the wait runs from the last failure', times: [0, 10, 20], at: 520, want: 500 },
    { name: 'the wait over: may try again', times: [0, 10, 20], at: 1020, want: 0 },
    { name: 'the 4th failure doubles the wait', times: [0, 10, 20, 1020], at: 1020, want: 2000 },
    { name: 'the 5th doubles it again', times: [0, 10, 20, 1020, 3020], at: 3020, want: 4000 },
    { name: 'the wait stops growing at the cap', times: [0, 1, 2, 3, 4, 5, 6, 7, 8], at: 8, want: 8000 },
    { name: 'quiet for the window after the wait: forgotten', times: [0, 10, 20], at: 20 + 1000 + 60_000, want: 0 },
  ])('$name', ({ times, at, want }) => {
    expect(pairWait(failed(times), at, limits.freeFailures, limits)).toBe(want);
  });

  test('a pair forgotten after its quiet window starts again with its free failures', () => {
    const old = failed([0, 10, 20, 1020]);
    expect(pairForgotten(old, 1020 + 2000 + 60_000, 3, limits)).toBe(true);
    const again = pairAttempt(old, 1020 + 2000 + 60_000, 3, limits);
    expect(again.failures).toBe(1);
  });

  test('a running attempt counts: a parallel burst waits after the free ones', () => {
    const burst = failed([5, 5, 5]);
    expect(pairWait(burst, 5, 3, limits)).toBe(1000);
  });
});

describe('the address ceiling only ends the free failures', () => {
  const at = (times: number[]): AddressState => times.reduce<AddressState>((s, t) => addressAttempt(s, t, limits), []);
  test.each([
    { name: 'under the ceiling', times: [0, 1, 2], now: 3, over: false, free: 3 },
    { name: 'at the ceiling', times: [0, 1, 2, 3], now: 4, over: true, free: 0 },
    { name: 'failures older than the window do not count', times: [0, 1, 2, 3], now: 60_001, over: false, free: 3 },
  ])('$name: over=$over, free=$free', ({ times, now, over, free }) => {
    expect(addressOverCeiling(at(times), now, limits)).toBe(over);
    expect(freeFailuresFrom(at(times), now, limits)).toBe(free);
  });

  test('an attempt that succeeded no longer counts for the address', () => {
    expect(addressSucceeded(at([0, 1, 2, 3]), 2)).toEqual([0, 1, 3]);
    expect(addressSucceeded(at([0, 1]), 7)).toEqual([0, 1]);
  });

  test('the address keeps no more failures than its ceiling needs', () => {
    expect(at(Array.from({ length: 50 }, (_, i) => i))).toHaveLength(limits.addressCeiling);
  });

  test('past the ceiling, a name that has not failed from the address may still try', () => {
    expect(pairWait(NO_FAILURES, 10, freeFailuresFrom(at([0, 1, 2, 3]), 10, limits), limits)).toBe(0);
  });
});

describe('clientKey: who a sign-in is counted for', () => {
  test.each([
    { address: '203.0.113.7', want: '203.0.113.7' },
    { address: '::ffff:203.0.113.7', want: '203.0.113.7' },
    { address: '2001:db8:1:2:aaaa:bbbb:cccc:dddd', want: '2001:db8:1:2::/64' },
    { address: '2001:db8:1:2::1', want: '2001:db8:1:2::/64' },
    { address: '2001:DB8:0001:0002::ffff', want: '2001:db8:1:2::/64' },
    { address: 'fe80::1%eth0', want: 'fe80:0:0:0::/64' },
    { address: '::1', want: '0:0:0:0::/64' },
    { address: 'not:an:address::x', want: 'not:an:address::x' },
  ])('$address → $want', ({ address, want }) => {
    expect(clientKey(address)).toBe(want);
  });

  test('two addresses of one /64 are one client; of two /64s, two', () => {
    expect(clientKey('2001:db8:1:2::a')).toBe(clientKey('2001:db8:1:2::b'));
    expect(clientKey('2001:db8:1:2::a')).not.toBe(clientKey('2001:db8:1:3::a'));
  });
});

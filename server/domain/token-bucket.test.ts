import { describe, expect, it } from 'vitest';
import { TokenBucket } from './token-bucket';

describe('TokenBucket', () => {
  it('gives its burst at once, then refuses until refilled', () => {
    const b = new TokenBucket(10, 3);
    expect([b.take(0), b.take(0), b.take(0), b.take(0)]).toEqual([true, true, true, false]);
    expect(b.take(50)).toBe(false); // half a token
    expect(b.take(100)).toBe(true); // one token after 100 ms at 10/s
    expect(b.take(100)).toBe(false);
  });

  it('never holds more than its burst, however long it waited', () => {
    const b = new TokenBucket(10, 2);
    expect(b.take(0)).toBe(true);
    const later = 3_600_000;
    expect([b.take(later), b.take(later), b.take(later)]).toEqual([true, true, false]);
  });

  it('a clock that goes back refills nothing and breaks nothing', () => {
    const b = new TokenBucket(1, 1);
    expect(b.take(10_000)).toBe(true);
    expect(b.take(5_000)).toBe(false);
    expect(b.take(10_500)).toBe(false);
    expect(b.take(11_000)).toBe(true);
  });

  it.each([
    { perSecond: 20, burst: 20, seconds: 10, most: 20 + 200 },
    { perSecond: 0.5, burst: 1, seconds: 10, most: 1 + 5 },
  ])('over $seconds s at $perSecond/s with a burst of $burst: at most $most taken', ({ perSecond, burst, seconds, most }) => {
    const b = new TokenBucket(perSecond, burst);
    let taken = 0;
    for (let t = 0; t <= seconds * 1000; t += 1) if (b.take(t)) taken++;
    expect(taken).toBeLessThanOrEqual(most);
    expect(taken).toBeGreaterThanOrEqual(most - 1);
  });
});

import { describe, expect, test } from 'vitest';
import { sleep } from './sleep';

/** How long `sleep` took, in ms, for a signal the case prepares. */
async function timed(ms: number, prepare: (c: AbortController) => void): Promise<number> {
  const c = new AbortController();
  const t0 = performance.now();
  const p = sleep(ms, c.signal);
  prepare(c);
  await p;
  return performance.now() - t0;
}

describe('sleep: an abortable wait that never throws', () => {
  test.each([
    { name: 'already aborted: ends at once', ms: 60_000, prepare: (c: AbortController) => c.abort(), atMost: 1_000 },
    { name: 'zero ms: ends at once', ms: 0, prepare: () => {}, atMost: 1_000 },
    { name: 'negative ms: ends at once', ms: -5, prepare: () => {}, atMost: 1_000 },
    { name: 'aborted while waiting: ends early, without an error', ms: 60_000, prepare: (c: AbortController) => void Promise.resolve().then(() => c.abort()), atMost: 1_000 },
  ])('$name', async ({ ms, prepare, atMost }) => {
    expect(await timed(ms, prepare)).toBeLessThan(atMost);
  });

  test('not aborted: waits the whole time', async () => {
    expect(await timed(50, () => {})).toBeGreaterThanOrEqual(45);
  });

  test('an abort after the wait ended changes nothing', async () => {
    const c = new AbortController();
    await sleep(1, c.signal);
    expect(() => c.abort()).not.toThrow();
  });
});

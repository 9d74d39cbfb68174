import { describe, expect, it } from 'vitest';
import { agentWaitRetryMs } from './sweep';

describe('agentWaitRetryMs', () => {
  const now = 1_000_000;
  it.each([
    [0, 1000],
    [1500, 1000],
    [4000, 2000],
    [30_000, 15_000],
    [60_000, 30_000],
    [3_600_000, 30_000],
    // a clock that went back: the shortest wait
    [-5000, 1000],
  ])('waiting %i ms: again after %i ms', (waited, want) => {
    expect(agentWaitRetryMs({ updatedAt: new Date(now - waited) }, now)).toBe(want);
  });
});

import { describe, expect, it } from 'vitest';
import { pendingKindOf } from './claim-waiting';

const claim = (phase: string, reason?: string) => ({ status: { phase, ...(reason ? { conditions: [{ type: 'Bindable', status: 'False', reason }] } : {}) } });

describe('pendingKindOf', () => {
  it.each([
    { name: 'WaitForFirstConsumer waits for a pod', claim: claim('Pending', 'WaitForFirstConsumer'), want: 'waiting' },
    { name: 'WaitForPodScheduled waits for a pod', claim: claim('Pending', 'WaitForPodScheduled'), want: 'waiting' },
    { name: 'no matching volume is stuck', claim: claim('Pending', 'NoMatchingVolume'), want: 'stuck' },
    { name: 'not looked at yet is stuck', claim: claim('Pending'), want: 'stuck' },
    { name: 'Bound is neither', claim: claim('Bound', 'WaitForFirstConsumer'), want: undefined },
  ])('$name', ({ claim: c, want }) => {
    expect(pendingKindOf(c)).toBe(want);
  });
});

import { describe, expect, test } from 'vitest';
import { aggregateEvent, type EventSeries } from './event-aggregation';

const t0 = '2026-01-01T00:00:00Z';
const t8s = '2026-01-01T00:00:08Z';
const t11m = '2026-01-01T00:11:00Z';
const series = (message: string, count = 1): EventSeries => ({ message, count, firstTimestamp: t0, lastTimestamp: t0 });

describe('aggregateEvent', () => {
  test.each([
    { name: 'first event creates a series', existing: undefined, message: 'a', now: t0, want: { action: 'create', count: 1, message: 'a', firstTimestamp: t0 } },
    { name: 'same message 8 s later counts up', existing: series('a'), message: 'a', now: t8s, want: { action: 'update', count: 2, message: 'a', firstTimestamp: t0 } },
    {
      name: 'changing free-byte count 8 s later counts up and takes the newest message',
      existing: series('only 76797532 bytes free', 4),
      message: 'only 76797000 bytes free',
      now: t8s,
      want: { action: 'update', count: 5, message: 'only 76797000 bytes free', firstTimestamp: t0 },
    },
    { name: 'same message after a quiet window still counts up', existing: series('a', 3), message: 'a', now: t11m, want: { action: 'update', count: 4, firstTimestamp: t0 } },
    { name: 'new message after a quiet window starts a new series', existing: series('a', 3), message: 'b', now: t11m, want: { action: 'update', count: 1, message: 'b', firstTimestamp: t11m } },
    { name: 'existing without count counts as one', existing: { message: 'a', lastTimestamp: t0 }, message: 'a', now: t8s, want: { count: 2 } },
  ])('$name', ({ existing, message, now, want }) => {
    const step = aggregateEvent(existing, message, now);
    expect(step).toMatchObject(want);
    expect(step.lastTimestamp).toBe(now);
  });
});

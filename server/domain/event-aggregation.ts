// Event aggregation, as client-go's EventCorrelator does it (aggregator + logger): events
// about one object from one component with the same type and reason are one Event. A repeat
// within the window increments `count` on it and takes the newest message (a message that
// carries a changing number, "… 76797532 bytes free", must not make a new Event each retry);
// a repeat after a quiet window starts a new series on the same Event (count back to 1), so
// a count never spans two unrelated episodes. Pure: the recorder reads and writes.

/** client-go's defaultAggregateIntervalInSeconds. */
export const eventAggregationWindowMs = 10 * 60 * 1000;

export interface EventSeries {
  message: string;
  count?: number;
  firstTimestamp?: string;
  lastTimestamp?: string;
}

export type AggregationStep =
  | { action: 'create'; count: 1; firstTimestamp: string; lastTimestamp: string; message: string }
  | { action: 'update'; count: number; firstTimestamp: string; lastTimestamp: string; message: string };

export function aggregateEvent(existing: EventSeries | undefined, message: string, now: string, windowMs = eventAggregationWindowMs): AggregationStep {
  if (!existing) return { action: 'create', count: 1, firstTimestamp: now, lastTimestamp: now, message };
  const last = Date.parse(existing.lastTimestamp ?? existing.firstTimestamp ?? '');
  const quiet = !Number.isFinite(last) || Date.parse(now) - last > windowMs;
  if (quiet && existing.message !== message) {
    return { action: 'update', count: 1, firstTimestamp: now, lastTimestamp: now, message };
  }
  return {
    action: 'update',
    count: (existing.count ?? 1) + 1,
    firstTimestamp: existing.firstTimestamp ?? now,
    lastTimestamp: now,
    message,
  };
}

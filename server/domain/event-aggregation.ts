// Event aggregation, as client-go's EventCorrelator does it (events_cache.go: the aggregator,
// then the logger). Events about one object from one component with the same type and reason
// are "similar"; each distinct message of them is its own Event, counted up when it repeats.
// Once a tenth distinct similar message arrives within ten minutes of the last one, it and
// every similar event after it go to one combined Event instead, whose message is
// "(combined from similar events): " and the newest message, and whose count goes up with
// each: a retry whose message carries a changing number ("… 76797532 bytes free") writes at
// most ten Events, not a new one every few seconds. Ten quiet minutes start over.
//
// Pure: the recorder keeps the records (in memory, as client-go does, bounded) and writes.

/** client-go's defaultAggregateMaxEvents. */
export const maxSimilarEvents = 10;
/** client-go's defaultAggregateIntervalInSeconds. */
export const similarEventsWindowMs = 10 * 60 * 1000;
/** client-go's EventAggregatorByReasonMessageFunc prefix. */
export const combinedPrefix = '(combined from similar events): ';

/** What the correlator remembers of one object's similar events (client-go's aggregateRecord). */
export interface SimilarRecord {
  /** The distinct messages seen, at most maxSimilarEvents - 1 kept once combining. */
  messages: Set<string>;
  lastMs: number;
}

export interface Correlation {
  record: SimilarRecord;
  /** True: write to the combined Event with `message`; false: to the Event of this exact message. */
  combined: boolean;
  message: string;
}

export function correlateSimilar(
  previous: SimilarRecord | undefined,
  message: string,
  nowMs: number,
  opts: { max?: number; windowMs?: number } = {},
): Correlation {
  const max = opts.max ?? maxSimilarEvents;
  const windowMs = opts.windowMs ?? similarEventsWindowMs;
  const fresh = !previous || nowMs - previous.lastMs > windowMs;
  const messages = new Set(fresh ? [] : previous.messages);
  messages.add(message);
  if (messages.size < max) return { record: { messages, lastMs: nowMs }, combined: false, message };
  // Do not grow the set any larger (client-go pops any one).
  const first = messages.values().next();
  if (!first.done) messages.delete(first.value);
  return { record: { messages, lastMs: nowMs }, combined: true, message: `${combinedPrefix}${message}` };
}

import { describe, expect, test } from 'vitest';
import { combinedPrefix, correlateSimilar, maxSimilarEvents, similarEventsWindowMs, type SimilarRecord } from './event-aggregation';

/** Feeds messages one after another (1 s apart unless given) and returns each correlation. */
function feed(messages: (string | [string, number])[]) {
  let record: SimilarRecord | undefined;
  let t = 0;
  return messages.map((m) => {
    const [message, gap] = typeof m === 'string' ? [m, 1000] : m;
    t += gap;
    const c = correlateSimilar(record, message, t);
    record = c.record;
    return { combined: c.combined, message: c.message, distinct: c.record.messages.size };
  });
}

const numbered = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `only ${76797532 - (from + i) * 100} bytes free`);

describe('correlateSimilar (client-go EventAggregate)', () => {
  test.each([
    { name: 'a first event is its own', input: ['a'], combined: [false] },
    { name: 'repeats of one message never combine', input: Array(30).fill('a'), combined: Array(30).fill(false) },
    { name: 'nine distinct messages are nine Events', input: numbered(9), combined: Array(9).fill(false) },
    { name: 'the tenth distinct message within the window is combined', input: numbered(10), combined: [...Array(9).fill(false), true] },
    { name: 'once combining, later similar events stay combined', input: numbered(15), combined: [...Array(9).fill(false), ...Array(6).fill(true)] },
  ])('$name', ({ input, combined }) => {
    expect(feed(input).map((c) => c.combined)).toEqual(combined);
  });

  test('a combined message carries the prefix and the newest message; the set does not grow past max - 1', () => {
    const out = feed(numbered(12));
    expect(out[9].message).toBe(`${combinedPrefix}${numbered(10)[9]}`);
    expect(out[11].message).toBe(`${combinedPrefix}${numbered(12)[11]}`);
    expect(Math.max(...out.map((c) => c.distinct))).toBe(maxSimilarEvents - 1);
    expect(out[8].message).toBe(numbered(9)[8]);
  });

  test('ten quiet minutes start over; a gap of exactly the window does not', () => {
    const quiet = feed([...numbered(9), [numbered(1, 9)[0], similarEventsWindowMs + 1]]);
    expect(quiet.at(-1)).toMatchObject({ combined: false, distinct: 1 });
    const exact = feed([...numbered(9), [numbered(1, 9)[0], similarEventsWindowMs]]);
    expect(exact.at(-1)!.combined).toBe(true);
  });
});

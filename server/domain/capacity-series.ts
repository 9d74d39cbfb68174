// The trend of a sum (bytes per class) over time buckets, counted back from its current
// value with the change of each bucket: the value at the end of bucket i is the current
// value minus every change made after bucket i. Pure: no I/O.

export interface Totals {
  total: bigint;
  bound: bigint;
}

export interface BucketChange extends Totals {
  key: string;
  bucket: number;
}

export interface SeriesPoint extends Totals {
  /** ms since the epoch. */
  t: number;
}

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

const MINUTE_MS = 60 * 1000;

/**
 * The buckets of a trend: hourly when the history is at most two days old, else daily over
 * at most `days` days; `from` is aligned to the step (the hour, the UTC day). With `fine`
 * (a chart of recent history), a history of at most 3 hours has 5-minute buckets and one of
 * at most 12 hours 15-minute ones, so a volume made minutes ago is drawn where it was made.
 */
export function bucketsFor(now: number, oldest: number | undefined, days = 30, fine = false): { from: number; stepMs: number; count: number } {
  const earliest = now - days * DAY_MS;
  const first = Math.max(oldest ?? now, earliest);
  const span = now - first;
  const stepMs = fine && span <= 3 * HOUR_MS ? 5 * MINUTE_MS : fine && span <= 12 * HOUR_MS ? 15 * MINUTE_MS : span <= 2 * DAY_MS ? HOUR_MS : DAY_MS;
  const from = Math.floor(first / stepMs) * stepMs;
  return { from, stepMs, count: Math.max(1, Math.ceil((now - from) / stepMs)) };
}

/**
 * One series per key: a point at `from` and at the end of each bucket (the last at `now`),
 * counted back from `current`. Keys that have changes but no current value start from zero.
 */
export function seriesFromChanges(
  b: { from: number; stepMs: number; count: number },
  now: number,
  current: Map<string, Totals>,
  changes: BucketChange[],
): Map<string, SeriesPoint[]> {
  const keys = new Set([...current.keys(), ...changes.map((c) => c.key)]);
  const out = new Map<string, SeriesPoint[]>();
  for (const key of keys) {
    const perBucket = new Map<number, Totals>();
    for (const c of changes) {
      if (c.key !== key) continue;
      const x = perBucket.get(c.bucket) ?? { total: 0n, bound: 0n };
      perBucket.set(c.bucket, { total: x.total + c.total, bound: x.bound + c.bound });
    }
    let v = current.get(key) ?? { total: 0n, bound: 0n };
    const points: SeriesPoint[] = [];
    // From the newest bucket back: the value at its end, then take its changes away.
    for (let i = b.count - 1; i >= 0; i--) {
      points.push({ t: Math.min(b.from + (i + 1) * b.stepMs, now), ...v });
      const d = perBucket.get(i);
      if (d) v = { total: v.total - d.total, bound: v.bound - d.bound };
    }
    points.push({ t: b.from, ...v });
    out.set(key, points.reverse());
  }
  return out;
}

// Repeats folded into one row, as kubectl's event count does ("×12, last 3 min ago"): rows
// next to each other (in the order shown) with the same key become one, which keeps the
// newest row, the count and the span of time. Pure.
import { ageOf } from '../format/format';

export interface Repeated<T> {
  /** The first row of the run in display order (the newest, in a newest-first list). */
  row: T;
  count: number;
  /** Times of the run's rows: the earliest and the latest. */
  first: string;
  last: string;
}

export function groupRepeats<T>(rows: readonly T[], keyOf: (r: T) => string, timeOf: (r: T) => string): Repeated<T>[] {
  const out: Repeated<T>[] = [];
  let key: string | undefined;
  for (const r of rows) {
    const k = keyOf(r);
    const t = timeOf(r);
    const cur = out.at(-1);
    if (cur && k === key) {
      cur.count++;
      if (t < cur.first) cur.first = t;
      if (t > cur.last) cur.last = t;
      continue;
    }
    key = k;
    out.push({ row: r, count: 1, first: t, last: t });
  }
  return out;
}

/** "×12, last 3m ago" for a run of repeats; "" for a single row. */
export function repeatText(g: { count: number; last: string }, now: number): string {
  return g.count > 1 ? `×${g.count}, last ${ageOf(g.last, now)} ago` : '';
}

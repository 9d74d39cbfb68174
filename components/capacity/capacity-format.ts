// Byte figures of the Capacity page's charts: one unit per chart, numbers in it on the axis
// (sizes in text are format/size.ts).

/** The binary units a chart may be drawn in, smallest first. */
export const CHART_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'] as const;
export type ChartUnit = (typeof CHART_UNITS)[number];

const unitBytes = (u: ChartUnit) => 1n << BigInt(10 * CHART_UNITS.indexOf(u));

/**
 * The one unit a chart is drawn in: the largest in which its maximum is at least 1, so
 * every tick is a number below 1024 of it (300 TiB is "300", never "307200 GiB").
 */
export function chartUnit(maxBytes: bigint): ChartUnit {
  let u: ChartUnit = 'B';
  for (const c of CHART_UNITS) if (maxBytes >= unitBytes(c)) u = c;
  return u;
}

/** Bytes (decimal string) as a number of `unit`, to a thousandth. */
export function inUnit(s: string, unit: ChartUnit): number {
  return Number((BigInt(s) * 1000n) / unitBytes(unit)) / 1000;
}

/** A y-axis tick: at most two decimals, none kept that are zero ("0.25", "1.5", "300"). */
export function tickText(v: number): string {
  return String(Number(v.toFixed(2)));
}

export interface ChartAxis {
  unit: ChartUnit;
  /** From 0 to the first tick at or above the maximum, at most 5 steps of 1, 2, 2.5 or 5 × 10ⁿ. */
  ticks: number[];
  /** Pixels the axis needs for its widest tick label and the unit label beside it. */
  width: number;
}

const STEPS = [1, 2, 2.5, 5];

/** Round ticks for 0..max (max in the chart's unit); [0, 1] when everything is zero. */
export function niceTicks(max: number): number[] {
  if (!(max > 0)) return [0, 1];
  for (let e = Math.floor(Math.log10(max)) - 1; ; e++) {
    for (const m of STEPS) {
      const step = m * 10 ** e;
      const n = Math.ceil(max / step - 1e-9);
      if (n <= 5) return Array.from({ length: n + 1 }, (_, i) => Number((i * step).toFixed(6)));
    }
  }
}

// Mantine draws y ticks 12px high and moves them 10px left; the unit label is drawn turned
// on its side inside the axis. A digit or point of a 12px label is at most 7px wide.
const TICK_SHIFT = 10;
const CHAR_PX = 7;
const UNIT_LABEL_PX = 22;

/** The unit, ticks and width of the y-axis of a chart whose largest value is `maxBytes`. */
export function chartAxis(maxBytes: bigint): ChartAxis {
  const unit = chartUnit(maxBytes);
  const ticks = niceTicks(inUnit(maxBytes.toString(), unit));
  const widest = Math.max(...ticks.map((t) => tickText(t).length));
  return { unit, ticks, width: TICK_SHIFT + widest * CHAR_PX + UNIT_LABEL_PX };
}

/** Part of a whole as a whole percent, or undefined when the whole is zero. */
export function percentOf(part: string, whole: string): number | undefined {
  const w = BigInt(whole);
  if (w === 0n) return undefined;
  return Number((BigInt(part) * 100n) / w);
}

// "Days until full" for one storage class: a least-squares line through the bound bytes of
// a series of samples, projected to the class's provisioned capacity. Pure: no I/O.

export interface CapacitySample {
  /** Time of the sample, ms since the epoch. */
  t: number;
  /** Bytes provisioned (sum of volume capacity) at `t`. */
  provisioned: number;
  /** Bytes of those volumes that are bound at `t`. */
  bound: number;
}

export type Forecast =
  | { state: 'unknown'; reason: string }
  | { state: 'full' }
  | { state: 'not-filling'; bytesPerDay: number }
  | { state: 'filling'; days: number; bytesPerDay: number };

const DAY_MS = 24 * 60 * 60 * 1000;

/** Fewest samples, and shortest time span, that a trend is drawn from. */
export const MIN_SAMPLES = 3;
export const MIN_SPAN_MS = 60 * 60 * 1000;

/** Least-squares slope of y over x (y per x unit); undefined when x does not vary. */
export function leastSquaresSlope(points: { x: number; y: number }[]): number | undefined {
  const n = points.length;
  if (n < 2) return undefined;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (const p of points) {
    sxy += (p.x - mx) * (p.y - my);
    sxx += (p.x - mx) * (p.x - mx);
  }
  return sxx === 0 ? undefined : sxy / sxx;
}

/**
 * When will the bound bytes reach the provisioned capacity? Uses the newest sample's
 * capacity and bound bytes, and the slope of bound bytes over all samples.
 */
export function forecastFull(samples: CapacitySample[]): Forecast {
  const s = [...samples].sort((a, b) => a.t - b.t);
  const last = s.at(-1);
  if (!last) return { state: 'unknown', reason: 'no history' };
  if (last.provisioned <= 0) return { state: 'unknown', reason: 'no capacity provisioned' };
  if (last.bound >= last.provisioned) return { state: 'full' };
  if (s.length < MIN_SAMPLES || last.t - s[0].t < MIN_SPAN_MS) return { state: 'unknown', reason: 'too little history' };
  // Time in days from the first sample, so the sums stay small.
  const slope = leastSquaresSlope(s.map((p) => ({ x: (p.t - s[0].t) / DAY_MS, y: p.bound })));
  if (slope === undefined) return { state: 'unknown', reason: 'too little history' };
  if (slope <= 0) return { state: 'not-filling', bytesPerDay: slope };
  return { state: 'filling', days: (last.provisioned - last.bound) / slope, bytesPerDay: slope };
}

/** The estimate as a person reads it. */
export function forecastText(f: Forecast): string {
  switch (f.state) {
    case 'unknown':
      return `unknown (${f.reason})`;
    case 'full':
      return 'full now';
    case 'not-filling':
      return 'not filling';
    case 'filling':
      return f.days < 1 ? 'less than a day' : `${Math.floor(f.days)} days`;
  }
}

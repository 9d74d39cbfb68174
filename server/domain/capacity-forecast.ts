// "Days until full" for one storage class: a least-squares line through the bound bytes of
// a series of samples, projected to the class's provisioned capacity; and the same line
// through a namespace's requested bytes, projected to a ResourceQuota's storage limit.
// Pure: no I/O.
import { REQUESTS_STORAGE, STORAGE_CLASS_SUFFIX } from './quota';
import { quantityFromJSON, quantityToBytes } from './quantity';

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
  /** A provisioner makes volumes as claims ask: provisioned always equals bound, nothing fills. */
  | { state: 'on-demand' }
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
 * capacity and bound bytes, and the slope of bound bytes over all samples. A class whose
 * provisioner makes each volume for its claim (`dynamic`) has no stock of volumes to run
 * out of: its volumes are bound from birth, so "bound reaches provisioned" says nothing.
 */
export function forecastFull(samples: CapacitySample[], opts: { dynamic?: boolean } = {}): Forecast {
  if (opts.dynamic) return { state: 'on-demand' };
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

export interface StorageLimit {
  /** The quota resource: requests.storage, or <class>.storageclass.storage.k8s.io/requests.storage. */
  resource: string;
  /** The class whose claims the limit counts; undefined for requests.storage (every claim). */
  storageClass: string | undefined;
  hardBytes: bigint;
}

/** The storage-request limits of a quota's spec.hard (claim counts and unreadable values left out). */
export function storageLimits(hard: Record<string, unknown> | undefined): StorageLimit[] {
  const perClass = STORAGE_CLASS_SUFFIX + REQUESTS_STORAGE;
  const out: StorageLimit[] = [];
  for (const [resource, value] of Object.entries(hard ?? {})) {
    const storageClass = resource === REQUESTS_STORAGE ? undefined : resource.endsWith(perClass) ? resource.slice(0, -perClass.length) : null;
    if (storageClass === null || storageClass === '') continue;
    const q = quantityFromJSON(value);
    if (q) out.push({ resource, storageClass, hardBytes: quantityToBytes(q) });
  }
  return out.sort((a, b) => a.resource.localeCompare(b.resource));
}

/**
 * When will the requested bytes reach a quota's limit? The limit stands in for the
 * provisioned capacity of forecastFull; a limit of 0 admits no storage, so it is full.
 */
export function forecastQuotaFull(samples: { t: number; requested: number }[], hardBytes: number): Forecast {
  if (hardBytes <= 0) return { state: 'full' };
  return forecastFull(samples.map((s) => ({ t: s.t, provisioned: hardBytes, bound: s.requested })));
}

const RANK: Record<Forecast['state'], number> = { full: 0, filling: 1, 'not-filling': 2, 'on-demand': 3, unknown: 4 };

/** Order of urgency: full, then filling soonest first, then not filling, then unknown. */
export function soonerFirst(a: Forecast, b: Forecast): number {
  return RANK[a.state] - RANK[b.state] || (a.state === 'filling' && b.state === 'filling' ? a.days - b.days : 0);
}

/** The estimate as a person reads it. */
export function forecastText(f: Forecast): string {
  switch (f.state) {
    case 'unknown':
      return `unknown (${f.reason})`;
    case 'full':
      return 'full now';
    case 'on-demand':
      return 'provisioned on demand';
    case 'not-filling':
      return 'not filling';
    case 'filling':
      return f.days < 1 ? 'less than a day' : `${Math.floor(f.days)} days`;
  }
}

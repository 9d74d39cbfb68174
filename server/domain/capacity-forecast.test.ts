import { describe, expect, test } from 'vitest';
import { forecastFull, forecastQuotaFull, forecastText, leastSquaresSlope, soonerFirst, storageLimits, type CapacitySample, type Forecast } from './capacity-forecast';

const H = 60 * 60 * 1000;
const D = 24 * H;
const T0 = Date.UTC(2026, 10, 1);
const G = 1024 ** 3;

/** Daily samples of `bound` (in Gi) at a constant `prov` Gi. */
function daily(prov: number, bound: number[]): CapacitySample[] {
  return bound.map((b, i) => ({ t: T0 + i * D, provisioned: prov * G, bound: b * G }));
}

describe('forecastFull', () => {
  const cases: { name: string; samples: CapacitySample[]; dynamic?: boolean; want: Forecast }[] = [
    { name: 'no samples: unknown', samples: [], want: { state: 'unknown', reason: 'no history' } },
    { name: 'nothing provisioned: unknown', samples: daily(0, [0, 0, 0]), want: { state: 'unknown', reason: 'no capacity provisioned' } },
    { name: 'two samples: too little history', samples: daily(100, [10, 20]), want: { state: 'unknown', reason: 'too little history' } },
    {
      name: 'three samples within minutes: too little history',
      samples: [0, 1, 2].map((i) => ({ t: T0 + i * 60_000, provisioned: 100 * G, bound: i * G })),
      want: { state: 'unknown', reason: 'too little history' },
    },
    { name: 'all bound: full', samples: daily(100, [50, 80, 100]), want: { state: 'full' } },
    { name: 'one sample already full: full', samples: daily(100, [100]), want: { state: 'full' } },
    { name: 'a provisioner makes every volume bound: provisioned on demand, not full', samples: daily(100, [50, 80, 100]), dynamic: true, want: { state: 'on-demand' } },
    { name: 'a provisioner class with no history: provisioned on demand', samples: [], dynamic: true, want: { state: 'on-demand' } },
    { name: 'flat: not filling', samples: daily(100, [40, 40, 40, 40]), want: { state: 'not-filling', bytesPerDay: 0 } },
    { name: 'shrinking: not filling', samples: daily(100, [60, 50, 40]), want: { state: 'not-filling', bytesPerDay: -10 * G } },
    { name: '10 Gi a day with 50 Gi left: 5 days', samples: daily(100, [30, 40, 50]), want: { state: 'filling', days: 5, bytesPerDay: 10 * G } },
    { name: 'noisy growth fits the line: 0.9 Gi a day, 16 Gi left', samples: daily(20, [0, 2, 1, 3, 4]), want: { state: 'filling', days: 16 / 0.9, bytesPerDay: 0.9 * G } },
  ];
  test.each(cases)('$name', ({ samples, dynamic, want }) => {
    const got = forecastFull(samples, { dynamic });
    expect(got.state).toBe(want.state);
    if (got.state === 'filling' && want.state === 'filling') {
      expect(got.days).toBeCloseTo(want.days, 6);
      expect(got.bytesPerDay).toBeCloseTo(want.bytesPerDay, 0);
    } else {
      expect(got).toEqual(want);
    }
  });

  test('uses the newest capacity even when samples arrive out of order', () => {
    const s = daily(100, [30, 40, 50]);
    s[2] = { ...s[2], provisioned: 70 * G };
    const got = forecastFull([s[2], s[0], s[1]]);
    expect(got).toMatchObject({ state: 'filling' });
    expect(got.state === 'filling' && got.days).toBeCloseTo(2, 6);
  });
});

describe('leastSquaresSlope', () => {
  test.each([
    { name: 'one point has no slope', points: [{ x: 1, y: 1 }], want: undefined },
    { name: 'same x has no slope', points: [{ x: 1, y: 1 }, { x: 1, y: 5 }], want: undefined },
    { name: 'a line y = 2x + 1', points: [0, 1, 2, 3].map((x) => ({ x, y: 2 * x + 1 })), want: 2 },
  ])('$name', ({ points, want }) => {
    expect(leastSquaresSlope(points)).toBe(want);
  });
});

describe('forecastText', () => {
  test.each<{ f: Forecast; want: string }>([
    { f: { state: 'unknown', reason: 'too little history' }, want: 'unknown (too little history)' },
    { f: { state: 'full' }, want: 'full now' },
    { f: { state: 'on-demand' }, want: 'provisioned on demand' },
    { f: { state: 'not-filling', bytesPerDay: 0 }, want: 'not filling' },
    { f: { state: 'filling', days: 0.4, bytesPerDay: 1 }, want: 'less than a day' },
    { f: { state: 'filling', days: 12.7, bytesPerDay: 1 }, want: '12 days' },
  ])('$want', ({ f, want }) => {
    expect(forecastText(f)).toBe(want);
  });
});

describe('storageLimits', () => {
  test.each([
    { name: 'no hard limits', hard: undefined, want: [] },
    { name: 'requests.storage counts every claim', hard: { 'requests.storage': '10Gi' }, want: [{ resource: 'requests.storage', storageClass: undefined, hardBytes: 10n * 1024n ** 3n }] },
    {
      name: 'a per-class limit names its class',
      hard: { 'fast.storageclass.storage.k8s.io/requests.storage': '1G' },
      want: [{ resource: 'fast.storageclass.storage.k8s.io/requests.storage', storageClass: 'fast', hardBytes: 1_000_000_000n }],
    },
    {
      name: 'claim counts, other resources, unreadable values and an empty class are left out',
      hard: {
        persistentvolumeclaims: '5',
        'fast.storageclass.storage.k8s.io/persistentvolumeclaims': '1',
        pods: '4',
        'requests.storage': 'lots',
        '.storageclass.storage.k8s.io/requests.storage': '1Gi',
      },
      want: [],
    },
  ])('$name', ({ hard, want }) => {
    expect(storageLimits(hard)).toEqual(want);
  });
});

describe('forecastQuotaFull', () => {
  const days = (req: number[]) => req.map((r, i) => ({ t: T0 + i * D, requested: r * G }));
  test.each([
    { name: 'a limit of 0 is full', samples: days([0, 0, 0]), hard: 0, want: { state: 'full' } },
    { name: 'requests at the limit: full', samples: days([1, 2, 6]), hard: 6 * G, want: { state: 'full' } },
    { name: 'no history', samples: [], hard: 6 * G, want: { state: 'unknown', reason: 'no history' } },
    { name: 'flat requests: not filling', samples: days([2, 2, 2]), hard: 6 * G, want: { state: 'not-filling', bytesPerDay: 0 } },
    { name: '10 Gi a day with 70 Gi of a 100 Gi quota left: 7 days', samples: days([0, 10, 20, 30]), hard: 100 * G, want: { state: 'filling', days: 7, bytesPerDay: 10 * G } },
  ])('$name', ({ samples, hard, want }) => {
    expect(forecastQuotaFull(samples, hard)).toEqual(want);
  });
});

describe('soonerFirst', () => {
  test('full, then filling soonest first, then not filling, then unknown', () => {
    const f: Forecast[] = [
      { state: 'unknown', reason: 'no history' },
      { state: 'filling', days: 9, bytesPerDay: 1 },
      { state: 'not-filling', bytesPerDay: 0 },
      { state: 'full' },
      { state: 'filling', days: 2, bytesPerDay: 1 },
    ];
    expect([...f].sort(soonerFirst).map((x) => (x.state === 'filling' ? x.days : x.state))).toEqual(['full', 2, 9, 'not-filling', 'unknown']);
  });
});

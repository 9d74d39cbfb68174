import { describe, expect, test } from 'vitest';
import { chartAxis, chartUnit, inUnit, niceTicks, percentOf, tickText } from './capacity-format';

const Ki = 1024n;
const Gi = 1024n ** 3n;
const Ti = 1024n ** 4n;

describe('chartUnit: the largest binary unit in which the maximum is at least 1', () => {
  test.each([
    { name: 'nothing', max: 0n, want: 'B' },
    { name: '1023 bytes', max: 1023n, want: 'B' },
    { name: '1 KiB', max: Ki, want: 'KiB' },
    { name: 'just under 1 GiB', max: Gi - 1n, want: 'MiB' },
    { name: '1 GiB', max: Gi, want: 'GiB' },
    { name: '1023.9 GiB', max: 1024n * Gi - 1n, want: 'GiB' },
    { name: '300 TiB', max: 300n * Ti, want: 'TiB' },
    { name: '2 PiB', max: 2048n * Ti, want: 'PiB' },
    { name: '8 EiB', max: 8n * 1024n ** 6n, want: 'EiB' },
  ])('$name → $want', ({ max, want }) => {
    expect(chartUnit(max)).toBe(want);
  });
});

describe('niceTicks: 0 to the first round tick at or above the maximum, at most 5 steps', () => {
  test.each([
    { max: 0, want: [0, 1] },
    { max: 1, want: [0, 0.2, 0.4, 0.6, 0.8, 1] },
    { max: 1.1, want: [0, 0.25, 0.5, 0.75, 1, 1.25] },
    { max: 15, want: [0, 5, 10, 15] },
    { max: 300, want: [0, 100, 200, 300] },
    { max: 301, want: [0, 100, 200, 300, 400] },
    { max: 1000, want: [0, 200, 400, 600, 800, 1000] },
    { max: 1023.999, want: [0, 250, 500, 750, 1000, 1250] },
  ])('$max → $want', ({ max, want }) => {
    expect(niceTicks(max)).toEqual(want);
  });
});

describe('chartAxis: labels stay short and the axis is wide enough for them', () => {
  test.each([
    { name: '300 TiB', max: 300n * Ti, unit: 'TiB', labels: ['0', '100', '200', '300'] },
    { name: '1.5 GiB', max: (3n * Gi) / 2n, unit: 'GiB', labels: ['0', '0.5', '1', '1.5'] },
    { name: '1023.9 TiB', max: 1024n * Ti - 1n, unit: 'TiB', labels: ['0', '250', '500', '750', '1000', '1250'] },
    { name: 'nothing', max: 0n, unit: 'B', labels: ['0', '1'] },
  ])('$name: $unit, $labels', ({ max, unit, labels }) => {
    const a = chartAxis(max);
    expect(a.unit).toBe(unit);
    expect(a.ticks.map(tickText)).toEqual(labels);
    // Never a label longer than four characters, and 7px per character beside the 10px
    // shift and the unit label.
    const widest = Math.max(...labels.map((l) => l.length));
    expect(widest).toBeLessThanOrEqual(4);
    expect(a.width).toBeGreaterThanOrEqual(10 + 7 * widest + 22);
  });

  test('every maximum from 1 byte to 8 EiB gets labels of at most four characters', () => {
    for (let b = 1n; b < 1n << 63n; b = (b * 37n) / 10n + 1n) {
      const a = chartAxis(b);
      expect(a.ticks.at(-1)! >= inUnit(b.toString(), a.unit), `${b}`).toBe(true);
      expect(Math.max(...a.ticks.map((t) => tickText(t).length)), `${b}`).toBeLessThanOrEqual(4);
    }
  });
});

describe('inUnit, tickText and percentOf', () => {
  test.each([
    { name: '2 GiB in GiB', got: () => inUnit(String(2n * Gi), 'GiB'), want: 2 },
    { name: 'half a GiB in GiB', got: () => inUnit(String(512n * 1024n ** 2n), 'GiB'), want: 0.5 },
    { name: '300 TiB in TiB', got: () => inUnit(String(300n * Ti), 'TiB'), want: 300 },
    { name: 'a tick with float noise', got: () => tickText(0.1 + 0.2), want: '0.3' },
    { name: 'a whole tick', got: () => tickText(300), want: '300' },
    { name: '5 of 20 is 25%', got: () => percentOf('5', '20'), want: 25 },
    { name: 'nothing of nothing has no percent', got: () => percentOf('0', '0'), want: undefined },
  ])('$name', ({ got, want }) => {
    expect(got()).toBe(want);
  });
});

import { describe, expect, test } from 'vitest';
import { ageOf, humanDuration, shortHumanDuration } from './duration';

const s = 1000;
const m = 60 * s;
const h = 60 * m;
const d = 24 * h;
const y = 365 * d;

describe('humanDuration', () => {
  // Upstream TestHumanDuration and TestHumanDurationBoundaries.
  test.each([
    [s, '1s'],
    [45 * s, '45s'],
    [70 * s, '70s'],
    [190 * s, '3m10s'],
    [70 * m, '70m'],
    [47 * h, '47h'],
    [49 * h, '2d1h'],
    [8 * d + 2 * h, '8d'],
    [367 * d, '367d'],
    [2 * y + 25 * h, '2y1d'],
    [8 * y + 2 * h, '8y'],
    [-2 * s, '<invalid>'],
    [-2 * s + 1, '0s'],
    [0, '0s'],
    [s - 1, '0s'],
    [2 * m - 1, '119s'],
    [2 * m, '2m'],
    [2 * m + s, '2m1s'],
    [5 * m + 30 * s, '5m30s'],
    [10 * m - 1, '9m59s'],
    [10 * m, '10m'],
    [10 * m + s, '10m'],
    [3 * h - 1, '179m'],
    [3 * h, '3h'],
    [3 * h + m, '3h1m'],
    [8 * h - 1, '7h59m'],
    [8 * h, '8h'],
    [8 * h + 59 * m, '8h'],
    [2 * d - 1, '47h'],
    [2 * d, '2d'],
    [2 * d + h, '2d1h'],
    [8 * d - 1, '7d23h'],
    [8 * d, '8d'],
    [8 * d + 23 * h, '8d'],
    [2 * y - 1, '729d'],
    [2 * y, '2y'],
    [2 * y + 23 * h + 59 * m, '2y'],
    [2 * y + d - 1, '2y'],
    [2 * y + d, '2y1d'],
    [3 * y, '3y'],
    [7 * y, '7y'],
    [8 * y - 1, '7y364d'],
    [8 * y, '8y'],
    [8 * y + 364 * d, '8y'],
    [9 * y, '9y'],
  ])('%d ms is %s', (ms, text) => {
    expect(humanDuration(ms)).toBe(text);
  });
});

describe('shortHumanDuration', () => {
  test.each([
    [-2 * s, '<invalid>'],
    [-2 * s + 1, '0s'],
    [0, '0s'],
    [s, '1s'],
    [m - 1, '59s'],
    [m, '1m'],
    [2 * m - 1, '1m'],
    [h - 1, '59m'],
    [h, '1h'],
    [d - 1, '23h'],
    [d, '1d'],
    [y - 1, '364d'],
    [y, '1y'],
    [2 * y, '2y'],
  ])('%d ms is %s', (ms, text) => {
    expect(shortHumanDuration(ms)).toBe(text);
  });
});

describe('ageOf', () => {
  const now = new Date('2026-11-21T12:00:00Z');
  test.each<[string | undefined, string]>([
    [undefined, '<unknown>'],
    ['', '<unknown>'],
    ['not a time', '<unknown>'],
    ['0001-01-01T00:00:00Z', '<unknown>'],
    ['2026-11-21T12:00:00Z', '0s'],
    ['2026-11-21T12:00:01Z', '0s'],
    ['2026-11-21T12:00:03Z', '<invalid>'],
    ['2026-11-21T11:59:15Z', '45s'],
    ['2026-11-21T11:54:30Z', '5m30s'],
    ['2026-11-19T09:00:00Z', '2d3h'],
    ['2023-11-21T12:00:00Z', '3y1d'],
    ['2019-11-21T12:00:00Z', '7y2d'],
  ])('%j is %s', (timestamp, age) => {
    expect(ageOf(timestamp, now)).toBe(age);
  });
});

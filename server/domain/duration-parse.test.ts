import { describe, expect, it } from 'vitest';
import { parseDuration } from './duration-parse';

describe('parseDuration', () => {
  it.each([
    ['30s', 30_000],
    ['1m30s', 90_000],
    ['1.5h', 5_400_000],
    ['500ms', 500],
    ['2m', 120_000],
    ['0s', 0],
    ['30', undefined],
    ['-5s', undefined],
    ['5 s', undefined],
    ['', undefined],
    ['1d', undefined],
    ['s', undefined],
    ['1e3s', undefined],
    ['9999999h', undefined],
    ['1'.repeat(50) + 's', undefined],
  ])('%s → %s', (text, want) => {
    expect(parseDuration(text)).toBe(want);
  });
});

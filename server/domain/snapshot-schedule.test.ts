import { describe, expect, it } from 'vitest';
import { everyProblem, parseEvery, scheduledSnapshotName, slotStamp, slotStart, stampTime } from './snapshot-schedule';

describe('parseEvery / everyProblem', () => {
  it.each([
    { text: '6h', ms: 6 * 3_600_000, problem: undefined },
    { text: '90m', ms: 90 * 60_000, problem: undefined },
    { text: '1d12h', ms: 36 * 3_600_000, problem: undefined },
    { text: '5m', ms: 300_000, problem: undefined },
    { text: '300s', ms: 300_000, problem: undefined },
    { text: '4m', ms: 240_000, problem: 'must be at least 5m' },
    { text: '400d', ms: 400 * 86_400_000, problem: 'must be at most 366d' },
    { text: '6 h', ms: undefined, problem: 'must be a duration such as 30m, 6h or 1d (units s, m, h, d)' },
    { text: '1.5h', ms: undefined, problem: 'must be a duration such as 30m, 6h or 1d (units s, m, h, d)' },
    { text: '', ms: undefined, problem: 'must be a duration such as 30m, 6h or 1d (units s, m, h, d)' },
    { text: '-6h', ms: undefined, problem: 'must be a duration such as 30m, 6h or 1d (units s, m, h, d)' },
  ])('"$text" -> $ms ($problem)', ({ text, ms, problem }) => {
    expect(parseEvery(text)).toBe(ms);
    expect(everyProblem(text)).toBe(problem);
  });
});

describe('parseEvery: other shapes', () => {
  it.each([
    ['30s', 30_000],
    ['1m30s', 90_000],
    ['0s', 0],
    ['30', undefined],
    ['5 s', undefined],
    ['500ms', undefined],
    ['s', undefined],
    ['1e3s', undefined],
    ['9999999h', undefined],
    ['1'.repeat(50) + 's', undefined],
  ])('%s -> %s', (text, ms) => {
    expect(parseEvery(text)).toBe(ms);
  });
});

describe('slots', () => {
  it('are aligned to the epoch, and their stamps round-trip', () => {
    const t = Date.UTC(2026, 10, 26, 7, 59, 59);
    const s = slotStart(t, 6 * 3_600_000);
    expect(new Date(s).toISOString()).toBe('2026-11-26T06:00:00.000Z');
    expect(slotStamp(s)).toBe('20261126t060000z');
    expect(stampTime('20261126t060000z')).toBe(s);
    expect(stampTime('2026-11-26')).toBeUndefined();
  });
});

describe('scheduledSnapshotName', () => {
  it.each([
    { name: 'short: schedule-claim-stamp', schedule: 'daily', claim: 'data', want: 'daily-data-20261126t060000z' },
    { name: 'too long: shortened with a hash, under 253', schedule: 'daily', claim: 'x'.repeat(253), want: undefined },
  ])('$name', ({ schedule, claim, want }) => {
    const got = scheduledSnapshotName(schedule, claim, '20261126t060000z');
    if (want) expect(got).toBe(want);
    expect(got.length).toBeLessThanOrEqual(253);
    expect(scheduledSnapshotName(schedule, claim, '20261126t060000z')).toBe(got);
  });
  it('two long claims with the same prefix get different names', () => {
    const a = scheduledSnapshotName('d', `${'x'.repeat(250)}a`, '20261126t060000z');
    const b = scheduledSnapshotName('d', `${'x'.repeat(250)}b`, '20261126t060000z');
    expect(a).not.toBe(b);
  });
});

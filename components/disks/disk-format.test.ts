import { describe, expect, it } from 'vitest';
import { formatEta, formatRate, percentOf, stageIndex, wipeBar } from './disk-format';

describe('disk formatting', () => {
  it.each([
    { p: { unit: 'bytes' as const, done: '0', total: '0', rate: 0 }, text: '0 B/s' },
    { p: { unit: 'bytes' as const, done: '0', total: '0', rate: 200 * 1024 ** 2 }, text: '200 MiB/s' },
    { p: { unit: 'bytes' as const, done: '0', total: '0', rate: 1536.4 }, text: '1.5 KiB/s' },
    { p: { unit: 'entries' as const, done: '0', total: '0', rate: 1234.4 }, text: '1,234 entries/s' },
  ])('formatRate($p.rate $p.unit) = $text', ({ p, text }) => expect(formatRate(p)).toBe(text));

  it.each([
    { s: undefined, text: '—' },
    { s: 5, text: '5s' },
    { s: 125, text: '2m 5s' },
    { s: 7260, text: '2h 1m' },
  ])('formatEta($s) = $text', ({ s, text }) => expect(formatEta(s)).toBe(text));

  it.each([
    { p: null, pct: undefined },
    { p: { unit: 'bytes' as const, done: '0', total: '0', rate: 0 }, pct: undefined },
    { p: { unit: 'bytes' as const, done: '512', total: '1024', rate: 1 }, pct: 50 },
    { p: { unit: 'entries' as const, done: '3', total: '3', rate: 1 }, pct: 100 },
  ])('percentOf -> $pct', ({ p, pct }) => expect(percentOf(p)).toBe(pct));

  it.each([
    { stage: 'discovered', i: 0 },
    { stage: 'bound', i: 2 },
    { stage: 'failed', i: 4 },
    { stage: 'ineligible', i: -1 },
  ])('stageIndex($stage) = $i', ({ stage, i }) => expect(stageIndex(stage)).toBe(i));
});

describe('wipeBar', () => {
  const now = Date.parse('2026-01-01T00:02:05Z');
  const base = { createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:02:00Z' };
  const bytes = (done: string, total: string, rate: number, etaSeconds?: number) => ({ unit: 'bytes' as const, done, total, rate, ...(etaSeconds !== undefined ? { etaSeconds } : {}) });
  it.each([
    { name: 'no job: no bar', j: null, want: { kind: 'none' } },
    { name: 'a finished job: no bar', j: { ...base, state: 'succeeded', progress: bytes('10', '10', 0) }, want: { kind: 'none' } },
    { name: 'queued: moving bar, how long it waited', j: { ...base, state: 'queued', progress: null }, want: { kind: 'indeterminate', text: 'queued 2m 5s ago' } },
    { name: 'running, nothing reported: moving bar and the elapsed time', j: { ...base, state: 'running', progress: null }, want: { kind: 'indeterminate', text: 'running for 2m 5s' } },
    { name: 'running, zero done of zero: the elapsed time, not "0 B/s"', j: { ...base, state: 'running', progress: bytes('0', '0', 0) }, want: { kind: 'indeterminate', text: 'running for 2m 5s' } },
    {
      name: 'running with bytes and a total: percent, done of total, rate, ETA',
      j: { ...base, state: 'running', progress: bytes(String(256 * 1024 ** 2), String(1024 ** 3), 64 * 1024 ** 2, 12) },
      want: { kind: 'determinate', percent: 25, text: '25% · 256 MiB of 1 GiB · 64 MiB/s · ETA 12s' },
    },
    {
      name: 'running with a total but no rate yet: no "0 B/s", no ETA',
      j: { ...base, state: 'running', progress: bytes(String(1024 ** 2), String(4 * 1024 ** 2), 0) },
      want: { kind: 'determinate', percent: 25, text: '25% · 1 MiB of 4 MiB' },
    },
    {
      name: 'running with bytes done and no total: what is done and the elapsed time',
      j: { ...base, state: 'running', progress: bytes(String(3 * 1024 ** 2), '0', 1024 ** 2) },
      want: { kind: 'indeterminate', text: '3 MiB done · 1 MiB/s · running for 2m 5s' },
    },
    {
      name: 'file cleanup counts entries',
      j: { ...base, state: 'running', progress: { unit: 'entries' as const, done: '500', total: '1000', rate: 250 } },
      want: { kind: 'determinate', percent: 50, text: '50% · 500 entries of 1,000 entries · 250 entries/s' },
    },
  ])('$name', ({ j, want }) => expect(wipeBar(j, now)).toEqual(want));
});

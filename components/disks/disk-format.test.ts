import { describe, expect, it } from 'vitest';
import { formatEta, formatRate, percentOf, stageIndex } from './disk-format';

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

import { describe, expect, it } from 'vitest';
import { isLive, parseProcStat } from './process-stat';

const tail = '0 -1 4194304 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 200 18446744073709551615';

describe('parseProcStat', () => {
  it.each([
    { name: 'a plain command', line: `4242 (sleep) S 4240 4240 4240 ${tail}`, want: { pid: 4242, state: 'S', ppid: 4240, pgrp: 4240, startTime: '987654' } },
    { name: 'spaces and parentheses in the name', line: `77 (a (b) c) R 1 70 70 ${tail}`, want: { pid: 77, state: 'R', ppid: 1, pgrp: 70, startTime: '987654' } },
    { name: 'a zombie', line: `9 (dd) Z 1 9 9 ${tail}`, want: { pid: 9, state: 'Z', ppid: 1, pgrp: 9, startTime: '987654' } },
  ])('$name', ({ line, want }) => {
    expect(parseProcStat(`${line}\n`)).toEqual(want);
  });

  it.each(['', 'garbage', '12 (x) S 1 2', '12 (x) S a b c'])('%j is not a stat line', (line) => {
    expect(parseProcStat(line)).toBeUndefined();
  });

  it('a zombie is not live', () => {
    expect(isLive(parseProcStat(`9 (dd) Z 1 9 9 ${tail}`))).toBe(false);
    expect(isLive(parseProcStat(`9 (dd) D 1 9 9 ${tail}`))).toBe(true);
    expect(isLive(undefined)).toBe(false);
  });
});

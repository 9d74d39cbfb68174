import { describe, expect, it } from 'vitest';
import { groupRepeats, repeatText } from './group-repeats';

const row = (name: string, time: string, actor = 'agent:n1') => ({ name, time, actor });
const key = (r: { name: string; actor: string }) => `${r.actor}|${r.name}`;

describe('groupRepeats', () => {
  it.each([
    { name: 'no rows', rows: [], want: [] },
    {
      name: 'a run of the same change folds into one with its count and span',
      rows: [row('n1', '2026-01-01T00:03:00Z'), row('n1', '2026-01-01T00:02:00Z'), row('n1', '2026-01-01T00:01:00Z'), row('pv', '2026-01-01T00:00:30Z', 'user:admin')],
      want: [
        { name: 'n1', count: 3, first: '2026-01-01T00:01:00Z', last: '2026-01-01T00:03:00Z' },
        { name: 'pv', count: 1, first: '2026-01-01T00:00:30Z', last: '2026-01-01T00:00:30Z' },
      ],
    },
    {
      name: 'the same change apart from its run is another group',
      rows: [row('n1', 't3'), row('pv', 't2', 'user:admin'), row('n1', 't1')],
      want: [
        { name: 'n1', count: 1, first: 't3', last: 't3' },
        { name: 'pv', count: 1, first: 't2', last: 't2' },
        { name: 'n1', count: 1, first: 't1', last: 't1' },
      ],
    },
  ])('$name', ({ rows, want }) => {
    expect(groupRepeats(rows, key, (r) => r.time).map((g) => ({ name: g.row.name, count: g.count, first: g.first, last: g.last }))).toEqual(want);
  });
});

describe('repeatText', () => {
  it('says the count and how long ago the last was', () => {
    expect(repeatText({ count: 12, last: '2026-01-01T00:00:00Z' }, Date.parse('2026-01-01T00:03:00Z'))).toBe('×12, last 3m ago');
    expect(repeatText({ count: 1, last: '2026-01-01T00:00:00Z' }, Date.parse('2026-01-01T00:03:00Z'))).toBe('');
  });
});

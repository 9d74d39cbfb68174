import { describe, expect, test } from 'vitest';
import { ageOf, messageSentence, sentence } from './format';

const NOW = Date.parse('2026-11-24T12:00:00Z');

describe('ageOf (the AGE the dashboard shows)', () => {
  test.each([
    { what: 'absent', ts: undefined, want: '' },
    { what: 'just now', ts: '2026-11-24T12:00:00Z', want: '0s' },
    { what: 'a minute ago', ts: '2026-11-24T11:59:00Z', want: '60s' },
    { what: 'three hours ago', ts: '2026-11-24T09:00:00Z', want: '3h' },
    { what: 'a row the server wrote ahead of this clock (5 s)', ts: '2026-11-24T12:00:05Z', want: '0s' },
    { what: 'far ahead of this clock (a day)', ts: '2026-11-25T12:00:00Z', want: '0s' },
    { what: 'unreadable', ts: 'yesterday', want: '<unknown>' },
  ])('$what -> "$want"', ({ ts, want }) => {
    expect(ageOf(ts, NOW)).toBe(want);
  });
});

describe('sentence', () => {
  test.each([
    ['fast disks, no expansion.', 'fast disks, no expansion.'],
    ['fast disks, no expansion', 'fast disks, no expansion.'],
    ['fast disks..', 'fast disks.'],
    ['really?', 'really?'],
    ['  ', ''],
  ])('%j -> %j', (input, want) => {
    expect(sentence(input)).toBe(want);
  });
});

test('messageSentence: a lower-case server message reads as a sentence', () => {
  expect(messageSentence('wrong user name or password')).toBe('Wrong user name or password.');
});

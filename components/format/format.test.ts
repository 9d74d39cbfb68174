import { describe, expect, test } from 'vitest';
import { ageOf, errorInfo, messageSentence, sentence } from './format';

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

describe('errorInfo: what the dashboard shows of a failed call', () => {
  const refusal = 'persistentvolumeclaims "big" is forbidden: exceeded quota: room, requested: requests.storage=190976Mi, used: requests.storage=38Gi, limited: requests.storage=50Gi';
  test('a quota refusal in human units, upstream words kept as the exact text', () => {
    const e = errorInfo({ message: refusal, data: { code: 'FORBIDDEN' } });
    expect(e.message).toBe('persistentvolumeclaims "big" is forbidden: Quota room: this claim asks for 187 GiB of storage; 12 GiB of 50 GiB is left.');
    expect(e.exact).toBe(refusal);
    expect(e.code).toBe('FORBIDDEN');
  });
  test('other messages as they are, with no exact text', () => {
    expect(errorInfo({ message: 'not found' })).toEqual({ message: 'not found', code: undefined, reason: undefined, causes: [] });
  });
  test('no message at all', () => expect(errorInfo(null).message).toBe('Something went wrong'));
});

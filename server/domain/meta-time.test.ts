import { expect, test } from 'vitest';
import { metaTime } from './meta-time';

test.each<[string, Date | number, string]>([
  ['milliseconds are dropped', new Date('2026-11-28T15:36:16.036Z'), '2026-11-28T15:36:16Z'],
  ['a whole second stays', new Date('2026-11-28T15:36:16.000Z'), '2026-11-28T15:36:16Z'],
  ['epoch milliseconds', Date.UTC(2026, 0, 2, 3, 4, 5, 999), '2026-01-02T03:04:05Z'],
])('%s', (_name, at, want) => {
  expect(metaTime(at)).toBe(want);
});

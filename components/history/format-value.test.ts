import { describe, expect, test } from 'vitest';
import { formatValue } from './format-value';

describe('formatValue', () => {
  test.each<[string, unknown, string]>([
    ['absent', undefined, '(absent)'],
    ['a string as it is', 'Bound', 'Bound'],
    ['a number', 3, '3'],
    ['null', null, 'null'],
    ['an object as JSON', { a: 1 }, '{"a":1}'],
    ['a long value cut', 'x'.repeat(500).split(''), `${JSON.stringify('x'.repeat(500).split('')).slice(0, 397)}...`],
  ])('%s', (_name, value, text) => {
    expect(formatValue(value)).toBe(text);
  });
});

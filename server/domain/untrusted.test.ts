import { describe, expect, it } from 'vitest';
import { inspectUntrusted, MAX_NESTING_DEPTH } from './untrusted';

function nested(depth: number): unknown {
  let v: unknown = 'leaf';
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
}

describe('inspectUntrusted', () => {
  it.each([
    { name: 'a plain object', value: { a: [1, 'x', true, null, { b: 2.5 }] }, problem: undefined },
    { name: 'prototype-named keys other than __proto__', value: JSON.parse('{"constructor":{"prototype":1}}'), problem: undefined },
    { name: `nesting of exactly ${MAX_NESTING_DEPTH}`, value: nested(MAX_NESTING_DEPTH), problem: undefined },
    { name: `nesting of ${MAX_NESTING_DEPTH + 1}`, value: nested(MAX_NESTING_DEPTH + 1), problem: /nested deeper than/ },
    { name: 'nesting of a million', value: nested(1_000_000), problem: /nested deeper than/ },
    { name: 'NUL in a string', value: { metadata: { name: 'a\0b' } }, problem: /NUL/, path: 'metadata.name' },
    { name: 'NUL in a key', value: { labels: { 'a\0': 'x' } }, problem: /NUL/, path: 'labels' },
    { name: 'a __proto__ key', value: JSON.parse('{"m":{"__proto__":{"x":1}}}'), problem: /"__proto__" may not be used/, path: 'm.__proto__' },
    { name: 'a lone surrogate in a string', value: { a: 'x\uD800' }, problem: /lone surrogate/, path: 'a' },
    { name: 'a lone surrogate in a key', value: { ['\uDC00']: 1 }, problem: /lone surrogate/ },
    { name: 'a surrogate pair is fine', value: { a: '😀' }, problem: undefined },
    { name: 'an infinite number', value: { a: Infinity }, problem: /finite/ },
    { name: 'NaN', value: { a: [NaN] }, problem: /finite/, path: 'a[0]' },
    { name: 'a Buffer', value: { a: Buffer.from('x') }, problem: /only maps, lists/ },
    { name: 'a Set', value: { a: new Set([1]) }, problem: /only maps, lists/ },
    { name: 'a Date', value: { a: new Date(0) }, problem: /only maps, lists/ },
  ])('$name', ({ value, problem, path }: { value: unknown; problem?: RegExp; path?: string }) => {
    const got = inspectUntrusted(value);
    if (!problem) expect(got).toBeUndefined();
    else {
      expect(got?.message).toMatch(problem);
      if (path !== undefined) expect(got?.path).toBe(path);
    }
  });
});

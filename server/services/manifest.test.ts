import { describe, expect, it } from 'vitest';
import { parseManifest, parseYamlValue } from './manifest';

describe('parseYamlValue', () => {
  it.each([
    { text: 'a: !!str 5', value: { a: '5' } },
    { text: 'a: !!int 5', value: { a: 5 } },
    { text: 'a: [1, {b: null}]', value: { a: [1, { b: null }] } },
    { text: 'constructor: {prototype: 1}', value: JSON.parse('{"constructor":{"prototype":1}}') },
  ])('$text is read', ({ text, value }) => {
    expect(parseYamlValue(text)).toEqual(value);
  });

  it.each([
    { text: 'a: !!binary aGVsbG8=', error: /binary.*only the YAML core schema/ },
    { text: 'a: !!set {x}', error: /set.*only the YAML core schema/ },
    { text: 'a: !!timestamp 2001-12-14', error: /timestamp/ },
    { text: 'a: !custom x', error: /!custom/ },
    { text: 'a: 1\na: 2', error: /invalid YAML/ },
    { text: '__proto__: {polluted: "1"}', error: /__proto__/ },
    { text: 'a: "x\\0y"', error: /NUL/ },
    { text: `${'['.repeat(500)}${']'.repeat(500)}`, error: /nested deeper|invalid YAML/ },
    { text: 'a: &x [1]\nb: [*x, *x]\n---\nc: 1', error: /several documents/ },
  ])('$text is refused', ({ text, error }) => {
    expect(() => parseYamlValue(text)).toThrow(error);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('a manifest with an unknown tag is refused as a bad request', () => {
    expect(() => parseManifest('apiVersion: v1\nkind: Namespace\nmetadata: {name: !!binary eA==}')).toThrow(
      expect.objectContaining({ code: 'BadRequest' }),
    );
  });
});

import { describe, expect, test } from 'vitest';
import { StowageError } from './errors';
import {
  type FieldRequirement,
  escapeFieldValue,
  fieldSelectorToString,
  matchesFields,
  parseFieldSelector,
} from './field-selector';

const eq = (field: string, value: string): FieldRequirement => ({ field, operator: '=', value });
const ne = (field: string, value: string): FieldRequirement => ({ field, operator: '!=', value });

function badRequest(s: string): string {
  try {
    parseFieldSelector(s);
  } catch (e) {
    expect(e).toBeInstanceOf(StowageError);
    expect((e as StowageError).code).toBe('BadRequest');
    return (e as StowageError).message;
  }
  throw new Error(`expected ${s} to be rejected`);
}

describe('parseFieldSelector', () => {
  test.each<[string, FieldRequirement[]]>([
    ['', []],
    ['a=avalue', [eq('a', 'avalue')]],
    ['x=a,y=b,z=c', [eq('x', 'a'), eq('y', 'b'), eq('z', 'c')]],
    ['z=c,x=a', [eq('x', 'a'), eq('z', 'c')]],
    ['a=avalue,b==bvalue,c!=cvalue', [eq('a', 'avalue'), eq('b', 'bvalue'), ne('c', 'cvalue')]],
    ['metadata.name=pv1', [eq('metadata.name', 'pv1')]],
    ['status.phase!=Bound,spec.claimRef.name=', [eq('spec.claimRef.name', ''), ne('status.phase', 'Bound')]],
    ['a=a,', [eq('a', 'a')]],
    [',a=a', [eq('a', 'a')]],
    ['=', []],
    ['=x', [eq('', 'x')]],
    // terms are sorted by their text: "k2=..." sorts before "k=..."
    ['k=\\,,k2=v2', [eq('k2', 'v2'), eq('k', ',')]],
    ['k=\\\\,k2=v2', [eq('k2', 'v2'), eq('k', '\\')]],
    ['k=\\\\\\,,k2=v2', [eq('k2', 'v2'), eq('k', '\\,')]],
    ['x=a||y\\=b', [eq('x', 'a||y=b')]],
    ['x=a\\=\\=b', [eq('x', 'a==b')]],
    ['a = b', [eq('a ', ' b')]],
    ['함=수,목=록', [eq('목', '록'), eq('함', '수')]],
  ])('%j', (s, reqs) => {
    expect(parseFieldSelector(s)).toEqual(reqs);
  });

  test.each([
    ['x=a||y=b', 'invalid field selector: unescaped character in value: 61'],
    ['x==a==b', 'invalid field selector: unescaped character in value: 61'],
    ['a!==b', 'invalid field selector: unescaped character in value: 61'], // "!=" splits first, "=b" is left
    ['x=a,b', "invalid selector: 'x=a,b'; can't understand 'b'"],
    ['x in (a)', "invalid selector: 'x in (a)'; can't understand 'x in (a)'"],
    ['x', "invalid selector: 'x'; can't understand 'x'"],
    ['k=\\a', 'invalid field selector: invalid escape sequence: \\a'],
    ['k=\\', 'invalid field selector: invalid escape sequence: \\'],
    ['k=\\\\\\', 'invalid field selector: invalid escape sequence: \\'],
  ])('%j is rejected', (s, message) => {
    expect(badRequest(s)).toBe(message);
  });
});

describe('matchesFields', () => {
  const fields: Record<string, string> = { foo: 'bar', baz: 'blah', complex: '=value\\,\\', notin: 'in' };
  const get = (f: string) => fields[f];
  test.each([
    ['', true],
    ['foo=bar', true],
    ['baz=blah', true],
    ['foo=bar,baz=blah', true],
    ['foo=bar,baz=blah,complex=\\=value\\\\\\,\\\\', true],
    ['notin=in', true],
    ['foo==bar', true],
    ['foo!=blah', true],
    ['foo=blah', false],
    ['baz=bar', false],
    ['foo=bar,foobar=bar,baz=blah', false],
    ['missing=', true],
    ['missing!=', false],
    ['foo!=bar', false],
  ])('%j is %s', (s, want) => {
    expect(matchesFields(parseFieldSelector(s), get)).toBe(want);
  });
});

describe('printing', () => {
  test.each([
    ['', ''],
    ['a', 'a'],
    ['=', '\\='],
    [',', '\\,'],
    ['\\', '\\\\'],
    ['\\=\\,\\', '\\\\\\=\\\\\\,\\\\'],
  ])('escapeFieldValue(%j) is %j', (value, escaped) => {
    expect(escapeFieldValue(value)).toBe(escaped);
    expect(parseFieldSelector(`k=${escaped}`)).toEqual(value === '' ? [eq('k', '')] : [eq('k', value)]);
  });

  test.each(['x=a,y=b,z=c', 'x!=a,y=b', 'x=a||y\\=b', 'x=a\\=\\=b'])('%j prints back', (s) => {
    expect(fieldSelectorToString(parseFieldSelector(s))).toBe(s);
  });
});

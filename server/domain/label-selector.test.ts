import { describe, expect, test } from 'vitest';
import { StowageError } from './errors';
import {
  type LabelSelector,
  type Requirement,
  type Selector,
  labelSelectorToSelector,
  matchesSelector,
  parseLabelSelector,
  selectorToString,
  validateLabelSelector,
} from './label-selector';

const VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue', or 'my_value', or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const NAME_PART_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName', or 'my.name', or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const BINARY = 'in, notin, =, ==, !=, gt, lt';

const req = (key: string, operator: Requirement['operator'], ...values: string[]): Requirement => ({ key, operator, values });

function badRequest(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(StowageError);
    expect((e as StowageError).code).toBe('BadRequest');
    return (e as StowageError).message;
  }
  throw new Error('expected a BadRequest');
}

describe('parseLabelSelector', () => {
  // Upstream TestSelectorParse: parse, then print without the spaces.
  test.each(['x=a,y=b,z=c', '', 'x!=a,y=b', 'x=', 'x= ', 'x=,z= ', 'x= ,z= ', '!x', 'x>1', 'x>1,z<5', 'a==b'])(
    '%j prints back',
    (s) => {
      expect(selectorToString(parseLabelSelector(s))).toBe(s.replaceAll(' ', ''));
    },
  );

  test.each<[string, Requirement[]]>([
    ['', []],
    ['\rx', [req('x', 'Exists')]],
    ['this-is-a-dns.domain.com/key-with-dash', [req('this-is-a-dns.domain.com/key-with-dash', 'Exists')]],
    ['0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)', [req('0.1.2.domain/99', 'NotIn', '10.10.100.1', 'tick.tack.clock')]],
    ['foo  in\t (abc)', [req('foo', 'In', 'abc')]],
    ['x notin\n (abc)', [req('x', 'NotIn', 'abc')]],
    ['x in (def,abc,def)', [req('x', 'In', 'abc', 'def')]],
    ['x in (abc,)', [req('x', 'In', '', 'abc')]],
    ['x in ()', [req('x', 'In', '')]],
    ['x in (a,,,)', [req('x', 'In', '', 'a')]],
    ['x notin (, a)', [req('x', 'NotIn', '', 'a')]],
    ['x in (a,,a,,a,,a,,)', [req('x', 'In', '', 'a')]],
    ['x notin (abc,,def),bar,z in (),w', [req('bar', 'Exists'), req('w', 'Exists'), req('x', 'NotIn', '', 'abc', 'def'), req('z', 'In', '')]],
    ['x,y in (a)', [req('x', 'Exists'), req('y', 'In', 'a')]],
    ['a in (x,y,notin, z,in)', [req('a', 'In', 'in', 'notin', 'x', 'y', 'z')]],
    ['notin=in', [req('notin', '=', 'in')]],
    ['x=a,y!=b,z in (h,i,j)', [req('x', '=', 'a'), req('y', '!=', 'b'), req('z', 'In', 'h', 'i', 'j')]],
    ['z>7,!a,b<3', [req('a', 'DoesNotExist'), req('b', 'Lt', '3'), req('z', 'Gt', '7')]],
    ['x>1', [req('x', 'Gt', '1')]],
    ['a ', [req('a', 'Exists')]],
    ['x=', [req('x', '=', '')]],
  ])('%j', (s, requirements) => {
    expect(parseLabelSelector(s)).toEqual({ requirements });
  });

  test.each([
    ['x=a||y=b', `unable to parse requirement: values[0][x]: Invalid value: "a||y": ${VALUE_MSG}`],
    ['x==a==b', "found '==', expected: ',' or 'end of string'"],
    ['!x=a', "found '=', expected: ',' or 'end of string'"],
    ['x<a', `unable to parse requirement: values[0]: Invalid value: "a": for 'Gt', 'Lt' operators, the value must be an integer`],
    ['x>-1', `unable to parse requirement: values[0][x]: Invalid value: "-1": ${VALUE_MSG}`],
    ['x>99999999999999999999', `unable to parse requirement: values[0]: Invalid value: "99999999999999999999": for 'Gt', 'Lt' operators, the value must be an integer`],
    ['x,,y', "found ',', expected: identifier after ','"],
    [',x,y', "found ',', expected: !, identifier, or 'end of string'"],
    ['x nott in (y)', `unable to parse requirement: found 'nott', expected: ${BINARY}`],
    ['a in (xyz),', "found '', expected: identifier after ','"],
    ['a in (xyz)b notin ()', "found 'b', expected: ',' or 'end of string'"],
    ['a in (xyz abc)', "unable to parse requirement: found 'abc', expected: ',' or ')'"],
    ['a notin(', "unable to parse requirement: found '', expected: ',', ')' or identifier"],
    ['a in x', "unable to parse requirement: found 'x' expected: '('"],
    ['a (', `unable to parse requirement: found '(', expected: ${BINARY}`],
    ['(', "found '(', expected: !, identifier, or 'end of string'"],
    ['!', "unable to parse requirement: found '', expected: identifier"],
    ['a=(', "unable to parse requirement: found '(', expected: identifier"],
    ['a/b/c', expect.stringMatching(/^unable to parse requirement: <nil>: Invalid value: "a\/b\/c": a valid label key must consist/)],
    ['-a=b', `unable to parse requirement: <nil>: Invalid value: "-a": ${NAME_PART_MSG}`],
  ])('%j is rejected', (s, message) => {
    expect(badRequest(() => parseLabelSelector(s))).toEqual(message);
  });
});

describe('matchesSelector', () => {
  const set = { foo: 'bar', baz: 'blah' };
  test.each<[string, Record<string, string> | undefined, boolean]>([
    ['', { x: 'y' }, true],
    ['', undefined, true],
    ['x=y', { x: 'y' }, true],
    ['x=y,z=w', { x: 'y', z: 'w' }, true],
    ['x!=y,z!=w', { x: 'z', z: 'a' }, true],
    ['notin=in', { notin: 'in' }, true],
    ['x', { x: 'z' }, true],
    ['!x', { y: 'z' }, true],
    ['x>1', { x: '2' }, true],
    ['x<1', { x: '0' }, true],
    ['x=z', {}, false],
    ['x=y', { x: 'z' }, false],
    ['x=y,z=w', { x: 'w', z: 'w' }, false],
    ['x!=y,z!=w', { x: 'z', z: 'w' }, false],
    ['x', { y: 'z' }, false],
    ['!x', { x: 'z' }, false],
    ['x>1', { x: '0' }, false],
    ['x<1', { x: '2' }, false],
    ['z>1', { z: 'v2' }, false],
    ['x>1', {}, false],
    ['foo=bar,baz=blah', set, true],
    ['foo=bar,foobar=bar,baz=blah', set, false],
    ['x in (foo),y notin (alpha)', { x: 'foo', y: 'baz' }, true],
    ['x in (foo),y in (alpha)', { x: 'foo', y: 'baz' }, false],
    ['x notin (),y', { y: '' }, true],
    ['!x,y', { y: '' }, true],
    ['x notin (),!y', { y: '' }, false],
    ['x in ()', { y: 'baz' }, false],
    ['x in ()', { x: '' }, true],
    ['toString', {}, false],
  ])('%j on %j is %s', (s, labels, want) => {
    expect(matchesSelector(parseLabelSelector(s), labels)).toBe(want);
  });

  test.each<[string, Selector, boolean]>([
    ['nothing', { requirements: [], nothing: true }, false],
    ['everything', { requirements: [] }, true],
  ])('%s', (_name, sel, want) => {
    expect(matchesSelector(sel, { a: 'b' })).toBe(want);
    expect(matchesSelector(sel, undefined)).toBe(want);
  });
});

describe('selectorToString', () => {
  // Upstream TestToString: values of a set are printed sorted.
  test.each<[Requirement[], string]>([
    [[req('x', 'In', 'def', 'abc'), req('y', 'NotIn', 'jkl'), req('z', 'Exists')], 'x in (abc,def),y notin (jkl),z'],
    [[req('x', 'NotIn', 'abc', 'def'), req('y', '!=', 'jkl'), req('z', 'DoesNotExist')], 'x notin (abc,def),y!=jkl,!z'],
    [[req('x', 'NotIn', 'abc'), req('y', 'In', 'jkl', 'mno'), req('z', 'NotIn', '')], 'x notin (abc),y in (jkl,mno),z notin ()'],
    [[req('x', '=', 'abc'), req('y', '==', 'jkl'), req('z', '!=', 'a'), req('z', 'Exists')], 'x=abc,y==jkl,z!=a,z'],
    [[req('x', 'Gt', '2'), req('y', 'Lt', '8'), req('z', 'Exists')], 'x>2,y<8,z'],
  ])('%j prints %s', (requirements, text) => {
    expect(selectorToString({ requirements })).toBe(text);
  });

  test('nothing prints empty', () => {
    expect(selectorToString({ requirements: [], nothing: true })).toBe('');
  });
});

describe('labelSelectorToSelector', () => {
  test.each<[string, LabelSelector | null | undefined, Selector]>([
    ['null matches nothing', null, { requirements: [], nothing: true }],
    ['undefined matches nothing', undefined, { requirements: [], nothing: true }],
    ['empty matches everything', {}, { requirements: [] }],
    ['empty lists match everything', { matchLabels: {}, matchExpressions: [] }, { requirements: [] }],
    [
      'labels and expressions, sorted by key',
      {
        matchLabels: { tier: 'db', app: 'web' },
        matchExpressions: [
          { key: 'zone', operator: 'In', values: ['b', 'a'] },
          { key: 'disk', operator: 'Exists' },
          { key: 'legacy', operator: 'DoesNotExist', values: [] },
          { key: 'env', operator: 'NotIn', values: ['dev'] },
        ],
      },
      {
        requirements: [
          req('app', '=', 'web'),
          req('disk', 'Exists'),
          req('env', 'NotIn', 'dev'),
          req('legacy', 'DoesNotExist'),
          req('tier', '=', 'db'),
          req('zone', 'In', 'b', 'a'),
        ],
      },
    ],
  ])('%s', (_name, ls, want) => {
    expect(labelSelectorToSelector(ls)).toEqual(want);
  });

  test.each<[string, LabelSelector, string]>([
    ['unknown operator', { matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] }, '"Gt" is not a valid label selector operator'],
    ['In without values', { matchExpressions: [{ key: 'a', operator: 'In' }] }, "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty"],
    ['Exists with values', { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }, 'values: Invalid value: ["x"]: values set must be empty for exists and does not exist'],
    ['bad label value', { matchLabels: { app: 'a b' } }, `values[0][app]: Invalid value: "a b": ${VALUE_MSG}`],
    ['bad key', { matchLabels: { '-app': 'x' } }, `key: Invalid value: "-app": ${NAME_PART_MSG}`],
    ['missing key', { matchExpressions: [{ operator: 'Exists' }] }, `key: Invalid value: "": name part must be non-empty; ${NAME_PART_MSG}`],
    [
      'several errors',
      { matchExpressions: [{ key: '-k', operator: 'NotIn', values: [] }] },
      `[key: Invalid value: "-k": ${NAME_PART_MSG}, values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty]`,
    ],
  ])('%s', (_name, ls, message) => {
    expect(badRequest(() => labelSelectorToSelector(ls))).toBe(message);
  });
});

describe('validateLabelSelector', () => {
  const path = 'spec.selector';
  test.each<[string, unknown, { field: string; reason: string; message: string }[]]>([
    ['absent', undefined, []],
    ['valid', { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }, []],
    [
      'In without values',
      { matchExpressions: [{ key: 'zone', operator: 'In' }] },
      [{ field: `${path}.matchExpressions[0].values`, reason: 'FieldValueRequired', message: "Required value: must be specified when `operator` is 'In' or 'NotIn'" }],
    ],
    [
      'Exists with values',
      { matchExpressions: [{ key: 'zone', operator: 'Exists', values: ['a'] }] },
      [{ field: `${path}.matchExpressions[0].values`, reason: 'FieldValueForbidden', message: "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'" }],
    ],
    [
      'unknown operator',
      { matchExpressions: [{ key: 'zone', operator: 'Gt', values: ['1'] }] },
      [{ field: `${path}.matchExpressions[0].operator`, reason: 'FieldValueInvalid', message: 'Invalid value: "Gt": not a valid selector operator' }],
    ],
    [
      'bad key and value',
      { matchExpressions: [{ key: '-zone', operator: 'NotIn', values: ['ok', 'not ok'] }] },
      [
        { field: `${path}.matchExpressions[0].key`, reason: 'FieldValueInvalid', message: `Invalid value: "-zone": ${NAME_PART_MSG}` },
        { field: `${path}.matchExpressions[0].values[1]`, reason: 'FieldValueInvalid', message: `Invalid value: "not ok": ${VALUE_MSG}` },
      ],
    ],
    [
      'bad match label',
      { matchLabels: { app: '-web' } },
      [{ field: `${path}.matchLabels`, reason: 'FieldValueInvalid', message: `Invalid value: "-web": ${VALUE_MSG}` }],
    ],
  ])('%s', (_name, ls, errs) => {
    expect(validateLabelSelector(ls, path)).toEqual(errs);
  });
});

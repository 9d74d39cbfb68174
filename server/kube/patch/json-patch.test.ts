import { describe, expect, it } from 'vitest';
import { applyJsonPatch, parseJsonPatch } from './json-patch';

// RFC 6902 appendix A, one row each (doc, patch, result or the error expected).
const rows: { name: string; doc: unknown; patch: unknown; result?: unknown; error?: RegExp }[] = [
  { name: 'A.1 adding an object member', doc: { foo: 'bar' }, patch: [{ op: 'add', path: '/baz', value: 'qux' }], result: { foo: 'bar', baz: 'qux' } },
  { name: 'A.2 adding an array element', doc: { foo: ['bar', 'baz'] }, patch: [{ op: 'add', path: '/foo/1', value: 'qux' }], result: { foo: ['bar', 'qux', 'baz'] } },
  { name: 'A.3 removing an object member', doc: { baz: 'qux', foo: 'bar' }, patch: [{ op: 'remove', path: '/baz' }], result: { foo: 'bar' } },
  { name: 'A.4 removing an array element', doc: { foo: ['bar', 'qux', 'baz'] }, patch: [{ op: 'remove', path: '/foo/1' }], result: { foo: ['bar', 'baz'] } },
  { name: 'A.5 replacing a value', doc: { baz: 'qux', foo: 'bar' }, patch: [{ op: 'replace', path: '/baz', value: 'boo' }], result: { baz: 'boo', foo: 'bar' } },
  {
    name: 'A.6 moving a value',
    doc: { foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } },
    patch: [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }],
    result: { foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } },
  },
  { name: 'A.7 moving an array element', doc: { foo: ['all', 'grass', 'cows', 'eat'] }, patch: [{ op: 'move', from: '/foo/1', path: '/foo/3' }], result: { foo: ['all', 'cows', 'eat', 'grass'] } },
  { name: 'A.8 testing a value: success', doc: { baz: 'qux', foo: ['a', 2, 'c'] }, patch: [{ op: 'test', path: '/baz', value: 'qux' }, { op: 'test', path: '/foo/1', value: 2 }], result: { baz: 'qux', foo: ['a', 2, 'c'] } },
  { name: 'A.9 testing a value: error', doc: { baz: 'qux' }, patch: [{ op: 'test', path: '/baz', value: 'bar' }], error: /not the value tested for/ },
  { name: 'A.10 adding a nested member object', doc: { foo: 'bar' }, patch: [{ op: 'add', path: '/child', value: { grandchild: {} } }], result: { foo: 'bar', child: { grandchild: {} } } },
  { name: 'A.12 adding to a nonexistent target', doc: { foo: 'bar' }, patch: [{ op: 'add', path: '/baz/bat', value: 'qux' }], error: /does not exist/ },
  { name: 'A.14 ~ escape ordering', doc: { '/': 9, '~1': 10 }, patch: [{ op: 'test', path: '/~01', value: 10 }], result: { '/': 9, '~1': 10 } },
  { name: 'A.16 adding an array value', doc: { foo: ['bar'] }, patch: [{ op: 'add', path: '/foo/-', value: ['abc', 'def'] }], result: { foo: ['bar', ['abc', 'def']] } },
  { name: 'replacing a missing member fails', doc: { a: 1 }, patch: [{ op: 'replace', path: '/b', value: 2 }], error: /does not exist/ },
  { name: 'removing past the end of a list fails', doc: { a: [1] }, patch: [{ op: 'remove', path: '/a/1' }], error: /out of range/ },
  { name: 'a leading zero is not an index', doc: { a: [1, 2] }, patch: [{ op: 'remove', path: '/a/01' }], error: /not an index/ },
  { name: 'moving into its own child fails', doc: { a: { b: 1 } }, patch: [{ op: 'move', from: '/a', path: '/a/b/c' }], error: /own child/ },
  { name: 'copy is deep', doc: { a: { b: 1 } }, patch: [{ op: 'copy', from: '/a', path: '/c' }, { op: 'replace', path: '/c/b', value: 2 }], result: { a: { b: 1 }, c: { b: 2 } } },
  { name: 'a failed operation leaves nothing half done', doc: { a: 1 }, patch: [{ op: 'add', path: '/b', value: 2 }, { op: 'remove', path: '/zz' }], error: /does not exist/ },
];

describe('applyJsonPatch', () => {
  it.each(rows)('$name', ({ doc, patch, result, error }) => {
    const before = structuredClone(doc);
    if (error) expect(() => applyJsonPatch(doc, parseJsonPatch(patch))).toThrow(error);
    else expect(applyJsonPatch(doc, parseJsonPatch(patch))).toEqual(result);
    expect(doc).toEqual(before);
  });
});

// Malformed patches are refused before anything is applied (400, BadRequest).
describe('parseJsonPatch', () => {
  it.each([
    { patch: { op: 'add' }, error: /JSON array/ },
    { patch: [1], error: /not an object/ },
    { patch: [{ op: 'frobnicate', path: '/x' }], error: /unsupported "op"/ },
    { patch: [{ op: 'add', path: 'x', value: 1 }], error: /starting with "\/"/ },
    { patch: [{ op: 'add', path: '/x' }], error: /needs a "value"/ },
    { patch: [{ op: 'move', path: '/x' }], error: /"from" must be a string/ },
    { patch: [{ op: 'remove', path: '/a~2b' }], error: /invalid escape/ },
  ])('$patch', ({ patch, error }) => {
    expect(() => parseJsonPatch(patch)).toThrow(error);
    try {
      parseJsonPatch(patch);
    } catch (e) {
      expect((e as { code?: string }).code).toBe('BadRequest');
    }
  });
});

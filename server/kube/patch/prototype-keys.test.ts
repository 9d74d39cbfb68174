// Keys that name prototypes in JavaScript are plain data for every patch type: each row
// is a target and a patch (as JSON text, so `__proto__` is an own key, as a request body
// decodes it), and what the result must hold. After every row Object.prototype, Object
// and Function.prototype carry nothing new.
import { afterEach, describe, expect, it } from 'vitest';
import { jsonMergePatch } from './json-merge';
import { applyJsonPatch, parseJsonPatch } from './json-patch';
import { patchMetaFor } from './patch-meta';
import { strategicMergePatch, type JsonMap } from './strategic-merge';

function untouched(): void {
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect((Object as unknown as Record<string, unknown>).polluted).toBeUndefined();
  expect((Function.prototype as unknown as Record<string, unknown>).polluted).toBeUndefined();
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(baseline);
}
const baseline = Object.getOwnPropertyNames(Object.prototype).sort();

afterEach(() => {
  for (const o of [Object.prototype, Object, Function.prototype] as unknown as Record<string, unknown>[]) delete o.polluted;
});

const obj = (text: string) => JSON.parse(text) as JsonMap;
const ownKeys = (v: unknown) => Object.keys(v as object);

const mergeRows = [
  { target: '{}', patch: '{"__proto__":{"polluted":"1"}}', at: [] as string[], keys: ['__proto__'] },
  { target: '{"a":{}}', patch: '{"a":{"__proto__":{"polluted":"1"}}}', at: ['a'], keys: ['__proto__'] },
  { target: '{}', patch: '{"constructor":{"prototype":{"polluted":"1"}}}', at: ['constructor'], keys: ['prototype'] },
  { target: '{"m":{"x":"1"}}', patch: '{"m":{"constructor":"c","prototype":"p","toString":"t"}}', at: ['m'], keys: ['x', 'constructor', 'prototype', 'toString'] },
  { target: '{"m":{}}', patch: '{"m":{"constructor":null,"hasOwnProperty":null}}', at: ['m'], keys: [] },
];

function at(v: unknown, path: string[]): unknown {
  let cur = v;
  for (const k of path) cur = Object.hasOwn(cur as object, k) ? (cur as JsonMap)[k] : undefined;
  return cur;
}

describe('JSON merge patch keeps prototype-named keys as data', () => {
  it.each(mergeRows)('$target + $patch', ({ target, patch, at: path, keys }) => {
    const out = jsonMergePatch(obj(target), obj(patch));
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(ownKeys(at(out, path))).toEqual(keys);
    untouched();
  });
});

describe('strategic merge patch keeps prototype-named keys as data', () => {
  it.each(mergeRows)('$target + $patch', ({ target, patch, at: path, keys }) => {
    const out = strategicMergePatch(obj(target), obj(patch), patchMetaFor('PersistentVolume'));
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(ownKeys(at(out, path))).toEqual(keys);
    untouched();
  });

  it.each([
    '{"metadata":{"labels":{"__proto__":{"polluted":"1"}}}}',
    '{"metadata":{"__proto__":{"polluted":"1"},"finalizers":["a"]}}',
    '{"metadata":{"$setElementOrder/__proto__":[1],"__proto__":[1]}}',
    '{"metadata":{"$deleteFromPrimitiveList/constructor":["x"]}}',
    '{"metadata":{"$retainKeys":["__proto__"],"__proto__":{"polluted":"1"}}}',
    '{"metadata":{"ownerReferences":[{"uid":"u","__proto__":{"polluted":"1"}}]}}',
  ])('a PersistentVolume patched with %s', (patch) => {
    const pv = obj('{"kind":"PersistentVolume","metadata":{"name":"v","ownerReferences":[{"uid":"u"}],"labels":{}}}');
    strategicMergePatch(pv, obj(patch), patchMetaFor('PersistentVolume'));
    untouched();
  });
});

describe('JSON patch walks own members only', () => {
  const doc = () => obj('{"metadata":{"name":"v","labels":{"a":"1"}},"spec":{"list":[1,2]}}');
  it.each([
    { ops: '[{"op":"add","path":"/__proto__","value":{"polluted":"1"}}]', keys: ['metadata', 'spec', '__proto__'] },
    { ops: '[{"op":"add","path":"/metadata/labels/constructor","value":"x"}]', keys: ['metadata', 'spec'] },
    { ops: '[{"op":"add","path":"/metadata/labels/__proto__","value":{"polluted":"1"}}]', keys: ['metadata', 'spec'] },
  ])('$ops is data', ({ ops, keys }) => {
    const out = applyJsonPatch(doc(), parseJsonPatch(JSON.parse(ops)));
    expect(ownKeys(out)).toEqual(keys);
    untouched();
  });
  it.each([
    '[{"op":"add","path":"/__proto__/polluted","value":"1"}]',
    '[{"op":"add","path":"/metadata/constructor/polluted","value":"1"}]',
    '[{"op":"add","path":"/metadata/toString/polluted","value":"1"}]',
    '[{"op":"add","path":"/metadata/__proto__/polluted","value":"1"}]',
    '[{"op":"replace","path":"/metadata/hasOwnProperty","value":"1"}]',
    '[{"op":"copy","from":"/metadata/constructor","path":"/x"}]',
    '[{"op":"move","from":"/spec/constructor","path":"/x"}]',
    '[{"op":"remove","path":"/metadata/labels/toString"}]',
  ])('%s names a member that does not exist', (ops) => {
    expect(() => applyJsonPatch(doc(), parseJsonPatch(JSON.parse(ops)))).toThrow(/does not exist/);
    untouched();
  });
});

import { describe, expect, test } from 'vitest';
import type { PatchMeta } from './patch-meta';
import { patchMetaFor } from './patch-meta';
import { strategicMergePatch, type JsonMap } from './strategic-merge';

// A test schema shaped like upstream's merge-test struct: `ints` merge as primitives,
// `items` merge by `name`, `inner.items` (inside an item) merge by `name`, `plain` is replaced.
const meta: PatchMeta = {
  fields: {
    ints: { strategies: ['merge'] },
    items: {
      strategies: ['merge'],
      mergeKey: 'name',
      fields: { inner: { strategies: ['merge'], mergeKey: 'name' }, tags: { strategies: ['merge'] } },
    },
    box: { strategies: ['retainKeys'] },
    whole: { strategies: ['replace'] },
  },
};

interface Case {
  name: string;
  original: JsonMap;
  patch: JsonMap;
  result?: JsonMap;
  error?: RegExp;
}

const cases: Case[] = [
  { name: 'adds a field to a map', original: { a: 1 }, patch: { b: 2 }, result: { a: 1, b: 2 } },
  { name: 'merges nested maps', original: { m: { a: 1 } }, patch: { m: { b: 2 } }, result: { m: { a: 1, b: 2 } } },
  { name: 'null deletes a field', original: { a: 1, b: 2 }, patch: { b: null }, result: { a: 1 } },
  { name: 'null for a missing field is ignored', original: { a: 1 }, patch: { c: null }, result: { a: 1 } },
  { name: 'nulls inside a new value are dropped', original: {}, patch: { m: { a: null, b: 1 } }, result: { m: { b: 1 } } },
  { name: 'a scalar replaces a scalar', original: { a: 'x' }, patch: { a: 'y' }, result: { a: 'y' } },
  { name: 'a value of another type replaces', original: { a: { x: 1 } }, patch: { a: [1] }, result: { a: [1] } },
  { name: 'lists without a strategy are replaced', original: { plain: [1, 2] }, patch: { plain: [3] }, result: { plain: [3] } },
  { name: 'merging int lists take new items in front', original: { ints: [1, 2] }, patch: { ints: [3] }, result: { ints: [3, 1, 2] } },
  { name: 'merging int lists keep one of each', original: { ints: [1, 2] }, patch: { ints: [2, 2] }, result: { ints: [1, 2] } },
  { name: 'merging int lists keep the patch order', original: { ints: [1, 2, 3] }, patch: { ints: [3, 1] }, result: { ints: [2, 3, 1] } },
  {
    name: '$deleteFromPrimitiveList removes items',
    original: { ints: [1, 2, 3] },
    patch: { '$deleteFromPrimitiveList/ints': [2] },
    result: { ints: [1, 3] },
  },
  {
    name: '$deleteFromPrimitiveList of a missing item adds nothing',
    original: { ints: [1, 2] },
    patch: { '$deleteFromPrimitiveList/ints': [3] },
    result: { ints: [1, 2] },
  },
  {
    name: '$deleteFromPrimitiveList on a missing list does nothing',
    original: {},
    patch: { '$deleteFromPrimitiveList/ints': [3] },
    result: {},
  },
  {
    name: '$setElementOrder adds an item where the order says',
    original: { ints: [1, 2, 4] },
    patch: { '$setElementOrder/ints': [1, 2, 3], ints: [3] },
    result: { ints: [1, 2, 3, 4] },
  },
  {
    name: '$setElementOrder with add and delete',
    original: { ints: [1, 2, 3, 4] },
    patch: { '$setElementOrder/ints': [1, 2, 4], '$deleteFromPrimitiveList/ints': [3] },
    result: { ints: [1, 2, 4] },
  },
  {
    name: '$setElementOrder reorders and keeps server-only items in place',
    original: { items: [{ name: 1, other: 'a' }, { name: 2, v: 2 }, { name: 9 }, { name: 3, v: 3 }, { name: 4, v: 4 }] },
    patch: { '$setElementOrder/items': [{ name: 2 }, { name: 1 }, { name: 4 }, { name: 3 }] },
    result: { items: [{ name: 2, v: 2 }, { name: 1, other: 'a' }, { name: 9 }, { name: 4, v: 4 }, { name: 3, v: 3 }] },
  },
  {
    name: '$setElementOrder keeps duplicates together',
    original: { ints: [1, 2, 3, 2, 4] },
    patch: { '$setElementOrder/ints': [2, 1, 4, 3, 2] },
    result: { ints: [2, 2, 1, 4, 3] },
  },
  {
    name: '$setElementOrder that contradicts the patch list fails',
    original: { ints: [1, 3, 2] },
    patch: { '$setElementOrder/ints': [1, 2, 3], ints: [3, 1] },
    error: /doesn't match/,
  },
  {
    name: 'merging lists of maps merge by key',
    original: { items: [{ name: 'a', v: 1 }, { name: 'b', v: 2 }] },
    patch: { items: [{ name: 'b', w: 3 }] },
    result: { items: [{ name: 'a', v: 1 }, { name: 'b', v: 2, w: 3 }] },
  },
  {
    name: 'null inside a merged element deletes its field',
    original: { items: [{ name: 'a', v: 1, w: 2 }] },
    patch: { items: [{ name: 'a', v: null }] },
    result: { items: [{ name: 'a', w: 2 }] },
  },
  {
    name: 'new elements of a merging list of maps go first',
    original: { items: [{ name: 'a' }] },
    patch: { items: [{ name: 'b' }] },
    result: { items: [{ name: 'b' }, { name: 'a' }] },
  },
  {
    name: '$patch delete removes an element by merge key',
    original: { items: [{ name: 'a' }, { name: 'b' }, { name: 'a' }] },
    patch: { items: [{ name: 'a', $patch: 'delete' }] },
    result: { items: [{ name: 'b' }] },
  },
  {
    name: '$patch replace in a list replaces the list',
    original: { items: [{ name: 'a' }, { name: 'b' }] },
    patch: { items: [{ name: 'c' }, { $patch: 'replace' }] },
    result: { items: [{ name: 'c' }] },
  },
  {
    name: '$patch replace on a map replaces the map',
    original: { m: { a: 1, b: 2 } },
    patch: { m: { c: 3, $patch: 'replace' } },
    result: { m: { c: 3 } },
  },
  { name: '$patch delete on a map empties it', original: { m: { a: 1 } }, patch: { m: { $patch: 'delete' } }, result: { m: {} } },
  { name: 'an unknown $patch fails', original: { m: { a: 1 } }, patch: { m: { $patch: 'nope' } }, error: /Unknown patch type/ },
  {
    name: 'nested merging lists merge inside elements',
    original: { items: [{ name: 'a', inner: [{ name: 'x', v: 1 }] }] },
    patch: { items: [{ name: 'a', inner: [{ name: 'x', w: 2 }] }] },
    result: { items: [{ name: 'a', inner: [{ name: 'x', v: 1, w: 2 }] }] },
  },
  {
    name: 'an element without the merge key fails',
    original: { items: [{ name: 'a' }] },
    patch: { items: [{ v: 1 }] },
    error: /does not contain declared merge key/,
  },
  {
    name: '$retainKeys clears fields not listed',
    original: { box: { a: 1, b: 2, c: 3 } },
    patch: { box: { $retainKeys: ['a', 'd'], d: 4 } },
    result: { box: { a: 1, d: 4 } },
  },
  {
    name: '$retainKeys must list every field the patch sets',
    original: { box: { a: 1 } },
    patch: { box: { $retainKeys: ['a'], d: 4 } },
    error: /retainKeys/,
  },
  { name: 'a map with the replace strategy is replaced', original: { whole: { a: 1 } }, patch: { whole: { b: 2 } }, result: { whole: { b: 2 } } },
  {
    name: 'directives in a new value are never stored',
    original: {},
    patch: { m: { '$setElementOrder/ints': [1], ints: [1], gone: { $patch: 'delete' } } },
    result: { m: { ints: [1] } },
  },
  { name: 'lists of lists are refused', original: { ints: [[1]] }, patch: { ints: [[2]] }, error: /lists of lists/ },
];

describe('strategicMergePatch', () => {
  test.each(cases)('$name', ({ original, patch, result, error }) => {
    const before = structuredClone(original);
    if (error) {
      expect(() => strategicMergePatch(original, patch, meta)).toThrow(error);
    } else {
      expect(strategicMergePatch(original, patch, meta)).toEqual(result);
    }
    expect(original).toEqual(before);
  });
});

describe('the patch metadata of the served kinds', () => {
  const pvc = {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'c', finalizers: ['kubernetes.io/pvc-protection'], labels: { a: '1' } },
    spec: { accessModes: ['ReadWriteOnce'] },
    status: { conditions: [{ type: 'Resizing', status: 'True' }] },
  };
  const cases2: { name: string; patch: JsonMap; expect: (o: JsonMap) => unknown; equals: unknown }[] = [
    {
      name: 'finalizers merge',
      patch: { metadata: { finalizers: ['example.com/x'] } },
      expect: (o) => (o.metadata as JsonMap).finalizers,
      equals: ['example.com/x', 'kubernetes.io/pvc-protection'],
    },
    {
      name: 'finalizers are removed by the deletion list',
      patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['kubernetes.io/pvc-protection'] } },
      expect: (o) => (o.metadata as JsonMap).finalizers,
      equals: [],
    },
    {
      name: 'access modes are replaced',
      patch: { spec: { accessModes: ['ReadWriteMany'] } },
      expect: (o) => (o.spec as JsonMap).accessModes,
      equals: ['ReadWriteMany'],
    },
    {
      name: 'claim conditions merge by type',
      patch: { status: { conditions: [{ type: 'Resizing', status: 'False' }] } },
      expect: (o) => (o.status as JsonMap).conditions,
      equals: [{ type: 'Resizing', status: 'False' }],
    },
    {
      name: 'labels merge and null removes one',
      patch: { metadata: { labels: { a: null, b: '2' } } },
      expect: (o) => (o.metadata as JsonMap).labels,
      equals: { b: '2' },
    },
  ];
  test.each(cases2)('PersistentVolumeClaim: $name', ({ patch, expect: pick, equals }) => {
    expect(pick(strategicMergePatch(pvc, patch, patchMetaFor('PersistentVolumeClaim')))).toEqual(equals);
  });
});

import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { assignInOrder, candidateLimits } from './batch-assign';

describe('candidateLimits', () => {
  test.each([
    { shapes: [], want: [] },
    { shapes: ['a'], want: [1] },
    { shapes: ['a', 'a', 'b', 'a'], want: [3, 3, 1, 3] },
    { shapes: ['x', 'y', 'z'], want: [1, 1, 1] },
  ])('$shapes', ({ shapes, want }) => {
    expect(candidateLimits(shapes)).toEqual(want);
  });
});

describe('assignInOrder', () => {
  test.each([
    { name: 'no claims', candidates: [], want: [] },
    { name: 'each takes its smallest', candidates: [['v1', 'v2'], ['v3']], want: ['v1', 'v3'] },
    { name: 'a later claim skips what an earlier one took', candidates: [['v1', 'v2'], ['v1', 'v2']], want: ['v1', 'v2'] },
    { name: 'nothing left', candidates: [['v1'], ['v1']], want: ['v1', undefined] },
    { name: 'no candidates at all', candidates: [[], ['v1']], want: [undefined, 'v1'] },
    { name: 'a large request keeps its own list', candidates: [['s1', 'm1'], ['m1', 'l1'], ['s1', 'm1']], want: ['s1', 'm1', undefined] },
  ])('$name', ({ candidates, want }) => {
    expect(assignInOrder(candidates)).toEqual(want);
  });
});

// The batch gives every claim what binding the claims one at a time would: each the
// smallest volume of its shape that fits and no earlier claim took.
test('with limits from candidateLimits, a batch binds as claims one at a time would', () => {
  const volume = fc.record({ shape: fc.constantFrom('a', 'b'), size: fc.integer({ min: 1, max: 20 }) });
  const claim = fc.record({ shape: fc.constantFrom('a', 'b', 'c'), size: fc.integer({ min: 1, max: 20 }) });
  fc.assert(
    fc.property(fc.array(volume, { maxLength: 30 }), fc.array(claim, { maxLength: 20 }), (vols, claims) => {
      const pool = vols.map((v, i) => ({ ...v, name: `v${String(i).padStart(2, '0')}` }));
      const order = (xs: typeof pool) => [...xs].sort((x, y) => x.size - y.size || x.name.localeCompare(y.name));
      // One at a time.
      const free = new Set(pool.map((v) => v.name));
      const oneByOne = claims.map((c) => {
        const v = order(pool.filter((p) => free.has(p.name) && p.shape === c.shape && p.size >= c.size))[0];
        if (v) free.delete(v.name);
        return v?.name;
      });
      // Batched: each claim's `limit` smallest fitting volumes, then assignInOrder.
      const limits = candidateLimits(claims.map((c) => c.shape));
      const lists = claims.map((c, i) => order(pool.filter((p) => p.shape === c.shape && p.size >= c.size)).slice(0, limits[i]).map((v) => v.name));
      expect(assignInOrder(lists)).toEqual(oneByOne);
    }),
    { numRuns: 2000 },
  );
});

import { describe, expect, it } from 'vitest';
import { inParallel } from './in-parallel';

describe('inParallel', () => {
  it.each([
    { items: 0, width: 4, most: 0 },
    { items: 3, width: 8, most: 3 },
    { items: 20, width: 4, most: 4 },
    { items: 5, width: 1, most: 1 },
  ])('$items items at width $width: each once, at most $most at a time', async ({ items, width, most }) => {
    let running = 0;
    let peak = 0;
    const seen: number[] = [];
    await inParallel([...Array(items).keys()], width, async (i) => {
      running++;
      peak = Math.max(peak, running);
      await new Promise<void>((r) => setImmediate(r));
      seen.push(i);
      running--;
    });
    expect(seen.sort((a, b) => a - b)).toEqual([...Array(items).keys()]);
    expect(peak).toBe(most);
  });

  it('rejects with the first failure', async () => {
    await expect(inParallel([1, 2, 3], 2, async (i) => { if (i === 2) throw new Error('two'); })).rejects.toThrow('two');
  });
});

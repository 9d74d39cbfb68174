import { describe, expect, it } from 'vitest';
import { inParallel, limiter } from './in-parallel';

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

describe('limiter', () => {
  it.each([
    { jobs: 10, width: 3 },
    { jobs: 2, width: 8 },
    { jobs: 6, width: 1 },
  ])('$jobs jobs arriving one by one at width $width: all run, at most width at once, in order of arrival', async ({ jobs, width }) => {
    const run = limiter(width);
    let running = 0;
    let peak = 0;
    const started: number[] = [];
    const results = await Promise.all(
      [...Array(jobs).keys()].map((i) =>
        run(async () => {
          started.push(i);
          running++;
          peak = Math.max(peak, running);
          await new Promise<void>((r) => setImmediate(r));
          running--;
          return i * 2;
        }),
      ),
    );
    expect(results).toEqual([...Array(jobs).keys()].map((i) => i * 2));
    expect(started).toEqual([...Array(jobs).keys()]);
    expect(peak).toBe(Math.min(width, jobs));
  });

  it('a failed job frees its place and rejects its caller only', async () => {
    const run = limiter(1);
    const failed = run(async () => {
      throw new Error('boom');
    });
    const next = run(async () => 'ran');
    await expect(failed).rejects.toThrow('boom');
    await expect(next).resolves.toBe('ran');
  });
});

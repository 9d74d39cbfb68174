// New pool volumes made in batches by one small shell (pool-os.ts createLimited): each is
// a subvolume with its limit, calls made meanwhile go together, one volume's failure is
// its own, and data reaches the shell only as arguments.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realPoolOs } from '../../server/agent/pool-os';
import { commands } from '../../server/agent/command-runner';
import { releaseAndWarn } from '../../server/provisioners/testing';
import { makePool, qgroups, skipWithoutPools, subvolumes } from './fixture';

const skip = skipWithoutPools('batched subvolume creation');

describe.skipIf(skip)('createLimited on a real pool', () => {
  let dir: string;
  let pool: string;
  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'stowage-create-limited-'));
    pool = await makePool(dir, 'pool', 256);
  });
  afterAll(async () => {
    commands.close();
    if (dir) await releaseAndWarn(dir);
  });

  it('makes 40 volumes asked for at once, each with its own limit, and answers each one\'s id', async () => {
    const names = Array.from({ length: 40 }, (_, i) => `pvc-batch-${i}`);
    const ids = await Promise.all(names.map((n, i) => realPoolOs.createLimited!(path.join(pool, n), BigInt((i + 1) * 1024 * 1024))));
    expect((await subvolumes(pool)).filter((n) => n.startsWith('pvc-batch-')).sort()).toEqual([...names].sort());
    const rows = await qgroups(pool);
    for (const [i, n] of names.entries()) {
      const row = rows.find((r) => r.path?.split('/').pop() === n);
      expect(row?.maxReferencedBytes, n).toBe(BigInt((i + 1) * 1024 * 1024));
      expect(ids[i], n).toBe(row?.id);
    }
  });

  it("one volume's failure is its own, in btrfs's words; the others are made", async () => {
    const taken = path.join(pool, 'pvc-taken');
    await fs.mkdir(taken); // a plain directory already there: create fails
    const results = await Promise.allSettled([
      realPoolOs.createLimited!(path.join(pool, 'pvc-ok-1'), 1048576n),
      realPoolOs.createLimited!(taken, 1048576n),
      realPoolOs.createLimited!(path.join(pool, 'pvc-ok-2'), 1048576n),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const reason = String((results[1] as PromiseRejectedResult).reason);
    expect(reason).toContain(`btrfs subvolume create ${taken}:`);
    expect(reason).toMatch(/exists/i);
    expect(await subvolumes(pool)).toEqual(expect.arrayContaining(['pvc-ok-1', 'pvc-ok-2']));
  });

  it('a path with shell words in it is a path, not a command', async () => {
    const odd = path.join(pool, 'pvc-$(touch pwned)-`id`;x');
    await realPoolOs.createLimited!(odd, 2097152n);
    expect(await subvolumes(pool)).toContain('pvc-$(touch pwned)-`id`;x');
    await expect(fs.stat(path.join(process.cwd(), 'pwned'))).rejects.toThrow();
    await expect(fs.stat(path.join(pool, 'pwned'))).rejects.toThrow();
  });

  it('refuses a path with a line break before running anything', async () => {
    await expect(realPoolOs.createLimited!(path.join(pool, 'pvc-a\nok'), 1n)).rejects.toThrow(/line break/);
    expect(await subvolumes(pool)).not.toContain('pvc-a\nok');
  });
});

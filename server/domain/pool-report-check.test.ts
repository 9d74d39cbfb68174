import { describe, expect, test } from 'vitest';
import { MAX_POOL_BYTES, poolBound, poolReportProblems, type ReportedPool } from './pool-report-check';

const fs = (blocks: bigint, available: bigint, blockSize = 4096n) => ({ blockSize: String(blockSize), blocks: String(blocks), availableBlocks: String(available) });
const pool = (total: bigint, free: bigint, filesystem?: ReturnType<typeof fs>): ReportedPool => ({ usable: true, totalBytes: String(total), freeBytes: String(free), ...(filesystem ? { filesystem } : {}) });
const DEFAULT = poolBound(undefined);

describe('poolReportProblems', () => {
  test.each<[string, ReportedPool, { bytes: bigint; source: string }, RegExp[]]>([
    ['the figures statfs gives are accepted', pool(4096n * 1000n, 4096n * 10n, fs(1000n, 10n)), DEFAULT, []],
    ['less total than the filesystem (a pool on part of it) is accepted', pool(4096n, 0n, fs(1000n, 10n)), DEFAULT, []],
    ['an unusable pool has no figures to hold', { usable: false }, DEFAULT, []],
    ['a total over its filesystem size is refused', pool(4096n * 1001n, 0n, fs(1000n, 10n)), DEFAULT, [/exceeds the size of its filesystem/]],
    ['free over what the filesystem has available is refused', pool(4096n * 1000n, 4096n * 11n, fs(1000n, 10n)), DEFAULT, [/exceeds what its filesystem has available/]],
    ['free over total is refused', pool(4096n, 8192n, fs(1000n, 10n)), DEFAULT, [/freeBytes 8192 exceeds totalBytes 4096/]],
    ['more blocks available than blocks is refused', pool(4096n, 0n, fs(1n, 2n)), DEFAULT, [/2 blocks available of 1/]],
    ['a block size below 512 is refused', pool(256n, 0n, fs(1n, 0n, 256n)), DEFAULT, [/block size 256/]],
    ['a block size that is no power of two is refused', pool(3000n, 0n, fs(1n, 0n, 3000n)), DEFAULT, [/block size 3000/]],
    ['no filesystem figures with a usable pool is refused', pool(4096n, 0n), DEFAULT, [/must come with its filesystem/]],
    ['over the default bound is refused, however consistent', pool(MAX_POOL_BYTES + 4096n, 0n, fs(MAX_POOL_BYTES / 4096n + 1n, 0n)), DEFAULT, [/exceeds the bound for any pool \(1125899906842624\)/]],
    ['within an admin bound above the default is accepted', pool(MAX_POOL_BYTES * 2n, 0n, fs(MAX_POOL_BYTES / 2048n, 0n)), poolBound({ 'pool.stowage.io/max-bytes': '4Pi' }), []],
    ['over an admin bound below the default is refused', pool(2n << 40n, 0n, fs(1n << 29n, 0n)), poolBound({ 'pool.stowage.io/max-bytes': '1Ti' }), [/exceeds the node's pool.stowage.io\/max-bytes \(1099511627776\)/]],
  ])('%s', (_n, r, bound, want) => {
    const problems = poolReportProblems(r, bound);
    expect(problems).toHaveLength(want.length);
    want.forEach((w, i) => expect(problems[i]).toMatch(w));
  });
});

describe('poolBound', () => {
  test.each<[string, Record<string, string> | undefined, bigint]>([
    ['no annotation: the default', undefined, MAX_POOL_BYTES],
    ['a quantity', { 'pool.stowage.io/max-bytes': '2Pi' }, 2n << 50n],
    ['decimal bytes', { 'pool.stowage.io/max-bytes': '1000' }, 1000n],
    ['a value that does not parse: the default', { 'pool.stowage.io/max-bytes': 'lots' }, MAX_POOL_BYTES],
    ['zero or less: the default', { 'pool.stowage.io/max-bytes': '0' }, MAX_POOL_BYTES],
  ])('%s', (_n, annotations, want) => {
    expect(poolBound(annotations).bytes).toBe(want);
  });
});

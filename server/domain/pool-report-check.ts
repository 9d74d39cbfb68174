// What a node's pool report may claim. The server cannot measure a node's disks; it holds
// each usable pool's figures to the filesystem figures the agent reports with them (the
// statfs of the pool's path: block size, blocks, blocks available) and to a bound: the
// Node's `pool.stowage.io/max-bytes` set by an admin, else MAX_POOL_BYTES. A report that
// claims more is refused whole (the caller answers 422); its pools then offer no room.
// Pure: no I/O.
import { quantityFromJSON, quantityToBytes } from './quantity';
import { annPoolMaxBytes } from './well-known/annotations';

/** The figures of one pool's report this check reads (the agent contract's PoolReport has them). */
export interface ReportedPool {
  usable: boolean;
  totalBytes?: string;
  freeBytes?: string;
  filesystem?: { blockSize: string; blocks: string; availableBlocks: string };
}

/** The most bytes one pool may report without an admin's word: 1 PiB (no single node's pool is larger today). */
export const MAX_POOL_BYTES = 1n << 50n;

/** statfs block sizes: a power of two from 512 bytes to 1 MiB. */
const isBlockSize = (b: bigint) => b >= 512n && b <= 1n << 20n && (b & (b - 1n)) === 0n;

/** The bound on a node's pools: its admin-set annotation when it reads as a positive byte count, else MAX_POOL_BYTES. */
export function poolBound(annotations: Record<string, string> | undefined): { bytes: bigint; source: string } {
  const raw = annotations?.[annPoolMaxBytes];
  const q = raw === undefined ? undefined : quantityFromJSON(raw);
  const bytes = q ? quantityToBytes(q) : undefined;
  if (bytes !== undefined && bytes > 0n) return { bytes, source: `the node's ${annPoolMaxBytes}` };
  return { bytes: MAX_POOL_BYTES, source: 'the bound for any pool' };
}

/**
 * Why a pool's report cannot be true of this node (empty when it may be): a usable pool
 * must come with its filesystem's figures, report no more total than that filesystem's
 * size, no more free than it has available or than its total, and stay within `bound`.
 */
export function poolReportProblems(r: ReportedPool, bound: { bytes: bigint; source: string }): string[] {
  if (!r.usable) return [];
  const total = BigInt(r.totalBytes ?? '0');
  const free = BigInt(r.freeBytes ?? '0');
  const fs = r.filesystem;
  const problems: string[] = [];
  if (!fs) {
    problems.push('a usable pool must come with its filesystem (statfs: blockSize, blocks, availableBlocks)');
  } else {
    const blockSize = BigInt(fs.blockSize);
    const size = blockSize * BigInt(fs.blocks);
    const available = blockSize * BigInt(fs.availableBlocks);
    if (!isBlockSize(blockSize)) problems.push(`filesystem block size ${fs.blockSize} is not a power of two from 512 to 1048576`);
    if (BigInt(fs.availableBlocks) > BigInt(fs.blocks)) problems.push(`filesystem reports ${fs.availableBlocks} blocks available of ${fs.blocks}`);
    if (total > size) problems.push(`totalBytes ${total} exceeds the size of its filesystem (${fs.blocks} blocks of ${fs.blockSize} bytes = ${size})`);
    if (free > available) problems.push(`freeBytes ${free} exceeds what its filesystem has available (${available})`);
  }
  if (free > total) problems.push(`freeBytes ${free} exceeds totalBytes ${total}`);
  if (total > bound.bytes) problems.push(`totalBytes ${total} exceeds ${bound.source} (${bound.bytes})`);
  return problems;
}

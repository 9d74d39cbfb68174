// A node's btrfs pool as the dashboard shows it, from its CSIStorageCapacity (the agent's
// figures in pool.stowage.io/ annotations): allocated (the volumes' limits), used (the
// filesystem's), and the room for new volumes, as shares of the total; or why the pool
// cannot serve. Pure.
import { annPoolAllocated, annPoolFree, annPoolPath, annPoolProblem, annPoolTotal } from '@/server/domain/well-known/annotations';
import type { KubeObject } from '@/server/resources/types';
import { bytesOfSize } from '../format/size';

export interface PoolView {
  className: string;
  path: string;
  problem?: string;
  totalBytes?: bigint;
  usedBytes?: bigint;
  allocatedBytes?: bigint;
  roomBytes?: bigint;
  /** Shares of the total, 0..100. */
  allocatedPercent?: number;
  usedPercent?: number;
}

const big = (v: string | undefined) => (v !== undefined && /^\d{1,30}$/.test(v) ? BigInt(v) : undefined);
const percent = (part: bigint, total: bigint) => (total > 0n ? Math.min(100, Number((part * 10000n) / total) / 100) : 0);

export function poolView(c: KubeObject): PoolView {
  const a = c.metadata.annotations ?? {};
  const className = typeof c.storageClassName === 'string' ? c.storageClassName : '';
  const path = a[annPoolPath] ?? '';
  if (a[annPoolProblem]) return { className, path, problem: a[annPoolProblem] };
  const totalBytes = big(a[annPoolTotal]);
  const free = big(a[annPoolFree]);
  const allocatedBytes = big(a[annPoolAllocated]);
  const roomBytes = bytesOfSize(typeof c.capacity === 'string' || typeof c.capacity === 'number' ? c.capacity : undefined);
  if (totalBytes === undefined || free === undefined) return { className, path, roomBytes };
  const usedBytes = totalBytes > free ? totalBytes - free : 0n;
  return {
    className,
    path,
    totalBytes,
    usedBytes,
    allocatedBytes,
    roomBytes,
    usedPercent: percent(usedBytes, totalBytes),
    allocatedPercent: allocatedBytes === undefined ? undefined : percent(allocatedBytes, totalBytes),
  };
}

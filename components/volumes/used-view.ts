// "Used" as the lists, and the claim and volume pages, show it: used of capacity, readable
// ("412 MiB of 1 GiB"), a share for a bar, and empty when nothing reports the volume's
// usage. A volume's usage is on the volume (annotation stowage.io/used-bytes); a claim's is
// its Bound volume's, which its list page brings along. Pure.
import { usageOf } from '@/server/domain/volume-usage';
import type { KubeObject } from '@/server/resources/types';
import { isKind } from '@/server/resources/of-kind';
import { bytesOfSize, formatSize } from '../format/size';

export interface UsedBytes {
  bytes: string;
  partial: boolean;
}

export interface UsedView {
  /** "412 MiB of 1 GiB"; "at least 412 MiB of 1 GiB" when the walk ran out of time. */
  text: string;
  usedBytes: bigint;
  /** 0..100 when the capacity is known. */
  percent?: number;
}

/** Used of capacity; undefined when the used bytes are unknown or garbled. */
export function usedView(used: UsedBytes | undefined, capacity: unknown): UsedView | undefined {
  if (!used || !/^\d{1,30}$/.test(used.bytes)) return undefined;
  const usedBytes = BigInt(used.bytes);
  const cap = typeof capacity === 'string' || typeof capacity === 'number' ? bytesOfSize(String(capacity)) : undefined;
  const of = cap !== undefined && cap > 0n ? ` of ${formatSize(cap)}` : '';
  const text = `${used.partial ? 'at least ' : ''}${formatSize(usedBytes)}${of}`;
  const percent = cap !== undefined && cap > 0n ? Math.min(100, Number((usedBytes * 10000n) / cap) / 100) : undefined;
  return { text, usedBytes, ...(percent !== undefined ? { percent } : {}) };
}

/** The used view of a list row: a volume's own, a claim's from its page's `used` map. */
export function usedOfRow(obj: KubeObject, claimsUsed: Record<string, UsedBytes> | undefined): UsedView | undefined {
  if (isKind(obj, 'PersistentVolume')) {
    const u = usageOf(obj);
    return u ? usedView({ bytes: u.bytes.toString(), partial: u.partial }, obj.spec?.capacity?.storage) : undefined;
  }
  if (isKind(obj, 'PersistentVolumeClaim')) {
    const key = `${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;
    return usedView(claimsUsed?.[key], obj.status?.capacity?.storage ?? obj.spec?.resources?.requests?.storage);
  }
  return undefined;
}

// Sizes as people read them: bytes, or a Kubernetes quantity ("264212084Ki"), in binary
// units with at most three significant digits ("252 GiB", "1.5 GiB"). The one size
// formatter of the dashboard; quantities are parsed by the domain's parser. Pure.
import { parseQuantity, quantityToBytes } from '@/server/domain/quantity';
import { humanBytes } from '@/server/domain/human-size';

export { SIZE_UNITS } from '@/server/domain/human-size';

export type SizeInput = string | number | bigint | null | undefined;

/** Bytes of a size: a bigint or number of bytes, or a quantity text ("10Gi", "1500", "1e3"). */
export function bytesOfSize(v: SizeInput): bigint | undefined {
  if (v === null || v === undefined) return undefined;
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? BigInt(Math.round(v)) : undefined;
  const q = parseQuantity(v.trim());
  return q ? quantityToBytes(q) : undefined;
}

/**
 * A size in the largest binary unit that keeps its number at least 1, to three
 * significant digits: 1536 -> "1.5 KiB", "264212084Ki" -> "252 GiB". Text that is not a
 * size comes back as it is; absent is "".
 */
export function formatSize(v: SizeInput): string {
  const bytes = bytesOfSize(v);
  if (bytes === undefined) return v === null || v === undefined ? '' : String(v);
  return humanBytes(bytes);
}

/** The exact quantity behind a shown size, for its tooltip: the text as written, or bytes. */
export function exactSize(v: SizeInput): string | undefined {
  if (v === null || v === undefined || v === '') return undefined;
  if (typeof v === 'string') return /^[+-]?\d+$/.test(v.trim()) ? `${v.trim()} bytes` : v;
  return `${v} bytes`;
}

/**
 * Sizes inside a quota cell as kubectl prints it ("requests.storage: 184772Mi/2Ti, pods: 3/10"):
 * each storage or memory resource's used/hard read as sizes, the others as they are.
 */
export function formatQuotaCell(cell: string): string {
  if (!cell) return cell;
  return cell
    .split(', ')
    .map((part) => {
      const m = /^([^:]+): ([^/]*)\/(.*)$/.exec(part);
      if (!m || !isSizeResource(m[1])) return part;
      return `${m[1]}: ${formatSize(m[2])}/${formatSize(m[3])}`;
    })
    .join(', ');
}

/** Resource names whose quantities are bytes: storage, ephemeral-storage, memory, hugepages-*. */
export function isSizeResource(name: string): boolean {
  return /(^|[./])(storage|ephemeral-storage|memory|hugepages-[^/]+)$/.test(name);
}

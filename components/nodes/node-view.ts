// The node page's words: which copy of a volume the node holds, and how many pages its
// volumes take. Pure.
import type { NodeCopy } from '@/server/domain/node-copies';
import { formatSize } from '../format/size';
import { behindText } from './drain-view';

/** "only copy", "active copy · 2 replicas", "12 s behind", "rebuilding 40% (400 MiB of 1 GiB)". */
export function copyText(c: NodeCopy): string {
  switch (c.role) {
    case 'only':
      return 'only copy';
    case 'active':
      return c.replicas === 0 ? 'active copy · no replica yet' : `active copy · ${c.replicas} ${c.replicas === 1 ? 'replica' : 'replicas'}`;
    case 'replica': {
      if (c.state === 'Fenced') return 'fenced: an old copy, not used';
      const done = c.progress ? Number(c.progress.doneBytes) : NaN;
      const total = c.progress ? Number(c.progress.totalBytes) : NaN;
      if (c.state === 'Rebuilding' && c.progress && Number.isFinite(done) && Number.isFinite(total) && total > 0) {
        return `rebuilding ${Math.min(100, Math.floor((done / total) * 100))}% (${formatSize(c.progress.doneBytes)} of ${formatSize(c.progress.totalBytes)})`;
      }
      if (c.state === 'Rebuilding') return 'rebuilding';
      const age = behindText(c.behindSeconds);
      return c.state === 'Unreachable' ? `unreachable · ${age}` : age;
    }
  }
}

/** Pages of `size` rows for `total` rows (at least one). */
export function pageCount(total: number, size: number): number {
  if (!Number.isFinite(total) || total <= 0 || size <= 0) return 1;
  return Math.ceil(total / size);
}

/** Pools per node, from the pools' capacity objects (labelled with their node); a pool that cannot serve counts too. */
export function poolsPerNode(items: { metadata: { labels?: Record<string, string> } }[], nodeLabel: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const c of items) {
    const node = c.metadata.labels?.[nodeLabel];
    if (node) out.set(node, (out.get(node) ?? 0) + 1);
  }
  return out;
}

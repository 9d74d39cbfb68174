// The claim doctor's view of a btrfs claim's pools: for each node that reports the class's
// pool, its room now (promises of volumes being made counted, as placement counts them) or
// why it cannot serve (missing path, not btrfs, quotas off, node not ready); then one line
// in upstream's words when no node has room ("0/3 nodes are available: 2 node(s) did not
// have enough free storage, 1 node(s) ..."); for a replicated class, whether enough nodes
// have room for every copy. Pure: no I/O.
import type { CSIStorageCapacity } from '../resources/csi-storage-capacity/schema';
import { largestVolume } from './pool-capacity';
import { notEnoughSpace } from './pool-capacity';
import { bytesToQuantity, formatQuantity } from './quantity';
import { annPoolPath, annPoolProblem } from './well-known/annotations';
import { labelHostname } from './well-known/labels';

export interface PoolOnNode {
  node: string;
  path: string;
  /** Room for new volumes (bytes, decimal string); "0" when the pool cannot serve. */
  roomBytes: string;
  room: string;
  fits: boolean;
  /** Why the pool cannot serve on this node (set when it cannot). */
  problem?: string;
}

export interface PoolSituation {
  className: string;
  requestBytes: string;
  nodes: PoolOnNode[];
  /** One line: where it fits, or why nowhere. */
  summary: string;
}

const size = (b: bigint) => formatQuantity(bytesToQuantity(b));

/** Upstream's reason for a node whose pool cannot serve at all. */
export const poolUnusable = 'node(s) did not have a usable pool';

/**
 * `capacities`: the published objects, with current promises already applied
 * (withCurrentPromises). Without `withNodes` (a caller who may not read nodes or capacity)
 * only the counts are given, as upstream's FailedScheduling event gives them.
 */
export function poolSituation(className: string, pool: string, requestBytes: bigint, capacities: readonly CSIStorageCapacity[], withNodes = true, copies = 1): PoolSituation {
  const nodes: PoolOnNode[] = [];
  for (const c of capacities) {
    const node = c.nodeTopology?.matchLabels?.[labelHostname];
    if (c.storageClassName !== className || !node) continue;
    const problem = c.metadata.annotations?.[annPoolProblem];
    const room = problem ? 0n : largestVolume(c);
    nodes.push({ node, path: c.metadata.annotations?.[annPoolPath] ?? pool, roomBytes: String(room), room: size(room), fits: !problem && room >= requestBytes, ...(problem ? { problem } : {}) });
  }
  nodes.sort((a, b) => a.node.localeCompare(b.node));
  const base = { className, requestBytes: String(requestBytes), nodes: withNodes ? nodes : [] };
  const fitting = nodes.filter((n) => n.fits);
  if (nodes.length === 0) return { ...base, summary: `no node reports the pool ${pool} of StorageClass "${className}" yet: is a node agent running?` };
  if (copies > 1 && fitting.length > 0 && fitting.length < copies) {
    // A replicated class: every copy on its own node with room.
    return { ...base, summary: `${fitting.length} of ${nodes.length} node(s) have room for ${size(requestBytes)} in pool ${pool}${withNodes ? ` (${fitting.map((n) => n.node).join(', ')})` : ''}; the class keeps ${copies} copies, each on its own node: ${copies - fitting.length} more node(s) with room needed` };
  }
  if (fitting.length > 0) return { ...base, summary: `${fitting.length} of ${nodes.length} node(s) have room for ${size(requestBytes)} in pool ${pool}${withNodes ? `: ${fitting.map((n) => n.node).join(', ')}` : ''}` };
  const unusable = nodes.filter((n) => n.problem).length;
  const small = nodes.length - unusable;
  const parts = [...(small > 0 ? [`${small} ${notEnoughSpace}`] : []), ...(unusable > 0 ? [`${unusable} ${poolUnusable}`] : [])];
  return { ...base, summary: `0/${nodes.length} nodes are available: ${parts.join(', ')}. None has room for ${size(requestBytes)} in pool ${pool}.` };
}

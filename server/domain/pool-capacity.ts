// Capacity-aware placement over published CSIStorageCapacity objects, as upstream's
// VolumeBinding plugin does for drivers with storageCapacity: true: a claim of such a class
// may be provisioned on a node only when an object of its class whose nodeTopology selects
// the node has room for it (maximumVolumeSize when set, else capacity). Stowage's pools add
// one rule upstream leaves out: several claims of one pod on the same class and node must
// fit together. Pure: no I/O.
import type { CSIStorageCapacity } from '../resources/csi-storage-capacity/schema';
import { labelSelectorToSelector, matchesSelector } from './label-selector';
import { bytesToQuantity, formatQuantity, quantityFromJSON, quantityToBytes } from './quantity';
import { labelHostname, labelPoolNode } from './well-known/labels';
import { annPoolFree, annPoolPath, annPoolProblem, annPoolTotal } from './well-known/annotations';
import type { Node } from '../resources/node/schema';
import { promisedBytes, reportedRoom, type PoolAssetDetails } from './btrfs-pool';

/** Upstream's ErrReasonNotEnoughSpace. */
export const notEnoughSpace = 'node(s) did not have enough free storage';

const bytesOf = (v: unknown): bigint | undefined => {
  const q = quantityFromJSON(v);
  return q ? quantityToBytes(q) : undefined;
};

/** The largest volume one object says fits: maximumVolumeSize, else capacity (upstream's order). */
export function largestVolume(c: CSIStorageCapacity): bigint {
  return bytesOf(c.maximumVolumeSize) ?? bytesOf(c.capacity) ?? 0n;
}

/** The room the class has on a node with these labels (the largest of its objects there); undefined when none is published. */
export function roomOnNode(capacities: readonly CSIStorageCapacity[], className: string, nodeLabels: Record<string, string>): bigint | undefined {
  let best: bigint | undefined;
  for (const c of capacities) {
    if (c.storageClassName !== className) continue;
    if (c.nodeTopology && !matchesSelector(labelSelectorToSelector(c.nodeTopology), nodeLabels)) continue;
    const room = largestVolume(c);
    if (best === undefined || room > best) best = room;
  }
  return best;
}

/**
 * Immediate classes: the node with the most room for `bytes` in the class, by the
 * hostname its object selects; ties by node name. Undefined when no node has room.
 */
export function roomiestNode(capacities: readonly CSIStorageCapacity[], className: string, bytes: bigint): string | undefined {
  let best: { node: string; room: bigint } | undefined;
  for (const c of capacities) {
    const node = c.nodeTopology?.matchLabels?.[labelHostname];
    if (c.storageClassName !== className || !node) continue;
    const room = largestVolume(c);
    if (room < bytes) continue;
    if (!best || room > best.room || (room === best.room && node < best.node)) best = { node, room };
  }
  return best?.node;
}

/** A volume's promise on a pool: its node, pool path and intent-record details. */
export interface PoolPromise {
  node: string;
  details: PoolAssetDetails;
}

/** Promises summed per node and pool (AssetStore.promisedByPool) as one promise each. */
export function pooledPromises(rows: readonly { node: string; pool: string; bytes: string }[]): PoolPromise[] {
  return rows.map((r) => ({ node: r.node, details: { pool: r.pool, limitBytes: r.bytes } }));
}

/**
 * The published objects with their room recomputed from the promises as they are now
 * (volumes begun since the agent's last report included), from the filesystem figures
 * the object carries. Objects without those figures (not Stowage's pools) are kept as they are.
 */
export function withCurrentPromises(capacities: readonly CSIStorageCapacity[], promises: readonly PoolPromise[]): CSIStorageCapacity[] {
  return capacities.map((c) => {
    const a = c.metadata.annotations ?? {};
    const node = c.metadata.labels?.[labelPoolNode];
    const pool = a[annPoolPath];
    if (!node || !pool || a[annPoolTotal] === undefined || a[annPoolFree] === undefined) return c;
    const allocated = promises.filter((p) => p.node === node && p.details.pool === pool).reduce((sum, p) => sum + promisedBytes(p.details), 0n);
    const room = formatQuantity(bytesToQuantity(reportedRoom({ usable: true, totalBytes: a[annPoolTotal], freeBytes: a[annPoolFree] }, allocated)));
    return { ...c, capacity: room, maximumVolumeSize: room };
  });
}

/** Why a silent node's pools offer no room (the problem annotation, as the Pools page and the claim doctor show it). */
export function silentNodeReason(nodeName: string, node: Node | undefined): string | undefined {
  if (!node) return `node "${nodeName}" is gone`;
  const conds = Array.isArray(node.status?.conditions) ? node.status.conditions : [];
  const ready = conds.find((c) => c?.type === 'Ready');
  if (ready?.status === 'True') return undefined;
  const why = [ready?.reason, ready?.message].filter(Boolean).join(': ');
  return `node "${nodeName}" is not ready${ready ? ` (Ready=${ready.status}${why ? `, ${why}` : ''})` : ' (no Ready condition)'}: its agent's last report is not trusted`;
}

/**
 * What a pool's capacity object becomes while its node is silent (upstream's external
 * provisioner drops the objects of a topology segment it can no longer reach): undefined
 * while the node is Ready (the object stays as the agent reported it); `delete` when the
 * node is gone; else no room, with the reason, and without the filesystem figures, so that
 * withCurrentPromises cannot compute room from them either. Unchanged when already so.
 */
export function silencedCapacity(c: CSIStorageCapacity, node: Node | undefined): CSIStorageCapacity | 'delete' | undefined {
  const nodeName = c.metadata.labels?.[labelPoolNode];
  if (!nodeName) return undefined;
  if (!node) return 'delete';
  const reason = silentNodeReason(nodeName, node);
  if (!reason) return undefined;
  const a = { ...(c.metadata.annotations ?? {}) };
  const zero = formatQuantity(bytesToQuantity(0n));
  if (bytesOf(c.capacity) === 0n && bytesOf(c.maximumVolumeSize) === 0n && a[annPoolProblem] === reason && a[annPoolTotal] === undefined && a[annPoolFree] === undefined) return undefined;
  delete a[annPoolTotal];
  delete a[annPoolFree];
  a[annPoolProblem] = reason;
  return { ...c, capacity: zero, maximumVolumeSize: zero, metadata: { ...c.metadata, annotations: a } };
}

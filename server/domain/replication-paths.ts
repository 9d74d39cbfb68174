// Where a replicated btrfs volume's copies live in a pool, as pure rules. Every node that
// holds a copy of volume `<pool>/<pvName>` keeps the snapshots it sent or received in
// `<pool>/.stowage-replicas/<pvName>/snap-<seq>` (read-only subvolumes; the same names on
// every node, so a snapshot one node sent is the parent the next transfer from any copy can
// start from). The active copy is the writable subvolume `<pool>/<pvName>` on exactly one
// node (the PV's active node, at the volume's epoch). The agent touches nothing else.
// Pure: no I/O.
import path from 'node:path';
import { isPoolVolumeName } from './btrfs-pool';

/** The folder of a pool that holds the replication snapshots of its volumes. */
export const REPLICA_DIR = '.stowage-replicas';

/** The folder of one volume's replication snapshots in a pool. */
export const replicaSnapshotDir = (pool: string, pvName: string) => path.posix.join(pool, REPLICA_DIR, pvName);

/** The replication snapshot number `seq` of a volume. */
export const replicaSnapshotPath = (pool: string, pvName: string, seq: number) => path.posix.join(replicaSnapshotDir(pool, pvName), `snap-${seq}`);

const SNAP_RE = /^snap-([1-9]\d{0,15})$/;

/** The seq of a replication snapshot's base name, or undefined. */
export function replicaSnapshotSeq(base: string): number | undefined {
  const m = SNAP_RE.exec(base);
  return m ? Number(m[1]) : undefined;
}

/**
 * Whether `p` is a replication snapshot of a volume of `pool` (of `pvName` when given):
 * exactly `<pool>/.stowage-replicas/<pv>/snap-<seq>`, normalised.
 */
export function isReplicaSnapshotPath(pool: string, p: string, pvName?: string): boolean {
  if (!path.posix.isAbsolute(pool) || path.posix.normalize(pool) !== pool || path.posix.normalize(p) !== p) return false;
  const dir = path.posix.dirname(p);
  const pv = path.posix.basename(dir);
  if (path.posix.dirname(dir) !== path.posix.join(pool, REPLICA_DIR) || !isPoolVolumeName(pv) || (pvName !== undefined && pv !== pvName)) return false;
  return replicaSnapshotSeq(path.posix.basename(p)) !== undefined;
}

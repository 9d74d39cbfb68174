// The replication jobs' pure rules: which paths a job may touch (refused untouched
// otherwise), which snapshots of a volume's folder go, and how `btrfs subvolume show`
// reads. No I/O.
import path from 'node:path';
import type { DataJobSpec } from '../../contracts/data-jobs';
import { isPoolVolumeName, poolVolumePath } from '../../domain/btrfs-pool';
import { isReplicaSnapshotPath, replicaSnapshotSeq } from '../../domain/replication-paths';

type Spec<K extends DataJobSpec['kind']> = Extract<DataJobSpec, { kind: K }>;

const poolOk = (pool: string) => path.posix.isAbsolute(pool) && path.posix.normalize(pool) === pool && !pool.endsWith('/');

/** Why a replica job's paths are refused (undefined: they are the volume's own). */
export function replicaJobRefusal(spec: Spec<'replica-send'> | Spec<'replica-receive'> | Spec<'replica-remove'>): string | undefined {
  if (!poolOk(spec.pool)) return `pool ${spec.pool} is not a normalised absolute path`;
  if (!isPoolVolumeName(spec.pvName)) return `${spec.pvName} is not a volume name`;
  if (spec.kind === 'replica-remove') return undefined;
  const snap = (what: string, p: string) => (isReplicaSnapshotPath(spec.pool, p, spec.pvName) ? undefined : `${what} ${p} is not a replication snapshot of ${spec.pvName} in ${spec.pool}`);
  if (spec.kind === 'replica-send' && spec.volumePath !== poolVolumePath(spec.pool, spec.pvName)) return `volume path ${spec.volumePath} is not ${poolVolumePath(spec.pool, spec.pvName)}`;
  const bad = snap('snapshot', spec.snapshotPath) ?? (spec.parentPath !== undefined ? snap('parent', spec.parentPath) : undefined) ?? spec.keep.map((k) => snap('kept snapshot', k)).find(Boolean);
  if (bad) return bad;
  if (replicaSnapshotSeq(path.posix.basename(spec.snapshotPath)) !== spec.seq) return `snapshot ${spec.snapshotPath} is not number ${spec.seq}`;
  if (spec.parentPath !== undefined && seqOf(spec.parentPath) >= spec.seq) return `parent ${spec.parentPath} is not older than snapshot ${spec.seq}`;
  return undefined;
}

/** The seq of a replication snapshot path (0 when it is not one). */
export const seqOf = (p: string) => replicaSnapshotSeq(path.posix.basename(p)) ?? 0;

/** Base names in `dir` (a volume's snapshot folder) to remove: snapshots whose paths are not in `keep`, oldest first. */
export function snapshotsToRemove(dir: string, names: readonly string[], keep: readonly string[]): string[] {
  const kept = new Set(keep);
  return names.filter((n) => replicaSnapshotSeq(n) !== undefined && !kept.has(path.posix.join(dir, n))).sort((a, b) => replicaSnapshotSeq(a)! - replicaSnapshotSeq(b)!);
}

/** What `btrfs subvolume show` says of a snapshot: read-only, and whether it was received (its received UUID). */
export function parseSubvolumeShow(text: string): { readOnly: boolean; received: boolean } {
  const field = (name: string) => new RegExp(`^\\s*${name}:\\s*(.*)$`, 'mi').exec(text)?.[1]?.trim() ?? '';
  const received = field('Received UUID');
  return { readOnly: /\breadonly\b/.test(field('Flags')), received: received !== '' && received !== '-' };
}

// btrfs pools as pure rules: which path a volume of a pool has, what the agent may touch,
// how `btrfs qgroup show` reads, and how much room a pool has for new volumes. A pool is a
// btrfs filesystem (or a directory of one) with quotas enabled, named by a class's `pool`
// parameter; each volume is one subvolume `<pool>/pvc-<uid>` whose qgroup limit is its size.
// Pure: no I/O.
import path from 'node:path';
import { fnv1a32 } from './local-pv-name';

/**
 * A name the provisioner gives a subvolume: a PV's (`pvc-` and a claim uid) or a snapshot
 * content's (`snapcontent-` and a VolumeSnapshot uid).
 */
const PV_NAME_RE = /^(pvc|snapcontent)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const isPoolVolumeName = (name: string) => PV_NAME_RE.test(name);

/** The subvolume of a volume in a pool. */
export const poolVolumePath = (pool: string, pvName: string) => path.posix.join(pool, pvName);

/**
 * Whether `p` is a volume of `pool`: directly inside it and named like a provisioned
 * volume. Anything else is never created, limited or deleted by the agent.
 */
export function isPoolVolumePath(pool: string, p: string): boolean {
  if (!path.posix.isAbsolute(pool) || path.posix.normalize(pool) !== pool) return false;
  return path.posix.dirname(p) === pool && isPoolVolumeName(path.posix.basename(p)) && path.posix.normalize(p) === p;
}

/** One row of `btrfs qgroup show -re --raw`. */
export interface QgroupRow {
  /** The subvolume id (the N of 0/N). */
  id: string;
  referencedBytes: bigint;
  exclusiveBytes: bigint;
  /** The referenced limit; undefined for "none". */
  maxReferencedBytes?: bigint;
  /** The path column (relative to the filesystem), when the tool prints it. */
  path?: string;
}

/** Parses `btrfs qgroup show -re --raw` (level-0 groups only; headers and others skipped). */
export function parseQgroupShow(text: string): QgroupRow[] {
  const rows: QgroupRow[] = [];
  for (const line of text.split('\n')) {
    const f = line.trim().split(/\s+/);
    const m = /^0\/(\d+)$/.exec(f[0] ?? '');
    if (!m || f.length < 5 || !/^\d+$/.test(f[1]) || !/^\d+$/.test(f[2])) continue;
    rows.push({
      id: m[1],
      referencedBytes: BigInt(f[1]),
      exclusiveBytes: BigInt(f[2]),
      ...(/^\d+$/.test(f[3]) ? { maxReferencedBytes: BigInt(f[3]) } : {}),
      ...(f[5] !== undefined ? { path: f.slice(5).join(' ') } : {}),
    });
  }
  return rows;
}

/** What an agent knows of a pool on its node. */
export interface PoolFigures {
  totalBytes: bigint;
  /** Free bytes of the filesystem (statfs: available to unprivileged writers). */
  freeBytes: bigint;
  /** The sum of the limits of the pool's volumes, those being created included. */
  allocatedBytes: bigint;
}

/**
 * Room for new volumes: what is neither promised to a volume (its limit) nor used by
 * anything else. Limits are promises the filesystem does not reserve, so the smaller of
 * "total minus promised" and "free now" is what a new volume can count on.
 */
export function poolRoom(p: PoolFigures): bigint {
  const unpromised = p.totalBytes - p.allocatedBytes;
  const room = unpromised < p.freeBytes ? unpromised : p.freeBytes;
  return room > 0n ? room : 0n;
}

/** Why a path cannot serve as a pool, from what the agent saw; undefined when it can. */
export function poolProblem(seen: { exists: boolean; isDirectory?: boolean; fsType?: string; quotas?: boolean; quotaError?: string }): string | undefined {
  if (!seen.exists) return 'the path does not exist on this node';
  if (seen.isDirectory === false) return 'the path is not a directory';
  if (seen.fsType !== undefined && seen.fsType !== 'btrfs') return `the path is on a ${seen.fsType} filesystem, not btrfs`;
  if (!seen.quotas) return `quotas are not enabled on this btrfs filesystem (btrfs quota enable)${seen.quotaError ? `: ${seen.quotaError}` : ''}`;
  return undefined;
}

/** The details of a btrfs volume's intent record (the plugin writes them; the agent's reports fill in the rest). */
export interface PoolAssetDetails {
  className?: string;
  pool?: string;
  path?: string;
  /** The size the volume should have (its qgroup limit), decimal bytes. */
  limitBytes?: string;
  /** The limit the agent last set. */
  appliedBytes?: string;
  subvolumeId?: string;
  /** Being deleted, and the agent reported the subvolume gone. */
  removed?: boolean;
  /** Made as a snapshot of this subvolume of the pool (a snapshot, a restore, a clone). */
  from?: string;
  /** A VolumeSnapshot's read-only snapshot (record kind `snapshot`): no limit. */
  readOnly?: boolean;
}

/** The deterministic name of the CSIStorageCapacity of a class's pool on a node. */
export function poolCapacityName(node: string, className: string): string {
  const utf8 = new TextEncoder();
  return `pool-${fnv1a32(utf8.encode(className), fnv1a32(utf8.encode(`${node}\u0000`))).toString(16).padStart(8, '0')}`;
}

/** Room for new volumes in a reported pool: 0 when the pool cannot serve. */
export function reportedRoom(r: { usable: boolean; totalBytes?: string; freeBytes?: string }, allocatedBytes: bigint): bigint {
  if (!r.usable) return 0n;
  return poolRoom({ totalBytes: BigInt(r.totalBytes ?? '0'), freeBytes: BigInt(r.freeBytes ?? '0'), allocatedBytes });
}

/** The limit a volume's record promises (what counts as allocated), 0 when it promises nothing (removed). */
export function promisedBytes(d: PoolAssetDetails): bigint {
  if (d.removed) return 0n;
  const want = BigInt(d.limitBytes ?? '0');
  const applied = BigInt(d.appliedBytes ?? '0');
  return want > applied ? want : applied;
}

/** The StorageClass `stowage pool create` prints for a pool (WaitForFirstConsumer, expandable). */
export function poolStorageClassYaml(className: string, pool: string): string {
  return [
    'apiVersion: storage.k8s.io/v1',
    'kind: StorageClass',
    'metadata:',
    `  name: ${className}`,
    'provisioner: stowage.io/btrfs',
    'parameters:',
    `  pool: ${JSON.stringify(pool)}`,
    'reclaimPolicy: Delete',
    'volumeBindingMode: WaitForFirstConsumer',
    'allowVolumeExpansion: true',
    '',
  ].join('\n');
}

/** The /etc/fstab line that mounts the pool again at boot (a file through a loop device, or a device). */
export function poolFstabLine(source: string, mount: string, isFile: boolean): string {
  const esc = (s: string) => s.replace(/ /g, '\\040');
  return `${esc(source)} ${esc(mount)} btrfs ${isFile ? 'loop,' : ''}defaults,nofail 0 0`;
}

// What the agent needs from the machine for btrfs pools, behind one small interface:
// looking at a pool path, its qgroups, and making, limiting and removing subvolumes with
// btrfs-progs (execFile through command-runner.ts). Every call that removes is idempotent:
// removing what is gone succeeds, so an interrupted delete can always be run again.
// New volumes asked for at once are made together, create and limit by one small shell
// (shell-batches.ts).
import fs from 'node:fs/promises';
import { parseQgroupShow, type QgroupRow } from '../domain/btrfs-pool';
import { VOLUME_DIR_MODE } from '../domain/volume-modes';
import { commandErrorText, commands } from './command-runner';
import { ShellBatches } from './shell-batches';

/** statfs f_type values of the filesystems a pool path is likely to be on. */
const FS_MAGIC: Record<string, string> = {
  '2435016766': 'btrfs', // 0x9123683E
  '61267': 'ext4', // 0xEF53 (ext2/3/4)
  '1481003842': 'xfs', // 0x58465342
  '16914836': 'tmpfs', // 0x01021994
  '2035054128': 'overlay', // 0x794C7630
};

/** The root directory of a btrfs subvolume always has inode 256. */
const SUBVOLUME_ROOT_INO = 256n;

export interface PathSeen {
  exists: boolean;
  isDirectory?: boolean;
  fsType?: string;
}

export interface PoolOs {
  /** What is at p: whether it exists, is a directory, and the type of its filesystem. */
  look(p: string): Promise<PathSeen>;
  /** statfs of p's filesystem: its figures in bytes, and as the kernel gives them (block size, blocks, blocks available). */
  statfs(p: string): Promise<{ totalBytes: bigint; availableBytes: bigint; blockSize: bigint; blocks: bigint; availableBlocks: bigint }>;
  /** `btrfs qgroup show -re --raw`: rejects (with the tool's words) when quotas are off. */
  qgroups(pool: string): Promise<QgroupRow[]>;
  /** The subvolume id when p is the root of a subvolume; undefined when nothing is there; rejects for anything else there. */
  subvolumeId(p: string): Promise<string | undefined>;
  /** Whether p is the root of a subvolume (no command run); false when nothing is there; rejects for anything else there. */
  isSubvolume(p: string): Promise<boolean>;
  /** Makes the subvolume p, its root its owner's only (VOLUME_DIR_MODE; btrfs makes it 0755). */
  createSubvolume(p: string): Promise<void>;
  /**
   * Makes the subvolume p and sets its limit (createSubvolume, then limit); calls made
   * while others run go together. Resolves with the new subvolume's id when it was read
   * (so no look at the pool's qgroups is needed for it). Optional: without it the two
   * steps are taken one by one.
   */
  createLimited?(p: string, bytes: bigint): Promise<string | undefined>;
  /**
   * `btrfs subvolume snapshot from p`: p becomes a snapshot of the subvolume `from`, its
   * root its owner's only whatever `from`'s mode, then (readOnly) read-only.
   */
  snapshotSubvolume(from: string, p: string, readOnly: boolean): Promise<void>;
  /**
   * The subvolume p as made (a step cut short made it part way): its root's mode
   * VOLUME_DIR_MODE, and read-only when asked. Runs a command only when something is wrong.
   */
  secure(p: string, readOnly: boolean): Promise<void>;
  /** Sets the referenced limit of the subvolume's qgroup. */
  limit(p: string, bytes: bigint): Promise<void>;
  /** Deletes the subvolume (and commits), waits until the cleaner is done with it, then destroys its qgroup. */
  deleteSubvolume(pool: string, p: string, id: string): Promise<void>;
}

async function btrfs(args: string[]): Promise<string> {
  try {
    // Through the agent's helper: no fork of this (possibly large) process per command.
    return (await commands.run('btrfs', args, { maxBuffer: 16 * 1024 * 1024 })).stdout;
  } catch (e) {
    throw new Error(`btrfs ${args.join(' ')}: ${commandErrorText(e)}`, { cause: e });
  }
}

/**
 * For each pair of arguments (path, bytes): create the subvolume, then limit it; one line
 * per pair (shell-batches.ts).
 */
const createLimitedBatches = new ShellBatches(
  `while [ "$#" -ge 2 ]; do
  if ! e=$(btrfs subvolume create "$1" 2>&1 >/dev/null); then
    printf 'btrfs subvolume create %s: %s\\n' "$1" "$(printf '%s' "$e" | tr '\\n' ' ')"
  elif ! e=$(chmod ${VOLUME_DIR_MODE.toString(8)} -- "$1" 2>&1); then
    printf 'chmod %s: %s\\n' "$1" "$(printf '%s' "$e" | tr '\\n' ' ')"
  elif ! e=$(btrfs qgroup limit "$2" "$1" 2>&1 >/dev/null); then
    printf 'btrfs qgroup limit %s %s: %s\\n' "$2" "$1" "$(printf '%s' "$e" | tr '\\n' ' ')"
  elif id=$(btrfs inspect-internal rootid "$1" 2>/dev/null); then
    printf 'ok %s\\n' "$id"
  else
    echo ok
  fi
  shift 2
done`,
  2,
  ([p]) => `btrfs subvolume create ${p}`,
);

const missing = (e: unknown) => ['ENOENT', 'ENOTDIR'].includes((e as NodeJS.ErrnoException)?.code ?? '');

export const realPoolOs: PoolOs = {
  async look(p) {
    let st;
    try {
      st = await fs.stat(p);
    } catch (e) {
      if (missing(e)) return { exists: false };
      throw e;
    }
    if (!st.isDirectory()) return { exists: true, isDirectory: false };
    const s = await fs.statfs(p);
    return { exists: true, isDirectory: true, fsType: FS_MAGIC[String(s.type)] ?? `type 0x${s.type.toString(16)}` };
  },

  async statfs(p) {
    const s = await fs.statfs(p, { bigint: true });
    return { totalBytes: s.blocks * s.bsize, availableBytes: s.bavail * s.bsize, blockSize: s.bsize, blocks: s.blocks, availableBlocks: s.bavail };
  },

  async qgroups(pool) {
    return parseQgroupShow(await btrfs(['qgroup', 'show', '-re', '--raw', pool]));
  },

  async isSubvolume(p) {
    let st;
    try {
      st = await fs.stat(p, { bigint: true });
    } catch (e) {
      if (missing(e)) return false;
      throw e;
    }
    if (!st.isDirectory() || st.ino !== SUBVOLUME_ROOT_INO) throw new Error(`${p} exists and is not a btrfs subvolume; refusing to touch it`);
    return true;
  },

  async subvolumeId(p) {
    if (!(await realPoolOs.isSubvolume(p))) return undefined;
    return (await btrfs(['inspect-internal', 'rootid', p])).trim();
  },

  async createSubvolume(p) {
    await btrfs(['subvolume', 'create', p]);
    await fs.chmod(p, VOLUME_DIR_MODE);
  },

  async createLimited(p, bytes) {
    const id = await createLimitedBatches.run(p, String(bytes));
    return /^\d{1,20}$/.test(id) ? id : undefined;
  },

  async snapshotSubvolume(from, p, readOnly) {
    // Writable first: a read-only snapshot's root could not take its mode.
    await btrfs(['subvolume', 'snapshot', from, p]);
    await fs.chmod(p, VOLUME_DIR_MODE);
    if (readOnly) await btrfs(['property', 'set', '-ts', p, 'ro', 'true']);
  },

  async secure(p, readOnly) {
    const modeOk = ((await fs.stat(p)).mode & 0o777) === VOLUME_DIR_MODE;
    if (!readOnly) {
      if (!modeOk) await fs.chmod(p, VOLUME_DIR_MODE);
      return;
    }
    const ro = (await btrfs(['property', 'get', '-ts', p, 'ro'])).trim() === 'ro=true';
    if (modeOk && ro) return;
    if (!modeOk) {
      if (ro) await btrfs(['property', 'set', '-ts', p, 'ro', 'false']);
      await fs.chmod(p, VOLUME_DIR_MODE);
    }
    await btrfs(['property', 'set', '-ts', p, 'ro', 'true']);
  },

  async limit(p, bytes) {
    await btrfs(['qgroup', 'limit', String(bytes), p]);
  },

  async deleteSubvolume(pool, p, id) {
    if (!/^\d+$/.test(id)) throw new Error(`not a subvolume id: ${id}`);
    if ((await realPoolOs.subvolumeId(p)) !== undefined) await btrfs(['subvolume', 'delete', '--commit-after', p]);
    await btrfs(['subvolume', 'sync', pool, id]);
    // Newer kernels drop the qgroup with the subvolume; older ones leave it for us.
    try {
      await btrfs(['qgroup', 'destroy', `0/${id}`, pool]);
    } catch (e) {
      if (!/No such file or directory|not found/i.test(String(e))) throw e;
    }
  },
};

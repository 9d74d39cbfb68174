// What publishing needs from the machine, behind one small interface: directories, bind
// mounts, symlinks. Nothing here removes recursively: a published volume is a mount or a
// link onto someone's data, so every removal is one entry, after its unmount.
import fs from 'node:fs/promises';
import { commands } from './command-runner';
import { ShellBatches } from './shell-batches';

// Through the agent's helper process: no fork of this (possibly large) process per mount.
const run = (file: string, args: string[], o: { timeout?: number } = {}) => commands.run(file, args, { timeoutMs: o.timeout });

export type PathKind = 'directory' | 'block' | 'symlink' | 'file' | 'other';

export interface PublishOs {
  /** What is at p (without following a final symlink); undefined when nothing is. */
  lkind(p: string): Promise<PathKind | undefined>;
  /** What p finally points at (symlinks followed); undefined when nothing is. */
  kind(p: string): Promise<PathKind | undefined>;
  mkdirp(dir: string): Promise<void>;
  readdir(dir: string): Promise<string[]>;
  readlink(p: string): Promise<string | undefined>;
  /** Whether p is a mount point (in /proc/self/mountinfo, compared by real path). */
  isMountPoint(p: string): Promise<boolean>;
  /** `mount --bind src target`, then read-only when asked. Rejects with the command's words. */
  bindMount(src: string, target: string, readOnly: boolean): Promise<void>;
  unmount(target: string): Promise<void>;
  symlink(target: string, p: string): Promise<void>;
  /** Removes one entry: an empty directory, a link or a file. Never recursive. */
  removeOne(p: string): Promise<void>;
  /**
   * Bytes used by the volume at p: on a mount point, its filesystem's used bytes (statfs);
   * on a plain directory, the size of its contents (contentBytes), never the whole host
   * filesystem; undefined when that cannot be measured within its budget.
   */
  usedBytes?(p: string): Promise<bigint | undefined>;
}

/** Limits of one walk of a plain directory: it gives up (undefined) rather than run long. */
export const contentWalkLimits = { entries: 50_000, ms: 500 };

/**
 * Disk usage of a directory's contents, as `du -s` counts it (allocated 512-byte blocks,
 * each hard-linked inode once, not crossing into other filesystems, symlinks not followed);
 * undefined when the walk would exceed its entry or time budget.
 */
export async function contentBytes(root: string, limits = contentWalkLimits): Promise<bigint | undefined> {
  const started = Date.now();
  const top = await fs.lstat(root, { bigint: true });
  const seen = new Set<string>();
  let total = 0n;
  let entries = 0;
  const stack = [root];
  while (stack.length > 0) {
    const dir = stack.pop()!;
    let names: string[];
    try {
      names = await fs.readdir(dir);
    } catch {
      continue; // gone or unreadable meanwhile: counted as empty
    }
    for (const name of names) {
      if (++entries > limits.entries || Date.now() - started > limits.ms) return undefined;
      const p = `${dir}/${name}`;
      let st: import('node:fs').BigIntStats;
      try {
        st = await fs.lstat(p, { bigint: true });
      } catch {
        continue;
      }
      if (st.dev !== top.dev) continue;
      const id = `${st.ino}`;
      if (st.nlink > 1n) {
        if (seen.has(id)) continue;
        seen.add(id);
      }
      total += st.blocks * 512n;
      if (st.isDirectory()) stack.push(p);
    }
  }
  return total;
}

function kindOf(st: import('node:fs').Stats): PathKind {
  if (st.isSymbolicLink()) return 'symlink';
  if (st.isDirectory()) return 'directory';
  if (st.isBlockDevice()) return 'block';
  if (st.isFile()) return 'file';
  return 'other';
}

const missing = (err: unknown) => (err as NodeJS.ErrnoException)?.code === 'ENOENT' || (err as NodeJS.ErrnoException)?.code === 'ENOTDIR';

/** The mount targets of mountinfo, unescaped (\040 for a space ...). */
export function mountTargets(mountinfo: string): Set<string> {
  const out = new Set<string>();
  for (const line of mountinfo.split('\n')) {
    const target = line.split(' ')[4];
    if (target) out.add(target.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8))));
  }
  return out;
}

/** What stat (or lstat) finds at p; undefined when nothing is there. */
async function kindAt(stat: (p: string) => Promise<import('node:fs').Stats>, p: string): Promise<PathKind | undefined> {
  try {
    return kindOf(await stat(p));
  } catch (err) {
    if (missing(err)) return undefined;
    throw err;
  }
}

/**
 * The mount table, read at most every MOUNTS_TTL_MS: a publishing pass asks about every
 * volume of every pod, and each read of /proc/self/mountinfo costs the kernel a walk of all
 * mounts (hundreds once pods have their bind mounts). A mount or unmount made here drops
 * the copy at once; one made by someone else is seen within the TTL.
 */
const MOUNTS_TTL_MS = 200;
let mounts: { at: number; targets: Promise<Set<string>> } | undefined;
function mountTable(): Promise<Set<string>> {
  if (!mounts || Date.now() - mounts.at > MOUNTS_TTL_MS) {
    const targets = fs.readFile('/proc/self/mountinfo', 'utf8').then(mountTargets);
    targets.catch(() => (mounts = undefined));
    mounts = { at: Date.now(), targets };
  }
  return mounts.targets;
}
const mountsChanged = () => (mounts = undefined);

/**
 * For each pair of arguments (source, target): `mount --bind`; one line per pair. Pods
 * published side by side mount together, by one small shell (shell-batches.ts).
 */
const bindMounts = new ShellBatches(
  `while [ "$#" -ge 2 ]; do
  if e=$(mount --bind "$1" "$2" 2>&1 >/dev/null); then
    echo ok
  else
    printf 'mount --bind %s %s: %s\\n' "$1" "$2" "$(printf '%s' "$e" | tr '\\n' ' ')"
  fi
  shift 2
done`,
  2,
  ([src, target]) => `mount --bind ${src} ${target}`,
  30_000,
);

async function commandError(argv: string[], err: unknown): Promise<Error> {
  const e = err as { stderr?: string; message?: string; code?: unknown };
  const words = (e.stderr || e.message || String(err)).trim().split('\n').slice(-2).join(' ');
  return new Error(`${argv.join(' ')}: ${words}`);
}

export const realPublishOs: PublishOs = {
  lkind: (p) => kindAt(fs.lstat, p),
  kind: (p) => kindAt(fs.stat, p),
  async mkdirp(dir) {
    await fs.mkdir(dir, { recursive: true, mode: 0o750 });
  },
  async readdir(dir) {
    try {
      return await fs.readdir(dir);
    } catch (err) {
      if (missing(err)) return [];
      throw err;
    }
  },
  async readlink(p) {
    try {
      return await fs.readlink(p);
    } catch {
      return undefined;
    }
  },
  async usedBytes(p) {
    if (!(await realPublishOs.isMountPoint(p))) return contentBytes(p);
    const st = await fs.statfs(p);
    return (BigInt(st.blocks) - BigInt(st.bfree)) * BigInt(st.bsize);
  },

  async isMountPoint(p) {
    let real: string;
    try {
      real = await fs.realpath(p);
    } catch {
      return false;
    }
    return (await mountTable()).has(real);
  },
  async bindMount(src, target, readOnly) {
    try {
      await bindMounts.run(src, target);
    } finally {
      mountsChanged();
    }
    if (!readOnly) return;
    const ro = ['mount', '-o', 'remount,bind,ro', target];
    try {
      await run(ro[0], ro.slice(1), { timeout: 30_000 });
    } catch (err) {
      await run('umount', [target]).catch(() => undefined);
      throw await commandError(ro, err);
    } finally {
      mountsChanged();
    }
  },
  async unmount(target) {
    const argv = ['umount', target];
    try {
      await run(argv[0], argv.slice(1), { timeout: 30_000 });
    } catch (err) {
      throw await commandError(argv, err);
    } finally {
      mountsChanged();
    }
  },
  async symlink(target, p) {
    await fs.symlink(target, p);
  },
  async removeOne(p) {
    const st = await fs.lstat(p).catch((err) => {
      if (missing(err)) return undefined;
      throw err;
    });
    if (!st) return;
    if (st.isDirectory()) await fs.rmdir(p);
    else await fs.unlink(p);
  },
};

// ALL operating-system access of the provisioner plugins, behind one interface (after
// sig-storage-local-static-provisioner pkg/util/volume_util.go): directories, sparse files,
// loop devices, filesystems and mounts. `realOs` runs the real commands (execFile, never a
// shell) and fs calls; os-fake.ts has an in-memory fake for unit tests and a wrapper that
// injects failures into either. Every call is idempotent where the OS allows it:
// removing what is already gone succeeds, so cleanup can always be run again.
import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import nodeOs from 'node:os';
import { posix } from 'node:path';
import { promisify } from 'node:util';
import { parseMountInfo, type FsStats } from '../domain/filesystem';

const run = promisify(execFile);

export interface UsageBudget {
  ms: number;
  entries: number;
}

export interface DiskUsage {
  bytes: bigint;
  partial: boolean;
}

export interface HostOs {
  hostname(): string;
  exists(path: string): Promise<boolean>;
  /** mkdir -p, with `mode` for the last component (applied even under a umask). */
  mkdir(path: string, mode?: number): Promise<void>;
  /** rm -rf; succeeds when nothing is there. */
  rm(path: string): Promise<void>;
  /** Removes an empty directory; succeeds when it is gone. */
  rmdir(path: string): Promise<void>;
  statfs(path: string): Promise<FsStats>;
  /**
   * Bytes used under a directory: a mount point's filesystem usage (statfs), else a walk
   * of its tree (allocated blocks, symlinks not followed) that stops at `budget`
   * (milliseconds or entries, whichever comes first) with `partial: true`: a lower bound.
   * Undefined when the directory does not exist.
   */
  diskUsage(path: string, budget: UsageBudget): Promise<DiskUsage | undefined>;
  /**
   * The path with every symlink resolved; for a path that does not exist yet, its nearest
   * existing ancestor resolved and the rest appended. Undefined when nothing resolves.
   */
  realpath(path: string): Promise<string | undefined>;
  /** Creates (or resizes) a sparse file of exactly `bytes`; a new file is its owner's only (0600). */
  truncate(path: string, bytes: bigint): Promise<void>;
  /** chmod(2): sets the permission bits of a file or directory (symlinks not followed into). */
  chmod(path: string, mode: number): Promise<void>;
  /** The size of a file or block device in bytes; undefined when missing. */
  sizeOf(path: string): Promise<bigint | undefined>;
  /** losetup -f --show: attaches a file, returns /dev/loopN. */
  losetupAttach(file: string): Promise<string>;
  /** losetup -j: the loop devices a file is attached to. */
  losetupFind(file: string): Promise<string[]>;
  /** losetup -d; succeeds when the device is not attached. */
  losetupDetach(device: string): Promise<void>;
  /** losetup -c: the device takes the new size of its backing file. */
  losetupResize(device: string): Promise<void>;
  /** Grows the filesystem on a device to the device's size (resize2fs; xfs_growfs on its mount point). */
  growFs(device: string, fsType: string, mountpoint: string): Promise<void>;
  /** Whether loop devices can be used here (losetup -f); the reason when not. */
  loopSupport(): Promise<{ ok: boolean; reason?: string }>;
  /** blkid: the filesystem type on a device, undefined when none. */
  fsTypeOf(device: string): Promise<string | undefined>;
  mkfs(device: string, fsType: string): Promise<void>;
  /** What is mounted at exactly this path (its source), undefined when nothing. */
  mountedAt(target: string): Promise<string | undefined>;
  mount(source: string, target: string, fsType?: string, options?: string[]): Promise<void>;
  /** umount; succeeds when nothing is mounted there. */
  umount(target: string): Promise<void>;
  /**
   * cp -a --reflink=auto: copies a file or a directory tree (ownership, modes, times, links)
   * to `target`, which must not exist; shares blocks where the filesystem can (btrfs, xfs).
   */
  copy(source: string, target: string): Promise<void>;
  /** rename(2): moves `source` to `target` in one step (same filesystem). */
  rename(source: string, target: string): Promise<void>;
  /** Writes what is cached for a file, a device or (`fileSystem`) the whole filesystem holding the path to disk (sync [-f]). */
  sync(path: string, fileSystem?: boolean): Promise<void>;
}

function errText(e: unknown): string {
  const err = e as { stderr?: string; message?: string };
  return (err.stderr || err.message || String(e)).trim();
}

async function cmd(file: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await run(file, args, { maxBuffer: 4 * 1024 * 1024 });
    return stdout;
  } catch (e) {
    throw new Error(`${file} ${args.join(' ')}: ${errText(e)}`, { cause: e });
  }
}

/** e2fsck -f -y; exit status 1 means errors were corrected (fine), more is a failure. */
async function fsck(device: string): Promise<void> {
  try {
    await run('e2fsck', ['-f', '-y', device], { maxBuffer: 4 * 1024 * 1024 });
  } catch (e) {
    if ((e as { code?: unknown }).code === 1) return;
    throw new Error(`e2fsck -f -y ${device}: ${errText(e)}`, { cause: e });
  }
}

function isMissing(e: unknown): boolean {
  return (e as NodeJS.ErrnoException)?.code === 'ENOENT';
}

let parentDeath: Promise<string[] | undefined> | undefined;

/** `setpriv --pdeathsig KILL --` (util-linux) when it is there: the command it runs is killed when this process dies. */
function withParentDeath(): Promise<string[] | undefined> {
  parentDeath ??= run('setpriv', ['--pdeathsig', 'KILL', '--', 'true']).then(
    () => ['setpriv', '--pdeathsig', 'KILL', '--'],
    () => undefined,
  );
  return parentDeath;
}

export function createRealOs(nodeName?: string): HostOs {
  const self: HostOs = {
    hostname: () => nodeName ?? nodeOs.hostname(),

    async exists(path) {
      try {
        await fs.access(path, constants.F_OK);
        return true;
      } catch {
        return false;
      }
    },

    async mkdir(path, mode) {
      await fs.mkdir(path, { recursive: true, mode });
      if (mode !== undefined) await fs.chmod(path, mode);
    },

    async rm(path) {
      await fs.rm(path, { recursive: true, force: true });
    },

    async rmdir(path) {
      try {
        await fs.rmdir(path);
      } catch (e) {
        if (!isMissing(e)) throw e;
      }
    },

    async realpath(p) {
      const rest: string[] = [];
      for (let cur = p; ; cur = posix.dirname(cur)) {
        try {
          const real = await fs.realpath(cur);
          return rest.length === 0 ? real : posix.join(real, ...rest.reverse());
        } catch (e) {
          if (!isMissing(e) && (e as NodeJS.ErrnoException).code !== 'ENOTDIR') throw e;
          if (cur === '/' || cur === '.') return undefined;
          rest.push(posix.basename(cur));
        }
      }
    },

    async statfs(path) {
      const s = await fs.statfs(path);
      return { totalBytes: BigInt(s.blocks) * BigInt(s.bsize), availableBytes: BigInt(s.bavail) * BigInt(s.bsize) };
    },

    async diskUsage(path, budget) {
      let top;
      try {
        top = await fs.lstat(path, { bigint: true });
      } catch (e) {
        if (isMissing(e)) return undefined;
        throw e;
      }
      if (!top.isDirectory()) return undefined;
      if ((await self.mountedAt(path)) !== undefined) {
        const s = await self.statfs(path);
        return { bytes: s.totalBytes - s.availableBytes, partial: false };
      }
      const deadline = Date.now() + budget.ms;
      let bytes = 0n;
      let seen = 0;
      const stack = [path];
      while (stack.length > 0) {
        const dir = stack.pop()!;
        let names: string[];
        try {
          names = await fs.readdir(dir);
        } catch (e) {
          if (isMissing(e)) continue;
          throw e;
        }
        for (const n of names) {
          if (++seen > budget.entries || Date.now() > deadline) return { bytes, partial: true };
          const child = posix.join(dir, n);
          let st;
          try {
            st = await fs.lstat(child, { bigint: true });
          } catch (e) {
            if (isMissing(e)) continue;
            throw e;
          }
          bytes += st.blocks * 512n;
          if (st.isDirectory()) stack.push(child);
        }
      }
      return { bytes, partial: false };
    },

    async truncate(path, bytes) {
      const h = await fs.open(path, 'a', 0o600);
      try {
        await h.truncate(Number(bytes));
      } finally {
        await h.close();
      }
    },

    async chmod(path, mode) {
      const st = await fs.lstat(path);
      if (st.isSymbolicLink()) throw new Error(`refusing to change the mode of ${path}: it is a symbolic link`);
      await fs.chmod(path, mode);
    },

    async sizeOf(path) {
      try {
        const st = await fs.stat(path);
        if (st.isBlockDevice()) return BigInt((await cmd('blockdev', ['--getsize64', path])).trim());
        return BigInt(st.size);
      } catch (e) {
        if (isMissing(e)) return undefined;
        throw e;
      }
    },

    async losetupAttach(file) {
      return (await cmd('losetup', ['-f', '--show', file])).trim();
    },

    async losetupFind(file) {
      const out = await cmd('losetup', ['-j', file, '-n', '-O', 'NAME']);
      return out
        .split('\n')
        .map((s) => s.trim())
        .filter(Boolean);
    },

    async losetupDetach(device) {
      try {
        await cmd('losetup', ['-d', device]);
      } catch (e) {
        // Fine when the device is not attached (any more): nothing left to do.
        const back = await cmd('losetup', ['-n', '-O', 'BACK-FILE', device]).catch(() => '');
        if (back.trim() === '') return;
        throw e;
      }
    },

    async loopSupport() {
      try {
        await cmd('losetup', ['-f']);
        return { ok: true };
      } catch (e) {
        return { ok: false, reason: `losetup -f is not permitted here (${errText(e)})` };
      }
    },

    async fsTypeOf(device) {
      try {
        // -p: probe the device itself; the blkid cache remembers filesystems of earlier users of /dev/loopN.
        const out = await run('blkid', ['-p', '-o', 'value', '-s', 'TYPE', device]);
        return out.stdout.trim() || undefined;
      } catch (e) {
        // blkid exits 2 when it finds nothing to report.
        if ((e as { code?: number }).code === 2) return undefined;
        throw new Error(`blkid ${device}: ${errText(e)}`, { cause: e });
      }
    },

    async losetupResize(device) {
      await cmd('losetup', ['-c', device]);
    },

    async growFs(device, fsType, mountpoint) {
      if (fsType === 'xfs') {
        await cmd('xfs_growfs', [mountpoint]);
        return;
      }
      try {
        await cmd('resize2fs', [device]); // online, while mounted
        return;
      } catch (online) {
        // Online growth needs CAP_SYS_RESOURCE; without it, grow offline: unmount, check, grow, mount again.
        if (!/Permission denied|Operation not permitted/.test(String(online))) throw online;
      }
      const mounted = (await self.mountedAt(mountpoint)) === device;
      if (mounted) await self.umount(mountpoint);
      try {
        await fsck(device);
        await cmd('resize2fs', [device]);
      } finally {
        if (mounted) await self.mount(device, mountpoint, fsType);
      }
    },

    async mkfs(device, fsType) {
      const args = fsType.startsWith('ext') ? ['-q', '-F', device] : ['-q', device];
      await cmd(`mkfs.${fsType}`, args);
    },

    async mountedAt(target) {
      const text = await fs.readFile('/proc/self/mountinfo', 'utf8');
      return parseMountInfo(text).get(target);
    },

    async mount(source, target, fsType, options) {
      const args: string[] = [];
      if (fsType) args.push('-t', fsType);
      if (options && options.length > 0) args.push('-o', options.join(','));
      await cmd('mount', [...args, source, target]);
    },

    async umount(target) {
      if ((await self.mountedAt(target)) === undefined) return;
      await cmd('umount', [target]);
    },

    async copy(source, target) {
      if (await self.exists(target)) throw new Error(`refusing to copy onto ${target}: it exists`);
      // cp dies with this process (a kill -9 of it must not leave a copy going on behind the next attempt's back).
      const [file, ...pre] = (await withParentDeath()) ?? ['cp'];
      await cmd(file, [...pre, ...(pre.length ? ['cp'] : []), '-a', '--reflink=auto', '--', source, target]);
    },

    async rename(source, target) {
      await fs.rename(source, target);
    },

    async sync(path, fileSystem = false) {
      await cmd('sync', fileSystem ? ['-f', '--', path] : ['--', path]);
    },
  };
  return self;
}

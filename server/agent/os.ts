// ALL operating-system access of the node agent, behind one interface (as the provisioner
// plugins' HostOs in server/provisioners/os.ts, after sig-storage-local-static-provisioner
// pkg/util/volume_util.go): reading discovery directories, identifying entries, capacities,
// mount points, removing a volume's contents, writing to and reading from devices, running
// cleanup commands. `realAgentOs` uses fs calls and spawns commands (never a shell);
// os-fake.ts holds a strict in-memory fake for unit tests. Processes: os-processes.ts.
import { constants, readdirSync, rmdirSync, watch as fsWatch } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { parseMountInfo, type FsStats } from '../domain/filesystem';
import { abortError, bootId, processGroup, readStateFile, signalGroup, spawnCommand, writeStateFile, type ProcessLedger, type SpawnedProcess } from './os-processes';

export type { ProcessLedger, SpawnedProcess } from './os-processes';

export type EntryKind = 'directory' | 'file' | 'symlink' | 'block' | 'char' | 'other';

export interface EntryStat {
  kind: EntryKind;
  /** The device of the filesystem holding the entry (st_dev), as a decimal string. */
  dev: string;
  ino: string;
  /** The device a block or character special file stands for (st_rdev). */
  rdev: string;
  /** Bytes of a regular file; 0 for others. */
  size: bigint;
}

export interface RunOptions {
  /** Added to the agent's own environment. */
  env?: Record<string, string>;
  /** Called with each chunk of output as it arrives. */
  onOutput?: (chunk: string, stream: 'stdout' | 'stderr') => void;
  /** Aborting sends SIGTERM to the command's process group (the command and what it started). */
  signal?: AbortSignal;
  /** Working directory (default: the agent's). */
  cwd?: string;
  /** Told of the command's pid as soon as it exists, and when it ended. */
  ledger?: ProcessLedger;
}

export interface RemoveProgress {
  total?(entries: number): void;
  removed(entries: number): void;
}

export interface CommandResult {
  /** null when the command ended by a signal. */
  exitCode: number | null;
  signal?: string;
}

export interface DeviceHandle {
  write(data: Uint8Array, position: number): Promise<number>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

export interface AgentOs {
  /** Entry names of a directory (not "." or ".."). */
  readdir(dir: string): Promise<string[]>;
  /** The entry itself (a symlink is reported as one). */
  lstat(p: string): Promise<EntryStat>;
  /** What the entry finally points at (symlinks followed). */
  stat(p: string): Promise<EntryStat>;
  /** The canonical absolute path, symlinks resolved. */
  realpath(p: string): Promise<string>;
  statfs(p: string): Promise<FsStats>;
  /** The size in bytes of a block device. */
  blockDeviceSize(device: string): Promise<bigint>;
  /** This machine's mounts (mountinfo): target -> source, read afresh on each call. */
  mountTable(): Promise<Map<string, string>>;
  /** Counts everything under dir (not dir itself), without following symlinks. */
  countContents(dir: string, signal?: AbortSignal): Promise<number>;
  /**
   * Removes everything under dir, never dir itself, never following symlinks and never
   * crossing into another filesystem mounted below dir (that fails). `progress.total` gets
   * the number of entries first; `progress.removed` the number removed since its last call.
   * Returns the total removed.
   */
  removeContents(dir: string, progress: RemoveProgress, signal?: AbortSignal, ledger?: ProcessLedger): Promise<number>;
  /**
   * Runs argv[0] with the arguments (no shell), in a process group of its own whose pid is
   * the command's. Rejects only when it cannot be started.
   */
  run(argv: string[], opts?: RunOptions): Promise<CommandResult>;
  /** The live processes of process group pgid (zombies are not live). */
  processGroup(pgid: number): Promise<SpawnedProcess[]>;
  /** Signals every process of group pgid; false when the group has none left. */
  signalGroup(pgid: number, signal: NodeJS.Signals): boolean;
  /** The id of this boot of the machine ('' when unknown). */
  bootId(): string;
  /** A small state file of the agent's; undefined when it does not exist. */
  readStateFile(p: string): Promise<string | undefined>;
  /** Replaces a state file whole, synchronously (a crash leaves the old or the new one). */
  writeStateFile(p: string, text: string): void;
  /** Opens a device (or file) for writing in place. */
  openForWrite(p: string): Promise<DeviceHandle>;
  /** Reads `length` bytes at `offset` (fewer at the end). */
  readRange(p: string, offset: number, length: number): Promise<Uint8Array>;
  /**
   * Calls onChange (soon, possibly coalesced) when entries of dir appear, vanish or are
   * renamed (inotify on Linux). Returns a function that stops watching. Best effort: when
   * the directory cannot be watched it returns a no-op stop and the caller keeps polling.
   */
  watch(dir: string, onChange: () => void): () => void;
}

function kindOf(st: { isDirectory(): boolean; isFile(): boolean; isSymbolicLink(): boolean; isBlockDevice(): boolean; isCharacterDevice(): boolean }): EntryKind {
  if (st.isSymbolicLink()) return 'symlink';
  if (st.isDirectory()) return 'directory';
  if (st.isFile()) return 'file';
  if (st.isBlockDevice()) return 'block';
  if (st.isCharacterDevice()) return 'char';
  return 'other';
}

function toEntryStat(st: import('node:fs').BigIntStats): EntryStat {
  const kind = kindOf(st);
  return { kind, dev: st.dev.toString(), ino: st.ino.toString(), rdev: st.rdev.toString(), size: kind === 'file' ? st.size : 0n };
}

/** Linux dev_t -> major:minor (glibc's gnu_dev_major/minor). */
export function majorMinor(rdev: bigint): string {
  const major = ((rdev >> 8n) & 0xfffn) | ((rdev >> 32n) & ~0xfffn);
  const minor = (rdev & 0xffn) | ((rdev >> 12n) & ~0xffn);
  return `${major}:${minor}`;
}


/** Bytes of arguments per `rm` invocation (well under ARG_MAX). */
const RM_ARG_BYTES = 256 * 1024;
/** How long one `rm` batch should take: progress moves at least this often. */
const RM_BATCH_SECONDS = 0.4;

/**
 * Every directory under (and including) root -> the number of entries below it. Iterative,
 * so depth is no limit; yields to the event loop every few directories (a huge tree must
 * not stall the agent's reporting, and a cancel must get through).
 */
async function countTree(root: string, signal?: AbortSignal): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  const stack: { dir: string; subdirs: string[]; i: number; n: number }[] = [];
  const open = (dir: string) => {
    const entries = readdirSync(dir, { withFileTypes: true });
    stack.push({ dir, subdirs: entries.filter((e) => e.isDirectory()).map((e) => `${dir}/${e.name}`), i: 0, n: entries.length });
  };
  open(root);
  let opened = 0;
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    if (top.i < top.subdirs.length) {
      open(top.subdirs[top.i++]);
      if (++opened % 64 === 0) {
        await yieldToLoop();
        if (signal?.aborted) throw abortError();
      }
      continue;
    }
    stack.pop();
    counts.set(top.dir, top.n);
    if (stack.length > 0) stack[stack.length - 1].n += top.n;
  }
  return counts;
}

/**
 * Removes a tree's contents at `rm -rf` speed with progress: one count pass, then `rm -rf
 * --one-file-system` over batches of entries (run inside their directory, names relative),
 * each batch sized from the rate measured so far to take well under a second. A directory
 * bigger than a batch is emptied the same way, then removed. Never removes `dir` itself.
 */
async function removeUnder(dir: string, progress: RemoveProgress, signal?: AbortSignal, ledger?: ProcessLedger): Promise<number> {
  const counts = await countTree(dir, signal);
  const total = counts.get(dir) ?? 0;
  progress.total?.(total);
  let removed = 0;
  let target = 2000;

  const flush = async (cwd: string, names: string[], entries: number) => {
    if (names.length === 0) return;
    if (signal?.aborted) throw abortError();
    const t0 = performance.now();
    let out = '';
    const r = await realAgentOs.run(['rm', '-rf', '--one-file-system', '--', ...names.map((n) => `./${n}`)], {
      cwd,
      signal,
      ledger,
      onOutput: (c) => {
        if (out.length < 8192) out += c;
      },
    });
    if (r.exitCode !== 0) {
      throw Object.assign(new Error(`rm -rf in ${cwd} exited with ${r.exitCode ?? r.signal}: ${out.trim().split('\n').slice(-3).join(' | ')}`), { code: 'ERM' });
    }
    removed += entries;
    progress.removed(entries);
    const seconds = (performance.now() - t0) / 1000;
    const rate = entries / Math.max(seconds, 0.001);
    target = Math.max(200, Math.min(1_000_000, Math.round(rate * RM_BATCH_SECONDS)));
  };

  const clear = async (d: string, depth: number): Promise<void> => {
    let names: string[] = [];
    let entries = 0;
    let bytes = 0;
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = `${d}/${e.name}`;
      const n = 1 + (e.isDirectory() ? (counts.get(p) ?? 0) : 0);
      // Deep below, rm takes the whole subtree: recursion here stays shallow.
      if (e.isDirectory() && n > target * 2 && depth < 32) {
        await clear(p, depth + 1);
        rmdirSync(p);
        removed++;
        progress.removed(1);
        continue;
      }
      names.push(e.name);
      entries += n;
      bytes += e.name.length + 3;
      if (entries >= target || bytes >= RM_ARG_BYTES) {
        await flush(d, names, entries);
        names = [];
        entries = 0;
        bytes = 0;
      }
    }
    await flush(d, names, entries);
  };

  await clear(dir, 0);
  return removed;
}

async function countUnder(dir: string, signal?: AbortSignal): Promise<number> {
  let count = 0;
  const dirs = [dir];
  while (dirs.length > 0) {
    if (signal?.aborted) throw abortError();
    const d = dirs.pop()!;
    const entries = await fs.readdir(d, { withFileTypes: true });
    count += entries.length;
    for (const e of entries) if (e.isDirectory()) dirs.push(path.join(d, e.name));
  }
  return count;
}

export const realAgentOs: AgentOs = {
  async readdir(dir) {
    return fs.readdir(dir);
  },

  async lstat(p) {
    return toEntryStat(await fs.lstat(p, { bigint: true }));
  },

  async stat(p) {
    return toEntryStat(await fs.stat(p, { bigint: true }));
  },

  async realpath(p) {
    return fs.realpath(p);
  },

  async statfs(p) {
    const s = await fs.statfs(p, { bigint: true });
    return { totalBytes: s.blocks * s.bsize, availableBytes: s.bavail * s.bsize };
  },

  async blockDeviceSize(device) {
    const st = await fs.stat(device, { bigint: true });
    if (!st.isBlockDevice()) throw Object.assign(new Error(`${device} is not a block device`), { code: 'ENOTBLK' });
    // sysfs gives the size in 512-byte sectors without opening the device.
    try {
      const sectors = (await fs.readFile(`/sys/dev/block/${majorMinor(st.rdev)}/size`, 'utf8')).trim();
      if (/^[0-9]+$/.test(sectors)) return BigInt(sectors) * 512n;
    } catch {
      // No sysfs (a container without it): ask the device itself below.
    }
    let out = '';
    const r = await realAgentOs.run(['blockdev', '--getsize64', device], { onOutput: (c, s) => (s === 'stdout' ? (out += c) : undefined) });
    if (r.exitCode !== 0 || !/^[0-9]+\s*$/.test(out)) throw new Error(`blockdev --getsize64 ${device} failed (exit ${r.exitCode})`);
    return BigInt(out.trim());
  },

  async mountTable() {
    return parseMountInfo(await fs.readFile('/proc/self/mountinfo', 'utf8'));
  },

  async countContents(dir, signal) {
    return countUnder(dir, signal);
  },

  async removeContents(dir, progress, signal, ledger) {
    const root = await fs.lstat(dir, { bigint: true });
    if (!root.isDirectory()) throw Object.assign(new Error(`${dir} is not a directory`), { code: 'ENOTDIR' });
    // Nothing is removed when another filesystem is mounted inside: its contents are not this volume's.
    const real = await fs.realpath(dir);
    const nested = [...(await realAgentOs.mountTable()).keys()].find((t) => t.startsWith(`${real}/`));
    if (nested) throw Object.assign(new Error(`${nested} is another filesystem mounted inside the volume: not removing anything`), { code: 'EXDEV' });
    return removeUnder(dir, progress, signal, ledger);
  },

  run(argv, opts = {}) {
    return spawnCommand(argv, opts);
  },

  processGroup,
  signalGroup,
  bootId,
  readStateFile,
  writeStateFile,

  async openForWrite(p) {
    const h = await fs.open(p, constants.O_WRONLY);
    return {
      write: async (data, position) => (await h.write(data, 0, data.length, position)).bytesWritten,
      sync: () => h.sync(),
      close: () => h.close(),
    };
  },

  async readRange(p, offset, length) {
    const h = await fs.open(p, constants.O_RDONLY);
    try {
      const buf = Buffer.alloc(length);
      const { bytesRead } = await h.read(buf, 0, length, offset);
      return buf.subarray(0, bytesRead);
    } finally {
      await h.close();
    }
  },

  watch(dir, onChange) {
    try {
      const w = fsWatch(dir, { persistent: false }, () => onChange());
      w.on('error', () => w.close());
      return () => w.close();
    } catch {
      return () => {};
    }
  },
};

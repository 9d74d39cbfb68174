// A strict in-memory AgentOs for unit tests and benchmarks: a tree of directories, files,
// symlinks and block devices; mounts; devices with contents; and commands that exist only
// when a test registers them. Strict where Linux is strict: a missing path is ENOENT, a
// symlink loop is ELOOP, a mount point cannot be removed (EBUSY), removal never crosses into
// another mounted filesystem, an unknown command cannot be started.
import type { FsStats } from '../domain/filesystem';
import type { AgentOs, CommandResult, DeviceHandle, EntryStat, RemoveProgress, RunOptions, SpawnedProcess } from './os';
import { FakeProcesses } from './os-fake-processes';

type FakeNode =
  | { kind: 'directory'; ino: number; unreadable?: boolean }
  | { kind: 'file'; ino: number; size: bigint }
  | { kind: 'symlink'; ino: number; target: string }
  | { kind: 'block'; ino: number; rdev: string };

export interface FakeDevice {
  size: bigint;
  /** Bytes written so far are kept sparse: offset -> byte; everything else reads as `fill`. */
  fill: number;
  written: Map<number, number>;
}

export type FakeCommand = (argv: string[], env: Record<string, string>, out: (line: string, stream?: 'stdout' | 'stderr') => void, signal?: AbortSignal) => Promise<number> | number;

function osError(code: string, message: string): Error {
  return Object.assign(new Error(`${code}: ${message}`), { code });
}

const parentOf = (p: string) => (p.lastIndexOf('/') <= 0 ? '/' : p.slice(0, p.lastIndexOf('/')));
const baseOf = (p: string) => p.slice(p.lastIndexOf('/') + 1);
const under = (p: string, root: string) => p === root || p.startsWith(root === '/' ? '/' : `${root}/`);

function normalise(p: string): string {
  if (!p.startsWith('/')) throw osError('EINVAL', `fake paths are absolute: ${p}`);
  const out: string[] = [];
  for (const part of p.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return `/${out.join('/')}`;
}

export class FakeAgentOs implements AgentOs {
  readonly nodes = new Map<string, FakeNode>([['/', { kind: 'directory', ino: 1 }]]);
  /** mount point -> the filesystem mounted there. */
  readonly mounts = new Map<string, { dev: string; totalBytes: bigint; availableBytes: bigint }>();
  /** rdev -> device contents. */
  readonly devices = new Map<string, FakeDevice>();
  readonly commands = new Map<string, FakeCommand>();
  /** mount point -> the device path it was mounted from. */
  private readonly sources = new Map<string, string>();
  /** Every command run, in order (argv and the env it was given). */
  readonly ran: { argv: string[]; env: Record<string, string> }[] = [];
  private readonly watchers = new Map<string, Set<() => void>>();
  /** Processes, signals and state files (os-fake-processes.ts). */
  readonly procs = new FakeProcesses();
  private nextIno = 2;
  private nextDev = 1;

  constructor() {
    this.mounts.set('/', { dev: 'fs-root', totalBytes: 1n << 40n, availableBytes: 1n << 39n });
  }

  // ---- building the tree -------------------------------------------------------------

  mkdir(p: string, opts: { unreadable?: boolean } = {}): this {
    const n = normalise(p);
    if (n !== '/' && !this.nodes.has(parentOf(n))) this.mkdir(parentOf(n));
    const existing = this.nodes.get(n);
    if (existing && existing.kind !== 'directory') throw osError('EEXIST', `${n} exists`);
    if (!existing) {
      this.nodes.set(n, { kind: 'directory', ino: this.nextIno++, ...(opts.unreadable ? { unreadable: true } : {}) });
      this.changed(n);
    }
    return this;
  }

  writeFile(p: string, size = 0n): this {
    const n = normalise(p);
    this.needDir(parentOf(n));
    this.nodes.set(n, { kind: 'file', ino: this.nextIno++, size });
    this.changed(n);
    return this;
  }

  symlink(p: string, target: string): this {
    const n = normalise(p);
    this.needDir(parentOf(n));
    this.nodes.set(n, { kind: 'symlink', ino: this.nextIno++, target });
    this.changed(n);
    return this;
  }

  /** A block device node at p (e.g. /dev/loop0) with its own contents; returns its rdev. */
  blockDevice(p: string, size: bigint, fill = 0xab): string {
    const n = normalise(p);
    this.needDir(parentOf(n));
    const rdev = `7:${this.nextDev++}`;
    this.nodes.set(n, { kind: 'block', ino: this.nextIno++, rdev });
    this.devices.set(rdev, { size, fill, written: new Map() });
    return rdev;
  }

  /** Mounts a filesystem on an existing directory; `source` a block device path mounts that device. */
  mount(target: string, opts: { totalBytes?: bigint; source?: string } = {}): this {
    const n = normalise(target);
    const node = this.nodes.get(n);
    if (node?.kind !== 'directory') throw osError('ENOENT', `mount point ${n} is not a directory`);
    if (this.mounts.has(n)) throw osError('EBUSY', `${n} is already mounted`);
    let dev = `fs-${this.nextDev++}`;
    let total = opts.totalBytes ?? 10n << 30n;
    if (opts.source) {
      const src = this.nodes.get(this.resolve(opts.source));
      if (src?.kind !== 'block') throw osError('ENOTBLK', `${opts.source} is not a block device`);
      dev = src.rdev;
      total = opts.totalBytes ?? this.devices.get(src.rdev)!.size;
      this.sources.set(n, this.resolve(opts.source));
    }
    this.mounts.set(n, { dev, totalBytes: total, availableBytes: total });
    return this;
  }

  onCommand(name: string, fn: FakeCommand): this {
    this.commands.set(name, fn);
    return this;
  }

  /** Whether every byte of the device reads as zero. */
  deviceIsZero(rdev: string): boolean {
    const d = this.devices.get(rdev);
    if (!d) throw osError('ENXIO', rdev);
    if (d.fill !== 0) {
      // Every byte must have been overwritten with zero.
      if (BigInt(d.written.size) < d.size) return false;
    }
    for (const b of d.written.values()) if (b !== 0) return false;
    return true;
  }

  exists(p: string): boolean {
    return this.nodes.has(normalise(p));
  }

  // ---- AgentOs -----------------------------------------------------------------------

  async readdir(dir: string): Promise<string[]> {
    const d = this.resolve(dir);
    const node = this.nodes.get(d)!;
    if (node.kind !== 'directory') throw osError('ENOTDIR', dir);
    if (node.unreadable) throw osError('EACCES', `${dir}: permission denied`);
    return this.children(d).map(baseOf);
  }

  async lstat(p: string): Promise<EntryStat> {
    const n = this.resolveParent(p);
    const node = this.nodes.get(n);
    if (!node) throw osError('ENOENT', p);
    return this.statOf(n, node);
  }

  async stat(p: string): Promise<EntryStat> {
    const n = this.resolve(p);
    return this.statOf(n, this.nodes.get(n)!);
  }

  async realpath(p: string): Promise<string> {
    return this.resolve(p);
  }

  async statfs(p: string): Promise<FsStats> {
    const n = this.resolve(p);
    const m = this.mounts.get(this.mountOf(n))!;
    return { totalBytes: m.totalBytes, availableBytes: m.availableBytes };
  }

  async blockDeviceSize(device: string): Promise<bigint> {
    const node = this.nodes.get(this.resolve(device));
    if (node?.kind !== 'block') throw osError('ENOTBLK', `${device} is not a block device`);
    return this.devices.get(node.rdev)!.size;
  }

  async mountTable(): Promise<Map<string, string>> {
    const table = new Map<string, string>();
    for (const [target, m] of this.mounts) table.set(target, this.sources.get(target) ?? m.dev);
    return table;
  }

  async countContents(dir: string): Promise<number> {
    const d = this.resolve(dir);
    return [...this.nodes.keys()].filter((p) => p !== d && under(p, d)).length;
  }

  async removeContents(dir: string, progress: RemoveProgress, signal?: AbortSignal): Promise<number> {
    const d = this.resolve(dir);
    if (this.nodes.get(d)?.kind !== 'directory') throw osError('ENOTDIR', dir);
    for (const m of this.mounts.keys()) {
      if (m !== d && under(m, d)) throw Object.assign(osError('EXDEV', `${m} is another filesystem mounted inside the volume`), { code: 'EXDEV' });
    }
    // Deepest first, as a real removal must.
    const victims = [...this.nodes.keys()].filter((p) => p !== d && under(p, d)).sort((a, b) => b.length - a.length);
    progress.total?.(victims.length);
    let removed = 0;
    for (const v of victims) {
      if (signal?.aborted) throw Object.assign(new Error('cancelled'), { name: 'AbortError' });
      this.nodes.delete(v);
      this.changed(v);
      removed++;
      progress.removed(1);
    }
    return removed;
  }

  async run(argv: string[], opts: RunOptions = {}): Promise<CommandResult> {
    if (argv.length === 0) throw new Error('no command');
    const fn = this.commands.get(argv[0]) ?? this.commands.get(baseOf(argv[0]));
    if (!fn) throw new Error(`cannot run ${argv[0]}: spawn ${argv[0]} ENOENT`);
    const env = { ...(opts.env ?? {}) };
    this.ran.push({ argv: [...argv], env });
    const code = await this.procs.asCommand(opts.ledger, argv, async () => fn(argv, env, (line, stream = 'stdout') => opts.onOutput?.(`${line}\n`, stream), opts.signal));
    return { exitCode: code };
  }

  processGroup = (pgid: number): Promise<SpawnedProcess[]> => this.procs.processGroup(pgid);
  signalGroup = (pgid: number, signal: NodeJS.Signals): boolean => this.procs.signalGroup(pgid, signal);
  bootId = (): string => this.procs.bootId();
  readStateFile = (p: string): Promise<string | undefined> => this.procs.readStateFile(p);
  writeStateFile = (p: string, text: string): void => this.procs.writeStateFile(p, text);

  async openForWrite(p: string): Promise<DeviceHandle> {
    const node = this.nodes.get(this.resolve(p));
    if (node?.kind !== 'block') throw osError('EINVAL', `the fake writes to block devices only: ${p}`);
    const dev = this.devices.get(node.rdev)!;
    let open = true;
    return {
      write: async (data, position) => {
        if (!open) throw osError('EBADF', 'closed');
        let n = 0;
        for (let i = 0; i < data.length && BigInt(position + i) < dev.size; i++, n++) dev.written.set(position + i, data[i]);
        if (n === 0 && data.length > 0) throw osError('ENOSPC', 'end of device');
        return n;
      },
      sync: async () => {},
      close: async () => {
        open = false;
      },
    };
  }

  async readRange(p: string, offset: number, length: number): Promise<Uint8Array> {
    const node = this.nodes.get(this.resolve(p));
    if (node?.kind !== 'block') throw osError('EINVAL', `the fake reads block devices only: ${p}`);
    const dev = this.devices.get(node.rdev)!;
    const end = Math.min(Number(dev.size), offset + length);
    const out = new Uint8Array(Math.max(0, end - offset));
    for (let i = 0; i < out.length; i++) out[i] = dev.written.get(offset + i) ?? dev.fill;
    return out;
  }

  /** Removes an entry (and everything under it), as a user's rm -rf would. */
  remove(p: string): this {
    const n = normalise(p);
    for (const k of [...this.nodes.keys()]) if (under(k, n)) this.nodes.delete(k);
    this.changed(n);
    return this;
  }

  watch(dir: string, onChange: () => void): () => void {
    const d = normalise(dir);
    const set = this.watchers.get(d) ?? new Set();
    set.add(onChange);
    this.watchers.set(d, set);
    return () => set.delete(onChange);
  }

  /** Tells the watchers of p's directory (as inotify does for a directory's entries). */
  private changed(p: string): void {
    for (const fn of this.watchers.get(parentOf(p)) ?? []) fn();
  }

  /** Fills a device with a byte, as if a user wrote data to all of it. */
  dirty(rdev: string, byte = 0xab): void {
    const d = this.devices.get(rdev)!;
    d.fill = byte;
    d.written.clear();
  }

  /** Makes a device read as zero throughout (what a finished wipe leaves). */
  zero(rdev: string): void {
    const d = this.devices.get(rdev)!;
    d.fill = 0;
    d.written.clear();
  }

  rdevOf(p: string): string {
    const node = this.nodes.get(this.resolve(p));
    if (node?.kind !== 'block') throw osError('ENOTBLK', p);
    return node.rdev;
  }

  // ---- internals ---------------------------------------------------------------------

  private needDir(p: string): void {
    if (this.nodes.get(p)?.kind !== 'directory') throw osError('ENOENT', `${p} is not a directory`);
  }

  private children(d: string): string[] {
    const prefix = d === '/' ? '/' : `${d}/`;
    const out: string[] = [];
    for (const p of this.nodes.keys()) if (p !== d && p.startsWith(prefix) && !p.slice(prefix.length).includes('/')) out.push(p);
    return out.sort();
  }

  private mountOf(p: string): string {
    let best = '/';
    for (const m of this.mounts.keys()) if (under(p, m) && m.length > best.length) best = m;
    return best;
  }

  private statOf(p: string, node: FakeNode): EntryStat {
    return {
      kind: node.kind,
      dev: this.mounts.get(this.mountOf(p))!.dev,
      ino: String(node.ino),
      rdev: node.kind === 'block' ? node.rdev : '0',
      size: node.kind === 'file' ? node.size : 0n,
    };
  }

  /** The path with every symlink resolved, the final one included; throws ENOENT or ELOOP. */
  private resolve(p: string, depth = 0): string {
    if (depth > 40) throw osError('ELOOP', p);
    const parent = this.resolveParent(p, depth);
    const node = this.nodes.get(parent);
    if (!node) throw osError('ENOENT', p);
    if (node.kind !== 'symlink') return parent;
    const target = node.target.startsWith('/') ? node.target : `${parentOf(parent)}/${node.target}`;
    return this.resolve(target, depth + 1);
  }

  /** The path with symlinks in its directories resolved, the final component kept as is. */
  private resolveParent(p: string, depth = 0): string {
    const n = normalise(p);
    if (n === '/') return '/';
    const dir = parentOf(n);
    const realDir = dir === '/' ? '/' : this.resolve(dir, depth + 1);
    if (this.nodes.get(realDir)?.kind !== 'directory') throw osError('ENOTDIR', dir);
    return realDir === '/' ? `/${baseOf(n)}` : `${realDir}/${baseOf(n)}`;
  }
}

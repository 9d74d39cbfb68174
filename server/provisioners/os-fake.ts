// An in-memory HostOs for unit tests and benchmarks, strict where the real OS is strict
// (a mounted directory cannot be removed, a mounted device cannot be detached, a file needs
// its parent directory), and a wrapper that injects failures into any HostOs.
import type { FsStats } from '../domain/filesystem';
import type { DiskUsage, HostOs, UsageBudget } from './os';

const parentOf = (p: string) => p.slice(0, Math.max(1, p.lastIndexOf('/')));
const under = (p: string, root: string) => p === root || p.startsWith(root.endsWith('/') ? root : `${root}/`);

function osError(code: string, message: string): Error {
  return Object.assign(new Error(`${code}: ${message}`), { code });
}

export interface FakeOsOptions {
  hostname?: string;
  totalBytes?: bigint;
  /** Whether loop devices work (default true). */
  loop?: boolean;
}

export class FakeOs implements HostOs {
  readonly dirs = new Set<string>(['/']);
  readonly files = new Map<string, bigint>();
  /** /dev/loopN -> backing file. */
  readonly loops = new Map<string, string>();
  /** device -> filesystem type. */
  readonly filesystems = new Map<string, string>();
  /** target -> source. */
  readonly mounts = new Map<string, string>();
  /** symlink path -> target (absolute). */
  readonly links = new Map<string, string>();
  /** path -> permission bits set by mkdir(mode), chmod or a new file (0600). */
  readonly modes = new Map<string, number>();
  private nextLoop = 0;
  totalBytes: bigint;

  constructor(private readonly opts: FakeOsOptions = {}) {
    this.totalBytes = opts.totalBytes ?? 1n << 40n;
  }

  hostname(): string {
    return this.opts.hostname ?? 'fake-node';
  }

  async exists(path: string): Promise<boolean> {
    return this.dirs.has(path) || this.files.has(path) || this.loops.has(path);
  }

  async realpath(path: string): Promise<string> {
    let out = path;
    for (let i = 0; i < 40; i++) {
      const link = [...this.links.keys()].find((l) => out === l || out.startsWith(`${l}/`));
      if (!link) return out;
      out = this.links.get(link)! + out.slice(link.length);
    }
    throw osError('ELOOP', `${path}: too many levels of symbolic links`);
  }

  async mkdir(path: string, mode?: number): Promise<void> {
    if (this.files.has(path)) throw osError('EEXIST', `${path} is a file`);
    for (let p = path; !this.dirs.has(p); p = parentOf(p)) this.dirs.add(p);
    if (mode !== undefined) this.modes.set(path, mode);
  }

  async chmod(path: string, mode: number): Promise<void> {
    if (!this.dirs.has(path) && !this.files.has(path)) throw osError('ENOENT', path);
    this.modes.set(path, mode);
  }

  async rm(path: string): Promise<void> {
    for (const t of this.mounts.keys()) {
      if (under(t, path)) throw osError('EBUSY', `${t} is mounted`);
    }
    for (const d of [...this.dirs]) if (under(d, path) && d !== '/') this.dirs.delete(d);
    for (const f of [...this.files.keys()]) if (under(f, path)) this.files.delete(f);
  }

  async rmdir(path: string): Promise<void> {
    if (!this.dirs.has(path)) return;
    if (this.mounts.has(path)) throw osError('EBUSY', `${path} is mounted`);
    const child = [...this.dirs, ...this.files.keys()].some((p) => p !== path && under(p, path));
    if (child) throw osError('ENOTEMPTY', `${path} is not empty`);
    this.dirs.delete(path);
  }

  /** Bytes used: the sum of file sizes (files are not sparse here: conservative). */
  usedBytes(): bigint {
    let used = 0n;
    for (const s of this.files.values()) used += s;
    return used;
  }

  async statfs(path: string): Promise<FsStats> {
    if (!this.dirs.has(path)) throw osError('ENOENT', path);
    const avail = this.totalBytes - this.usedBytes();
    return { totalBytes: this.totalBytes, availableBytes: avail < 0n ? 0n : avail };
  }

  async diskUsage(path: string, budget: UsageBudget): Promise<DiskUsage | undefined> {
    if (!this.dirs.has(path)) return undefined;
    if (this.mounts.has(path)) {
      const s = await this.statfs(path);
      return { bytes: s.totalBytes - s.availableBytes, partial: false };
    }
    let bytes = 0n;
    let seen = 0;
    for (const [f, size] of this.files) {
      if (!under(f, path) || f === path) continue;
      if (++seen > budget.entries) return { bytes, partial: true };
      bytes += size;
    }
    return { bytes, partial: false };
  }

  async truncate(path: string, bytes: bigint): Promise<void> {
    if (!this.dirs.has(parentOf(path))) throw osError('ENOENT', `${parentOf(path)} does not exist`);
    if (this.dirs.has(path)) throw osError('EISDIR', path);
    if (!this.files.has(path)) this.modes.set(path, 0o600);
    this.files.set(path, bytes);
  }

  async sizeOf(path: string): Promise<bigint | undefined> {
    const file = this.loops.get(path) ?? path;
    return this.files.get(file);
  }

  async losetupAttach(file: string): Promise<string> {
    if (!this.files.has(file)) throw osError('ENOENT', `${file}: no such file`);
    const dev = `/dev/loop${this.nextLoop++}`;
    this.loops.set(dev, file);
    return dev;
  }

  async losetupFind(file: string): Promise<string[]> {
    return [...this.loops].filter(([, f]) => f === file).map(([d]) => d);
  }

  async losetupResize(device: string): Promise<void> {
    if (!this.loops.has(device)) throw osError('ENXIO', `${device}: not attached`);
  }

  async growFs(device: string, fsType: string, mountpoint: string): Promise<void> {
    if (this.filesystems.get(this.loops.get(device) ?? device) !== fsType) throw osError('EINVAL', `${device} holds no ${fsType} filesystem`);
    if (!this.dirs.has(mountpoint)) throw osError('ENOENT', mountpoint);
  }

  async losetupDetach(device: string): Promise<void> {
    if ([...this.mounts.values()].includes(device)) throw osError('EBUSY', `${device} is mounted`);
    this.loops.delete(device);
    this.filesystems.delete(device);
  }

  async loopSupport(): Promise<{ ok: boolean; reason?: string }> {
    return this.opts.loop === false ? { ok: false, reason: 'loop devices are off in this fake' } : { ok: true };
  }

  async fsTypeOf(device: string): Promise<string | undefined> {
    const file = this.loops.get(device);
    return file === undefined ? undefined : this.filesystems.get(file);
  }

  async mkfs(device: string, fsType: string): Promise<void> {
    const file = this.loops.get(device);
    if (file === undefined) throw osError('ENXIO', `${device} is not attached`);
    if ((this.files.get(file) ?? 0n) < 1n << 20n) throw osError('EINVAL', `${device} is too small for ${fsType}`);
    this.filesystems.set(file, fsType);
  }

  async mountedAt(target: string): Promise<string | undefined> {
    return this.mounts.get(target);
  }

  async mount(source: string, target: string): Promise<void> {
    if (!this.dirs.has(target)) throw osError('ENOENT', `mount point ${target} does not exist`);
    if (this.mounts.has(target)) throw osError('EBUSY', `${target} is already mounted`);
    const file = this.loops.get(source);
    if (file === undefined || !this.filesystems.has(file)) throw osError('EINVAL', `${source}: wrong fs type or bad superblock`);
    this.mounts.set(target, source);
  }

  async umount(target: string): Promise<void> {
    this.mounts.delete(target);
  }

  async copy(source: string, target: string): Promise<void> {
    if (await this.exists(target)) throw osError('EEXIST', `${target} exists`);
    if (!this.dirs.has(parentOf(target))) throw osError('ENOENT', `${parentOf(target)} does not exist`);
    if (!(await this.exists(source))) throw osError('ENOENT', `${source} does not exist`);
    this.moveOrCopy(source, target, false);
  }

  async rename(source: string, target: string): Promise<void> {
    if (!(await this.exists(source))) throw osError('ENOENT', `${source} does not exist`);
    this.moveOrCopy(source, target, true);
  }

  async sync(): Promise<void> {}

  /** cp -a and rename keep a path's mode. */
  private carryMode(from: string, to: string, move: boolean): void {
    const mode = this.modes.get(from);
    if (mode !== undefined) this.modes.set(to, mode);
    if (move) this.modes.delete(from);
  }

  private moveOrCopy(source: string, target: string, move: boolean): void {
    const to = (p: string) => target + p.slice(source.length);
    for (const d of [...this.dirs]) {
      if (!under(d, source)) continue;
      this.dirs.add(to(d));
      this.carryMode(d, to(d), move);
      if (move) this.dirs.delete(d);
    }
    for (const [f, size] of [...this.files]) {
      if (!under(f, source)) continue;
      this.files.set(to(f), size);
      this.carryMode(f, to(f), move);
      const fsType = this.filesystems.get(f);
      if (fsType !== undefined) this.filesystems.set(to(f), fsType);
      if (move) {
        this.files.delete(f);
        this.filesystems.delete(f);
      }
    }
  }
}

export type OsOperation = Exclude<keyof HostOs, 'hostname'>;

export interface FaultPolicy {
  /** Probability (0..1) that a call fails. */
  rate?: number;
  /** Operations that may fail (default: all but read-only ones). */
  ops?: OsOperation[];
  /** Random numbers in [0, 1) (default Math.random); seed it for repeatable runs. */
  random?: () => number;
}

const mutating: OsOperation[] = ['mkdir', 'chmod', 'rm', 'rmdir', 'truncate', 'losetupAttach', 'losetupDetach', 'losetupResize', 'growFs', 'mkfs', 'mount', 'umount', 'copy', 'rename'];

/**
 * Wraps a HostOs so that calls fail: at random (`policy.rate`), or on purpose
 * (`failNext(op, n)`). Half of the random failures happen AFTER the real call took effect
 * (the operation happened but its caller never learnt it), the case that leaks when code
 * trusts its own bookkeeping more than the system.
 */
export class FaultyOs implements HostOs {
  injected = 0;
  private readonly planned = new Map<OsOperation, { count: number; match?: (args: unknown[]) => boolean }>();

  constructor(
    readonly inner: HostOs,
    public policy: FaultPolicy = {},
  ) {}

  /** The next `count` calls of `op` (whose arguments match) fail before taking effect. */
  failNext(op: OsOperation, count = 1, match?: (args: unknown[]) => boolean): void {
    this.planned.set(op, { count, match });
  }

  private async call<T>(op: OsOperation, args: unknown[], fn: () => Promise<T>): Promise<T> {
    const plan = this.planned.get(op);
    if (plan && plan.count > 0 && (!plan.match || plan.match(args))) {
      plan.count--;
      this.injected++;
      throw new Error(`injected failure: ${op}(${args.map(String).join(', ')})`);
    }
    const random = this.policy.random ?? Math.random;
    const ops = this.policy.ops ?? mutating;
    const fail = (this.policy.rate ?? 0) > 0 && ops.includes(op) && random() < (this.policy.rate ?? 0);
    if (!fail) return fn();
    this.injected++;
    if (random() < 0.5) await fn();
    throw new Error(`injected failure: ${op}(${args.map(String).join(', ')})`);
  }

  hostname = () => this.inner.hostname();
  exists = (p: string) => this.call('exists', [p], () => this.inner.exists(p));
  mkdir = (p: string, mode?: number) => this.call('mkdir', [p], () => this.inner.mkdir(p, mode));
  chmod = (p: string, m: number) => this.call('chmod', [p, m], () => this.inner.chmod(p, m));
  rm = (p: string) => this.call('rm', [p], () => this.inner.rm(p));
  rmdir = (p: string) => this.call('rmdir', [p], () => this.inner.rmdir(p));
  statfs = (p: string) => this.call('statfs', [p], () => this.inner.statfs(p));
  diskUsage = (p: string, b: UsageBudget) => this.call('diskUsage', [p], () => this.inner.diskUsage(p, b));
  realpath = (p: string) => this.call('realpath', [p], () => this.inner.realpath(p));
  truncate = (p: string, b: bigint) => this.call('truncate', [p, b], () => this.inner.truncate(p, b));
  sizeOf = (p: string) => this.call('sizeOf', [p], () => this.inner.sizeOf(p));
  losetupAttach = (f: string) => this.call('losetupAttach', [f], () => this.inner.losetupAttach(f));
  losetupFind = (f: string) => this.call('losetupFind', [f], () => this.inner.losetupFind(f));
  losetupDetach = (d: string) => this.call('losetupDetach', [d], () => this.inner.losetupDetach(d));
  loopSupport = () => this.inner.loopSupport();
  fsTypeOf = (d: string) => this.call('fsTypeOf', [d], () => this.inner.fsTypeOf(d));
  mkfs = (d: string, t: string) => this.call('mkfs', [d, t], () => this.inner.mkfs(d, t));
  losetupResize = (d: string) => this.call('losetupResize', [d], () => this.inner.losetupResize(d));
  growFs = (d: string, t: string, m: string) => this.call('growFs', [d, t, m], () => this.inner.growFs(d, t, m));
  mountedAt = (t: string) => this.call('mountedAt', [t], () => this.inner.mountedAt(t));
  mount = (s: string, t: string, f?: string, o?: string[]) => this.call('mount', [s, t], () => this.inner.mount(s, t, f, o));
  umount = (t: string) => this.call('umount', [t], () => this.inner.umount(t));
  copy = (s: string, t: string) => this.call('copy', [s, t], () => this.inner.copy(s, t));
  rename = (s: string, t: string) => this.call('rename', [s, t], () => this.inner.rename(s, t));
  sync = (p: string, f?: boolean) => this.call('sync', [p], () => this.inner.sync(p, f));
}

// Runs the cleanups the manager asks for, on this node's disks (after the upstream static
// provisioner's pkg/deleter, made asynchronous and parallel as seed 003 asks). Guards, in
// order: the class matches, the path is an entry of the class's discovery directory and
// resolves (realpath) into it, no other cleanup of the same path is running. Filesystem
// volumes have their contents removed, never the directory or the mount point; Block
// volumes get the method (dd-zero, blkdiscard, fs-reset, shred, hdparm, or a custom
// command with the device in LOCAL_PV_BLKDEVICE). Parallelism is bounded per class
// (parallelCleanups) and overall (maxParallel). Progress goes out at least once a second.
import type { CleanupProgress, CleanupRequest, CleanupResult } from '../contracts/agent';
import type { LocalClassConfig } from '../domain/local-volume-config';
import { parseBlockCleanerCommand, type CleanupPlan } from '../domain/cleanup-method';
import type { AgentOs, ProcessLedger } from './os';

export const LOCAL_PV_BLKDEVICE = 'LOCAL_PV_BLKDEVICE';
const TAIL_LINES = 20;
const FS_TYPE_RE = /^[a-z][a-z0-9]{0,15}$/;
const MiB = 1n << 20n;
const DISCARD_MIN_STEP = 64n * MiB;
const maxBig = (a: bigint, b: bigint) => (a > b ? a : b);

export interface CleanupRunnerOptions {
  /** Cleanups at once on this node, all classes together (default 4). */
  maxParallel?: number;
  /** How often progress is reported while a cleanup runs (default 1000 ms). */
  progressIntervalMs?: number;
  /** dd's block size in bytes (default 4 MiB). */
  ddBlockBytes?: number;
  /** Told of every command's process, so that a restarted agent can end what a crash left running. */
  ledger?: ProcessLedger;
}

class Refusal extends Error {}

interface Target {
  /** The path as the agent sees it (mountDir/entry). */
  local: string;
  /** Where it resolves: the directory, or the block device. */
  real: string;
  size: bigint;
}

/** A counter of units done, turned into progress reports with rate and ETA. */
class Meter {
  done = 0n;
  total = 0n;
  private lastDone = 0n;
  private lastAt: number;
  constructor(
    private readonly jobId: string,
    private readonly unit: 'bytes' | 'entries',
    private readonly emit: (p: CleanupProgress) => void,
  ) {
    this.lastAt = performance.now();
  }
  started = false;
  /** Sets the total and sends the first report; reports before it would say nothing. */
  start(total: bigint): void {
    this.total = total;
    this.started = true;
    this.report();
  }
  report(): void {
    if (!this.started) return;
    const now = performance.now();
    const seconds = (now - this.lastAt) / 1000;
    const delta = this.done - this.lastDone;
    const rate = seconds > 0 ? Number(delta) / seconds : 0;
    this.lastDone = this.done;
    this.lastAt = now;
    const left = this.total > this.done ? this.total - this.done : 0n;
    const p: CleanupProgress = { jobId: this.jobId, unit: this.unit, done: this.done.toString(), total: this.total.toString(), rate: Math.round(rate) };
    if (left === 0n && this.total > 0n) p.etaSeconds = 0;
    else if (rate > 0) p.etaSeconds = Math.ceil(Number(left) / rate);
    try {
      this.emit(p);
    } catch {
      // A failing listener must not break the wipe.
    }
  }
}

/** Keeps the last lines of a command's output. */
class Tail {
  private lines: string[] = [];
  private partial = '';
  push(chunk: string): void {
    const parts = (this.partial + chunk).split(/\r\n|\r|\n/);
    this.partial = parts.pop() ?? '';
    for (const l of parts) if (l.trim() !== '') this.lines.push(l);
    if (this.lines.length > TAIL_LINES * 4) this.lines = this.lines.slice(-TAIL_LINES);
  }
  get(): string[] {
    const all = this.partial.trim() ? [...this.lines, this.partial] : this.lines;
    return all.slice(-TAIL_LINES);
  }
}

class CommandFailed extends Error {
  constructor(
    message: string,
    readonly exitCode: number | undefined,
  ) {
    super(message);
  }
}

export class CleanupRunner {
  /** hostPath -> jobId of every accepted, unfinished cleanup (queued or running). */
  private readonly active = new Map<string, string>();
  private readonly perClass = new Map<string, number>();
  private runningTotal = 0;
  private readonly waiters: (() => void)[] = [];
  private readonly maxParallel: number;
  private readonly interval: number;
  private readonly ddBlock: number;
  private readonly ledger: ProcessLedger | undefined;

  constructor(
    private readonly os: AgentOs,
    opts: CleanupRunnerOptions = {},
  ) {
    this.maxParallel = Math.max(1, opts.maxParallel ?? 4);
    this.interval = Math.max(10, opts.progressIntervalMs ?? 1000);
    this.ddBlock = opts.ddBlockBytes ?? 4 << 20;
    this.ledger = opts.ledger;
  }

  /** Host paths of the cleanups accepted and not finished: pass them to discoverAll's `cleaning`. */
  activePaths(): Set<string> {
    return new Set(this.active.keys());
  }

  /** Job ids of the cleanups accepted and not finished (waiting for a slot or running). */
  running(): string[] {
    return [...this.active.values()];
  }

  async run(req: CleanupRequest, cls: LocalClassConfig, onProgress: (p: CleanupProgress) => void, signal?: AbortSignal): Promise<CleanupResult> {
    const started = performance.now();
    const result = (r: Omit<CleanupResult, 'jobId' | 'durationMs'>): CleanupResult => ({ jobId: req.jobId, durationMs: Math.round(performance.now() - started), ...r });
    const holder = this.active.get(req.hostPath);
    if (holder !== undefined) {
      return result({ ok: false, busy: true, error: `a cleanup of ${req.hostPath} is already running (job ${holder}); two cleanups of one disk never run at once` });
    }
    // Reserved before the first await: a second request for this path is refused from here on.
    this.active.set(req.hostPath, req.jobId);
    const tail = new Tail();
    let slot = false;
    try {
      if (req.className !== cls.className) throw new Refusal(`the request is for class ${req.className}, the configuration given is ${cls.className}`);
      const plan = this.planFor(req, cls);
      const target = await this.resolveTarget(req, cls);
      await this.acquire(cls, signal);
      slot = true;
      const meter = new Meter(req.jobId, plan.method === 'files' ? 'entries' : 'bytes', onProgress);
      const ticker = setInterval(() => meter.report(), this.interval);
      try {
        await this.execute(plan, req, cls, target, meter, tail, signal);
        if (!meter.started) meter.start(0n);
        meter.done = meter.total;
        meter.report();
      } finally {
        clearInterval(ticker);
      }
      return result({ ok: true });
    } catch (e) {
      if (e instanceof Refusal) return result({ ok: false, refused: true, error: e.message });
      if (signal?.aborted) return result({ ok: false, cancelled: true, error: 'cancelled', outputTail: tail.get() });
      const exitCode = e instanceof CommandFailed ? e.exitCode : undefined;
      return result({ ok: false, ...(exitCode !== undefined ? { exitCode } : {}), error: (e as Error).message, outputTail: tail.get() });
    } finally {
      if (slot) this.release(cls);
      this.active.delete(req.hostPath);
    }
  }

  // ---- guards ------------------------------------------------------------------------

  private planFor(req: CleanupRequest, cls: LocalClassConfig): CleanupPlan {
    if (req.volumeMode === 'Filesystem') {
      if (req.method !== 'files') throw new Refusal(`a Filesystem volume is cleaned by removing its files, not by ${req.method}`);
      return { method: 'files' };
    }
    if (req.method === 'files') throw new Refusal('a Block volume needs a block cleanup method, not "files"');
    const configured = parseBlockCleanerCommand(cls.blockCleanerCommand);
    if (req.method === 'custom') {
      const command = req.command ?? (configured.ok && configured.plan.method === 'custom' ? configured.plan.command : undefined);
      if (!command) throw new Refusal('a custom cleanup needs a command');
      const parsed = parseBlockCleanerCommand(command);
      if (!parsed.ok || parsed.plan.method !== 'custom') throw new Refusal(`not a custom command: ${parsed.ok ? command[0] : parsed.message}`);
      return parsed.plan;
    }
    const passes = configured.ok && configured.plan.method === req.method ? configured.plan.passes : undefined;
    return { method: req.method, ...(passes ? { passes } : {}) };
  }

  /** The entry's path under mountDir and where it resolves; refuses anything outside the discovery directory. */
  private async resolveTarget(req: CleanupRequest, cls: LocalClassConfig): Promise<Target> {
    const prefix = `${cls.hostDir}/`;
    if (!req.hostPath.startsWith(prefix)) throw new Refusal(`${req.hostPath} is not inside the discovery directory ${cls.hostDir} of class ${cls.className}`);
    const name = req.hostPath.slice(prefix.length);
    if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('\0')) {
      throw new Refusal(`${req.hostPath} is not an entry of the discovery directory ${cls.hostDir}`);
    }
    const local = `${cls.mountDir}/${name}`;
    let root: string;
    try {
      root = await this.os.realpath(cls.mountDir);
      await this.os.lstat(local);
    } catch (e) {
      throw new Refusal(`${req.hostPath} cannot be found (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
    let real: string;
    let kind: string;
    try {
      real = await this.os.realpath(local);
      kind = (await this.os.stat(local)).kind;
    } catch (e) {
      throw new Refusal(`${req.hostPath} does not resolve (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
    if (req.volumeMode === 'Filesystem') {
      if (kind !== 'directory') throw new Refusal(`${req.hostPath} is not a directory`);
      if (!real.startsWith(root === '/' ? '/' : `${root}/`)) throw new Refusal(`${req.hostPath} resolves to ${real}, outside the discovery directory`);
      return { local, real, size: 0n };
    }
    if (kind !== 'block') throw new Refusal(`${req.hostPath} is not a block device`);
    const mounted = [...(await this.os.mountTable())].find(([, source]) => source === real);
    if (mounted) throw new Refusal(`${real} is mounted at ${mounted[0]}: not wiping a mounted device`);
    return { local, real, size: await this.os.blockDeviceSize(real) };
  }

  // ---- slots -------------------------------------------------------------------------

  private async acquire(cls: LocalClassConfig, signal?: AbortSignal): Promise<void> {
    const limit = Math.max(1, cls.parallelCleanups);
    for (;;) {
      if (signal?.aborted) throw new Error('cancelled');
      if (this.runningTotal < this.maxParallel && (this.perClass.get(cls.className) ?? 0) < limit) {
        this.runningTotal++;
        this.perClass.set(cls.className, (this.perClass.get(cls.className) ?? 0) + 1);
        return;
      }
      await new Promise<void>((resolve) => {
        const wake = () => {
          signal?.removeEventListener('abort', wake);
          resolve();
        };
        this.waiters.push(wake);
        signal?.addEventListener('abort', wake, { once: true });
      });
    }
  }

  private release(cls: LocalClassConfig): void {
    this.runningTotal--;
    this.perClass.set(cls.className, (this.perClass.get(cls.className) ?? 1) - 1);
    // Everyone waiting re-checks; those still over a limit wait again.
    for (const w of this.waiters.splice(0)) w();
  }

  // ---- methods -----------------------------------------------------------------------

  private async execute(plan: CleanupPlan, req: CleanupRequest, cls: LocalClassConfig, t: Target, meter: Meter, tail: Tail, signal?: AbortSignal): Promise<void> {
    const dev = t.real;
    const passes = plan.passes ?? 1;
    switch (plan.method) {
      case 'files': {
        await this.os.removeContents(t.real, { total: (n) => meter.start(BigInt(n)), removed: (n) => (meter.done += BigInt(n)) }, signal, this.ledger);
        return;
      }
      case 'dd-zero': {
        meter.start(t.size * BigInt(passes));
        for (let pass = 0; pass < passes; pass++) {
          const base = t.size * BigInt(pass);
          const argv = ['dd', 'if=/dev/zero', `of=${dev}`, `bs=${this.ddBlock}`, `count=${t.size}`, 'iflag=count_bytes', 'oflag=direct', 'conv=fsync', 'status=progress'];
          await this.command(argv, tail, signal, {}, (line) => {
            const m = /^(\d+) bytes/.exec(line);
            if (m) meter.done = base + BigInt(m[1]);
          });
        }
        return;
      }
      case 'blkdiscard': {
        // In steps (a hundredth of the device, at least 64 MiB), so progress moves.
        meter.start(t.size);
        const step = maxBig(DISCARD_MIN_STEP, ((t.size / 100n + MiB - 1n) / MiB) * MiB);
        for (let off = 0n; off < t.size; off += step) {
          const len = t.size - off < step ? t.size - off : step;
          await this.command(['blkdiscard', '-f', '-o', String(off), '-l', String(len), dev], tail, signal);
          meter.done = off + len;
        }
        return;
      }
      case 'fs-reset': {
        // Seed 003: a quick, non-secure reset: make a fresh filesystem over whatever was
        // there, then remove its signature, so nothing old is recognisable and the next
        // user starts from an unformatted device.
        const fsType = req.fsType ?? cls.fsType;
        if (!FS_TYPE_RE.test(fsType)) throw new Refusal(`invalid fsType "${fsType}"`);
        meter.start(t.size);
        const third = t.size / 3n;
        await this.command(['wipefs', '-a', '-f', dev], tail, signal);
        meter.done = third;
        await this.command([`mkfs.${fsType}`, ...mkfsArgs(fsType), dev], tail, signal);
        meter.done = third * 2n;
        await this.command(['wipefs', '-a', '-f', dev], tail, signal);
        return;
      }
      case 'shred': {
        // N random passes, then a final zero pass (-z): the device reads back as zero.
        const total = passes + 1;
        meter.start(t.size * BigInt(total));
        await this.command(['shred', '-v', '-n', String(passes), '-z', dev], tail, signal, {}, (line) => {
          const m = /pass (\d+)\/(\d+).*?(\d+)%\s*$/.exec(line);
          if (!m) return;
          const done = (Number(m[1]) - 1 + Number(m[3]) / 100) / Number(m[2]);
          meter.done = (meter.total * BigInt(Math.round(done * 10000))) / 10000n;
        });
        return;
      }
      case 'hdparm': {
        meter.start(t.size);
        let info = '';
        await this.command(['hdparm', '-I', dev], tail, signal, {}, (line) => (info += `${line}\n`));
        const unsupported = hdparmUnsupported(info);
        if (unsupported) throw new CommandFailed(`ATA secure erase is not available on ${dev}: ${unsupported}`, undefined);
        await this.command(['hdparm', '--user-master', 'u', '--security-set-pass', 'stowage', dev], tail, signal);
        await this.command(['hdparm', '--user-master', 'u', '--security-erase', 'stowage', dev], tail, signal);
        return;
      }
      case 'custom': {
        meter.start(t.size);
        // As upstream, the entry's path in the discovery directory as the agent sees it
        // (mountDir/name, usually a symlink), checked above to resolve to this unmounted device.
        await this.command(plan.command!, tail, signal, { [LOCAL_PV_BLKDEVICE]: t.local });
        return;
      }
    }
  }

  /** Runs a command; output goes to the tail (and, line by line, to onLine); a non-zero exit throws. */
  private async command(argv: string[], tail: Tail, signal: AbortSignal | undefined, env: Record<string, string> = {}, onLine?: (line: string) => void): Promise<void> {
    let partial = '';
    const r = await this.os.run(argv, {
      env,
      signal,
      ledger: this.ledger,
      onOutput: (chunk) => {
        tail.push(chunk);
        if (!onLine) return;
        const parts = (partial + chunk).split(/\r\n|\r|\n/);
        partial = parts.pop() ?? '';
        for (const l of parts) onLine(l);
      },
    });
    if (partial && onLine) onLine(partial);
    if (r.exitCode !== 0) {
      const how = r.exitCode === null ? `was killed by ${r.signal ?? 'a signal'}` : `exited with ${r.exitCode}`;
      throw new CommandFailed(`${argv[0]} ${how}`, r.exitCode ?? undefined);
    }
  }
}

function mkfsArgs(fsType: string): string[] {
  if (fsType.startsWith('ext')) return ['-F', '-q'];
  if (fsType === 'xfs' || fsType === 'btrfs') return ['-f', '-q'];
  return [];
}

/** Why `hdparm -I` output rules out a security erase; undefined when it is possible. */
export function hdparmUnsupported(info: string): string | undefined {
  const sec = info.indexOf('Security:');
  if (sec < 0) return 'the device reports no ATA Security feature set (not an ATA disk, or hdparm cannot query it)';
  const section = info.slice(sec, sec + 600);
  if (/^\s*not\s+supported/m.test(section) || !/^\s*supported\s*$/m.test(section)) return 'the ATA Security feature set is not supported';
  if (!/not\s+frozen/.test(section)) return 'the device is security-frozen (suspend and resume the machine, or hot-plug the disk, then retry)';
  if (/^\s*enabled\s*$/m.test(section)) return 'a security password is already set on the device';
  return undefined;
}

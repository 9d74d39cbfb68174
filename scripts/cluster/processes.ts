// Supervised child processes for the demo cluster and the chaos run: each is restarted
// after it dies (as systemd's Restart=always would), until it is stopped on purpose.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';

export interface SupervisedOptions {
  name: string;
  command: string;
  args: string[];
  env?: Record<string, string | undefined>;
  cwd?: string;
  logFile: string;
  /** Wait before a restart (ms). */
  restartDelayMs?: number;
  /** Restart after the process ended (default true). */
  restart?: boolean;
}

export class Supervised {
  private child: ChildProcess | undefined;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly log: WriteStream;
  /** How many times it was started (1 = never restarted). */
  starts = 0;

  constructor(readonly o: SupervisedOptions) {
    this.log = createWriteStream(o.logFile, { flags: 'a' });
  }

  get name(): string {
    return this.o.name;
  }

  get pid(): number | undefined {
    return this.child?.exitCode === null && this.child.signalCode === null ? this.child.pid : undefined;
  }

  start(): void {
    if (this.stopped) return;
    this.starts++;
    this.log.write(`--- ${new Date().toISOString()} start #${this.starts}: ${this.o.command} ${this.o.args.join(' ')}\n`);
    const child = spawn(this.o.command, this.o.args, { cwd: this.o.cwd, env: { ...process.env, ...this.o.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    child.stdout?.pipe(this.log, { end: false });
    child.stderr?.pipe(this.log, { end: false });
    child.on('exit', (code, signal) => {
      this.log.write(`--- ${new Date().toISOString()} exited (${signal ?? code})\n`);
      if (this.child !== child || this.stopped || this.o.restart === false) return;
      this.timer = setTimeout(() => this.start(), this.o.restartDelayMs ?? 1000);
    });
    child.on('error', (e) => this.log.write(`--- spawn failed: ${e.message}\n`));
  }

  signal(sig: NodeJS.Signals): boolean {
    const pid = this.pid;
    if (!pid) return false;
    try {
      process.kill(pid, sig);
      return true;
    } catch {
      return false;
    }
  }

  /** Stops it for good: SIGTERM, then SIGKILL after `graceMs`. */
  /** Starts it again after stop() (and restarts it again whenever it dies). */
  resume(): void {
    this.stopped = false;
    if (!this.pid) this.start();
  }

  async stop(graceMs = 10_000): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      try {
        process.kill(child.pid!, 'SIGCONT');
        process.kill(child.pid!, 'SIGTERM');
      } catch {
        // gone already
      }
      const kill = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(kill);
    }
    this.log.end();
  }
}

/** Runs a command to completion; rejects with its output when it fails. */
export function run(command: string, args: string[], opts: { env?: Record<string, string | undefined>; cwd?: string; allowFail?: boolean; timeoutMs?: number } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = opts.timeoutMs ? setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs) : undefined;
    child.on('error', (e) => {
      clearTimeout(timer);
      if (opts.allowFail) resolve(out);
      else reject(new Error(`${command}: ${e.message}`));
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0 || opts.allowFail) resolve(out);
      else reject(new Error(`${command} ${args.join(' ')} failed (${signal ?? code}): ${out.trim().split('\n').slice(-5).join(' | ')}`));
    });
  });
}

/** Polls `check` until it returns a value, or throws after `timeoutMs` naming `what`. */
export async function waitUntil<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 60_000, everyMs = 250): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined && v !== false) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}${last ? ` (${(last as Error).message})` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

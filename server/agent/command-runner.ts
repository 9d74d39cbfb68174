// Runs short commands (btrfs, mount) for the agent through one small helper process
// instead of forking the agent itself for each. Node forks the whole calling process to
// start a child, synchronously, on its event loop: in a process of a few hundred MB (the
// agent inside `stowage start`, beside the API and the controllers) that took 20-60 ms per
// command on our busy 2-core machines, during which nothing else in the process ran. The
// helper is a bare Node process (no modules of ours, tens of MB) that forks cheaply; it
// takes one JSON line per command (file + argv, run with execFile: never a shell) and
// answers one JSON line with the exit code, stdout and stderr, so commands keep the
// semantics of execFile, including the error's `stderr` that callers quote.
//
// The helper is started on first use and again after it dies (a call in flight then fails
// and, like any failed command, is retried by its caller: every agent step is idempotent).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface CommandResult {
  stdout: string;
  stderr: string;
}

/** An execFile failure as node:child_process makes it: message, code, stdout, stderr. */
export class CommandError extends Error {
  constructor(
    message: string,
    readonly code: number | string | null,
    readonly stdout: string,
    readonly stderr: string,
  ) {
    super(message);
    this.name = 'CommandError';
  }
}

/** A failed command in a few words: the last lines of its stderr (else the error's message). */
export function commandErrorText(e: unknown): string {
  const err = e as { stderr?: string; message?: string };
  return (err.stderr || err.message || String(e)).trim().split('\n').slice(-3).join(' ');
}

export interface RunOptions {
  timeoutMs?: number;
  maxBuffer?: number;
}

/** The helper's whole program: read a request line, execFile it, write the answer line. */
const HELPER = `
const { execFile } = require('node:child_process');
const rl = require('node:readline').createInterface({ input: process.stdin });
rl.on('line', (line) => {
  let r;
  try { r = JSON.parse(line); } catch { return; }
  execFile(r.file, r.args, { timeout: r.timeoutMs, maxBuffer: r.maxBuffer, encoding: 'utf8' }, (err, stdout, stderr) => {
    const code = err ? (typeof err.code === 'number' || typeof err.code === 'string' ? err.code : (err.signal ?? 1)) : 0;
    process.stdout.write(JSON.stringify({ id: r.id, code, message: err ? String(err.message) : '', stdout: String(stdout ?? ''), stderr: String(stderr ?? '') }) + '\\n');
  });
});
process.stdin.on('end', () => process.exit(0));
`;

interface Pending {
  resolve(r: CommandResult): void;
  reject(e: Error): void;
  /** The helper the call was sent to. */
  child: ChildProcessWithoutNullStreams;
}

export class CommandRunner {
  private child: ChildProcessWithoutNullStreams | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  /** Runs `file args` (no shell); rejects like execFile when it fails or exits non-zero. */
  run(file: string, args: string[], o: RunOptions = {}): Promise<CommandResult> {
    const child = this.helper();
    const id = this.nextId++;
    return new Promise<CommandResult>((resolve, reject) => {
      this.pending.set(id, { resolve, reject, child });
      if (this.pending.size === 1) this.hold(child, true);
      child.stdin.write(`${JSON.stringify({ id, file, args, timeoutMs: o.timeoutMs ?? 60_000, maxBuffer: o.maxBuffer ?? 16 * 1024 * 1024 })}\n`);
    });
  }

  /** Ends the helper (calls in flight fail). */
  close(): void {
    this.child?.stdin.end();
    this.child = undefined;
  }

  private helper(): ChildProcessWithoutNullStreams {
    if (this.child) return this.child;
    const child = spawn(process.execPath, ['-e', HELPER], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child = child;
    this.hold(child, false);
    child.stderr.resume();
    createInterface({ input: child.stdout }).on('line', (line) => this.answer(line));
    const gone = (why: string) => {
      if (this.child === child) this.child = undefined;
      for (const [id, p] of this.pending) {
        if (p.child !== child) continue;
        this.pending.delete(id);
        p.reject(new Error(`the command helper ${why}`));
      }
    };
    child.on('exit', (code, signal) => gone(`exited (${signal ?? code})`));
    child.on('error', (err) => gone(`failed: ${err.message}`));
    child.stdin.on('error', () => {}); // reported by 'exit'
    return child;
  }

  /** An idle helper does not keep this process alive; one with calls in flight does. */
  private hold(child: ChildProcessWithoutNullStreams, busy: boolean): void {
    for (const h of [child, child.stdin, child.stdout, child.stderr] as unknown as { ref?: () => void; unref?: () => void }[]) {
      if (busy) h.ref?.();
      else h.unref?.();
    }
  }

  private answer(line: string): void {
    let r: { id: number; code: number | string; message: string; stdout: string; stderr: string };
    try {
      r = JSON.parse(line);
    } catch {
      return;
    }
    const p = this.pending.get(r.id);
    if (!p) return;
    this.pending.delete(r.id);
    if (this.pending.size === 0 && this.child) this.hold(this.child, false);
    if (r.code === 0) p.resolve({ stdout: r.stdout, stderr: r.stderr });
    else p.reject(new CommandError(r.message || `exit status ${r.code}`, r.code, r.stdout, r.stderr));
  }
}

/** The agent's one runner. */
export const commands = new CommandRunner();

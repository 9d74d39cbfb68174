// The node agent's processes, the real side (os.ts puts them behind AgentOs). A cleanup
// command must never outlive its agent, or a restarted agent would wipe the same disk while
// the first wipe still runs. So each command runs in a process group of its own (detached:
// a new session), and its group is what gets signalled: on abort, and when the agent exits.
// Each command is also recorded in a ledger (cleanup-ledger.ts) the moment its pid exists,
// so that an agent killed with SIGKILL leaves a record its successor reaps.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import { isLive, parseProcStat } from '../domain/process-stat';

export interface SpawnedProcess {
  pid: number;
  /** Start time from /proc/<pid>/stat: tells this process from a later one with its pid. */
  startTime: string;
}

/** Told of every command started and ended, to keep a record that survives the agent. */
export interface ProcessLedger {
  started(p: SpawnedProcess, argv: string[]): void;
  ended(pid: number): void;
}

export interface SpawnOptions {
  env?: Record<string, string>;
  onOutput?: (chunk: string, stream: 'stdout' | 'stderr') => void;
  signal?: AbortSignal;
  cwd?: string;
  ledger?: ProcessLedger;
}

export const abortError = () => Object.assign(new Error('cancelled'), { name: 'AbortError', code: 'ABORT_ERR' });

/** Commands running now: their groups are signalled if the agent exits with them running. */
const live = new Set<ChildProcess>();
let exitHook = false;

/** Signals the child's whole group, while the child is not yet reaped (so its pid is still its own). */
function signalChildGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  signalGroup(child.pid, signal);
}

function procStat(pid: number | 'self') {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

export function spawnCommand(argv: string[], opts: SpawnOptions): Promise<{ exitCode: number | null; signal?: string }> {
  return new Promise((resolve, reject) => {
    if (argv.length === 0) return reject(new Error('no command'));
    if (opts.signal?.aborted) return reject(abortError());
    if (!exitHook) {
      exitHook = true;
      process.on('exit', () => live.forEach((c) => signalChildGroup(c, 'SIGTERM')));
    }
    const child = spawn(argv[0], argv.slice(1), {
      env: { ...process.env, ...opts.env, LC_ALL: 'C' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
      ...(opts.cwd ? { cwd: opts.cwd } : {}),
    });
    const pid = child.pid;
    if (pid !== undefined) {
      // Recorded synchronously, before anything else of the agent runs. A command that
      // cannot be recorded is not let run: a crash would leave it unseen.
      try {
        opts.ledger?.started({ pid, startTime: procStat(pid)?.startTime ?? '' }, argv);
      } catch (e) {
        signalGroup(pid, 'SIGKILL');
        child.on('error', () => {});
        return reject(new Error(`cannot record ${argv[0]} before letting it run: ${(e as Error).message}`));
      }
      live.add(child);
    }
    const onAbort = () => signalChildGroup(child, 'SIGTERM');
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (c: string) => opts.onOutput?.(c, 'stdout'));
    child.stderr.on('data', (c: string) => opts.onOutput?.(c, 'stderr'));
    child.on('exit', () => live.delete(child));
    child.on('error', (e) => {
      opts.signal?.removeEventListener('abort', onAbort);
      live.delete(child);
      if (pid !== undefined) opts.ledger?.ended(pid);
      reject(new Error(`cannot run ${argv[0]}: ${e.message}`));
    });
    child.on('close', (code, sig) => {
      opts.signal?.removeEventListener('abort', onAbort);
      if (pid !== undefined) opts.ledger?.ended(pid);
      resolve({ exitCode: code, ...(sig ? { signal: sig } : {}) });
    });
  });
}

/** Sends a signal to every process of a group; false when none is left. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The live (not zombie) processes of a group, from /proc; empty without /proc. */
export async function processGroup(pgid: number): Promise<SpawnedProcess[]> {
  let names: string[];
  try {
    names = await fs.readdir('/proc');
  } catch {
    return [];
  }
  const out: SpawnedProcess[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const st = procStat(Number(name));
    if (isLive(st) && st.pgrp === pgid) out.push({ pid: st.pid, startTime: st.startTime });
  }
  return out;
}

/** This boot's id: a pid recorded before a reboot names nothing now. */
export function bootId(): string {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return '';
  }
}

export async function readStateFile(p: string): Promise<string | undefined> {
  try {
    return await fs.readFile(p, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** Writes the file whole (a temporary file, then rename), synchronously. */
export function writeStateFile(p: string, text: string): void {
  const tmp = `${p}.${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode: 0o600 });
  renameSync(tmp, p);
}

// The record of the cleanup commands this node's agent has running, kept in a small file in
// the agent's state dir (cleanup-processes.json), so that what a killed agent left running
// is found by the next one. A command is recorded the moment its pid exists (pid, start
// time, boot id) and removed when it has ended. At start-up, before taking any job, the
// agent reaps: every recorded command whose process group still lives is sent SIGTERM, then
// SIGKILL, and the agent waits (with deadlines) until the group is gone. Only then can the
// jobs the dead agent held be taken again: one disk is never wiped by two commands at once.
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { AgentOs, ProcessLedger, SpawnedProcess } from './os';

export const LEDGER_FILE = 'cleanup-processes.json';

export interface LedgerEntry extends SpawnedProcess {
  bootId: string;
  command: string;
}

export interface ReapOptions {
  /** How long the groups get to end after SIGTERM (default 10 s), then after SIGKILL (5 s). */
  termMs?: number;
  killMs?: number;
  log?: (msg: string, entry: LedgerEntry) => void;
}

/**
 * Whether a recorded command still runs: its group has live processes, and they are its own
 * (the leader with the recorded start time; or, the leader gone, members no older than it:
 * a group's number is not given to another process while any member lives).
 */
export function stillRunning(e: LedgerEntry, members: SpawnedProcess[]): boolean {
  if (members.length === 0) return false;
  const leader = members.find((m) => m.pid === e.pid);
  if (leader) return leader.startTime === e.startTime;
  return e.startTime !== '' && members.every((m) => BigInt(m.startTime) >= BigInt(e.startTime));
}

function parse(text: string | undefined): LedgerEntry[] {
  if (!text) return [];
  try {
    const v = JSON.parse(text) as { processes?: unknown };
    if (!Array.isArray(v.processes)) return [];
    return v.processes.filter(
      (e): e is LedgerEntry => typeof e?.pid === 'number' && e.pid > 1 && typeof e.startTime === 'string' && typeof e.bootId === 'string' && typeof e.command === 'string',
    );
  } catch {
    return []; // a torn file cannot happen (written by rename); anything else is not ours
  }
}

export class CleanupLedger implements ProcessLedger {
  readonly file: string;
  private readonly entries = new Map<number, LedgerEntry>();
  private boot: string | undefined;

  constructor(
    private readonly os: AgentOs,
    stateDir: string,
  ) {
    this.file = path.join(stateDir, LEDGER_FILE);
  }

  started(p: SpawnedProcess, argv: string[]): void {
    this.boot ??= this.os.bootId();
    this.entries.set(p.pid, { ...p, bootId: this.boot, command: argv.join(' ').slice(0, 200) });
    this.save();
  }

  ended(pid: number): void {
    if (!this.entries.delete(pid)) return;
    try {
      this.save();
    } catch {
      // A record left behind is harmless: the next start finds that process gone.
    }
  }

  /** Ends what a previous agent left running; returns the commands it had to end. Throws if one will not end. */
  async reapLeftovers(o: ReapOptions = {}): Promise<LedgerEntry[]> {
    const boot = this.os.bootId();
    const left: LedgerEntry[] = [];
    for (const e of parse(await this.os.readStateFile(this.file))) {
      if (e.bootId === boot && stillRunning(e, await this.os.processGroup(e.pid))) left.push(e);
    }
    for (const e of left) {
      o.log?.('a cleanup command of a previous agent is still running; ending it', e);
      this.os.signalGroup(e.pid, 'SIGTERM');
    }
    let running = await this.waitGone(left, o.termMs ?? 10_000);
    for (const e of running) this.os.signalGroup(e.pid, 'SIGKILL');
    running = await this.waitGone(running, o.killMs ?? 5_000);
    if (running.length > 0) {
      throw new Error(`cleanup commands of a previous agent do not end (pids ${running.map((e) => e.pid).join(', ')}); not taking jobs while they run`);
    }
    this.save();
    return left;
  }

  /** Waits until the groups are gone or the time is up; returns those still running. */
  private async waitGone(entries: LedgerEntry[], ms: number): Promise<LedgerEntry[]> {
    const deadline = Date.now() + ms;
    for (;;) {
      const running: LedgerEntry[] = [];
      for (const e of entries) if (stillRunning(e, await this.os.processGroup(e.pid))) running.push(e);
      if (running.length === 0 || Date.now() >= deadline) return running;
      await delay(50);
    }
  }

  private save(): void {
    this.os.writeStateFile(this.file, JSON.stringify({ processes: [...this.entries.values()] }));
  }
}

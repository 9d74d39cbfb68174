// The process side of FakeAgentOs: a process table with groups and start times, signals
// that end processes (unless a test makes one ignore SIGTERM; SIGKILL always works), the
// boot id, and the agent's state files in memory.
import type { ProcessLedger, SpawnedProcess } from './os-processes';

export interface FakeProcess {
  pid: number;
  pgid: number;
  startTime: string;
  /** Signals this process survives (SIGKILL is never among them). */
  ignores?: NodeJS.Signals[];
}

export class FakeProcesses {
  readonly table = new Map<number, FakeProcess>();
  readonly files = new Map<string, string>();
  /** Every group signal sent, in order. */
  readonly signals: { pgid: number; signal: NodeJS.Signals }[] = [];
  boot = 'boot-1';
  private nextPid = 1000;
  private clock = 100;

  /** A new process, leading a group of its own unless pgid is given. */
  spawn(o: { pgid?: number; ignores?: NodeJS.Signals[] } = {}): FakeProcess {
    const pid = this.nextPid++;
    const p = { pid, pgid: o.pgid ?? pid, startTime: String(this.clock++), ...(o.ignores ? { ignores: o.ignores } : {}) };
    this.table.set(pid, p);
    return p;
  }

  /** Runs fn as a command process: in its own group, told to the ledger while it lives. */
  async asCommand<T>(ledger: ProcessLedger | undefined, argv: string[], fn: () => Promise<T>): Promise<T> {
    const p = this.spawn();
    ledger?.started({ pid: p.pid, startTime: p.startTime }, argv);
    try {
      return await fn();
    } finally {
      this.table.delete(p.pid);
      ledger?.ended(p.pid);
    }
  }

  async processGroup(pgid: number): Promise<SpawnedProcess[]> {
    return [...this.table.values()].filter((p) => p.pgid === pgid).map(({ pid, startTime }) => ({ pid, startTime }));
  }

  signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
    const members = [...this.table.values()].filter((p) => p.pgid === pgid);
    if (members.length === 0) return false;
    this.signals.push({ pgid, signal });
    for (const p of members) if (signal === 'SIGKILL' || !p.ignores?.includes(signal)) this.table.delete(p.pid);
    return true;
  }

  bootId(): string {
    return this.boot;
  }

  async readStateFile(p: string): Promise<string | undefined> {
    return this.files.get(p);
  }

  writeStateFile(p: string, text: string): void {
    this.files.set(p, text);
  }
}

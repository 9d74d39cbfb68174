// The agent's look at the backup targets: every 30 s (and as soon as the list of targets
// changes, which it reads every few seconds) it probes each target (reachable, writable,
// free and total bytes), lists the backups its manifests describe and the target's
// figures, and PUTs the report. The server keeps the latest report per node and target.
import type { Logger } from 'pino';
import type { TargetReport } from '../contracts/data-jobs';
import type { DataJobApi } from './agent-client';
import type { DataMover } from './data-job-runner';
import { sleep } from '../domain/sleep';

export interface TargetProberOptions {
  api: DataJobApi;
  mover: DataMover;
  node: string;
  log: Logger;
  /** Time between two full reports (ms, default 30 s). */
  reportMs?: number;
  /** Time between two reads of the list of targets (ms, default 5 s). */
  listMs?: number;
}

const MAX_BACKUPS = 10_000;
const dec = (v: bigint | number | string | undefined) => (v === undefined ? undefined : BigInt(v).toString());
const words = (e: unknown) => String((e as Error)?.message ?? e).slice(0, 1000);

/** One target looked at: whatever fails is said in `reason`, never thrown. */
export async function lookAtTarget(mover: DataMover, t: { name: string; path: string }): Promise<TargetReport> {
  let probe;
  try {
    probe = await mover.probeTarget(t.path);
  } catch (e) {
    return { name: t.name, path: t.path, reachable: false, writable: false, reason: words(e), backups: [] };
  }
  const report: TargetReport = {
    name: t.name,
    path: t.path,
    reachable: probe.reachable,
    writable: probe.writable,
    ...(probe.freeBytes !== undefined ? { freeBytes: dec(probe.freeBytes) } : {}),
    ...(probe.totalBytes !== undefined ? { totalBytes: dec(probe.totalBytes) } : {}),
    ...(probe.reason ? { reason: probe.reason.slice(0, 1024) } : {}),
    backups: [],
  };
  if (!probe.reachable) return report;
  try {
    report.backups = (await mover.listBackups(t.path)).slice(0, MAX_BACKUPS);
    const f = await mover.targetFigures(t.path);
    report.storedBytes = dec(f.storedBytes);
    report.logicalBytes = dec(f.logicalBytes);
  } catch (e) {
    report.reason = `listing backups: ${words(e)}`.slice(0, 1024);
  }
  return report;
}

export class TargetProber {
  private readonly stopping = new AbortController();
  private loop: Promise<void> | undefined;
  private lastList = '';
  private lastReportAt = 0;
  /** A job changed a target since the last look began: report at the next look, whatever the list. */
  private poked = false;
  /** Ends the current wait between two looks early. */
  private wake: (() => void) | undefined;

  constructor(private readonly o: TargetProberOptions) {}

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.loop;
  }

  /** A job of this node changed a target (a backup written, one removed): look and report now. */
  poke(): void {
    this.poked = true;
    this.wake?.();
  }

  /** Reads the list of targets; reports when it changed or a report is due. Answers whether it reported. */
  async tick(now = Date.now()): Promise<boolean> {
    const poked = this.poked;
    this.poked = false;
    try {
      const { targets } = await this.o.api.backupTargets(this.o.node);
      const list = JSON.stringify(targets);
      if (!poked && list === this.lastList && now - this.lastReportAt < (this.o.reportMs ?? 30_000)) return false;
      const reports: TargetReport[] = [];
      for (const t of targets) reports.push(await lookAtTarget(this.o.mover, t));
      await this.o.api.reportBackupTargets(this.o.node, reports);
      this.lastList = list;
    } catch (err) {
      // A poke is not lost to a failed look: the next one reports.
      this.poked ||= poked;
      throw err;
    }
    this.lastReportAt = now;
    return true;
  }

  private async run(): Promise<void> {
    const signal = this.stopping.signal;
    while (!signal.aborted) {
      let failed = false;
      try {
        await this.tick();
      } catch (err) {
        failed = true;
        if (!signal.aborted) this.o.log.warn({ err: (err as Error).message }, 'backup target report failed; trying again');
      }
      // Poked during the look: look again at once (after a failure, only after the wait).
      if (this.poked && !failed) continue;
      const woken = new AbortController();
      this.wake = () => woken.abort();
      await sleep(this.o.listMs ?? 5_000, AbortSignal.any([signal, woken.signal]));
      this.wake = undefined;
    }
  }
}

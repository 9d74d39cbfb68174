// The agent's data job runner: claims its node's data jobs (backup, restore, verify,
// delete; and replication's replica-* jobs) under a lease, runs each with the data mover
// (replication/jobs.ts for replica-*), reports progress at least once a second (each
// report renews the lease and may tell it to stop: the job was forgotten, or taken by
// another instance after the lease ran out), renews the leases of what it runs
// with every claim, and reports the result until the server has it. A job this process
// stops running (it is stopped, or killed) is left to its lease: when the lease runs out
// the job is handed to another instance, which runs it from the start.
//
// The mover is an argument (DataMover, the functions of server/agent/backup/): the agent's
// composition passes the real one (server/agent/data-mover.ts).
import type { Logger } from 'pino';
import type { BackupSummary, DataJobProgress, DataJobResult, DataJobSpec } from '../contracts/data-jobs';
import type { DataJobApi } from './agent-client';
import type { BackupOptions, BackupSource, MoverProgress } from './backup/backup';
import type { TargetProbe } from './backup/target';
import { sleep } from '../domain/sleep';
import { seenFrom } from './host-root';

export type { BackupSource, MoverProgress, TargetProbe };

/** The data mover's functions the runner and the target prober use (server/agent/backup/; the real one is server/agent/data-mover.ts). */
export interface DataMover {
  runBackup(o: BackupOptions): Promise<{ totalBytes: bigint; newBytes: bigint; chunks: number; newChunks: number }>;
  runRestore(o: { targetRoot: string; backupId: string; destination: BackupSource; onProgress?(p: MoverProgress): void; signal?: AbortSignal }): Promise<{ totalBytes: bigint }>;
  verifyBackup(o: { targetRoot: string; backupId: string; onProgress?(p: MoverProgress): void }): Promise<{ ok: true; chunks: number; bytes: bigint } | { ok: false; chunk: string; reason: string }>;
  deleteBackup(o: { targetRoot: string; backupId: string }): Promise<void>;
  collectGarbage(o: { targetRoot: string; graceMs?: number }): Promise<{ removedChunks: number; removedBytes: bigint }>;
  probeTarget(targetRoot: string): Promise<TargetProbe>;
  listBackups(targetRoot: string): Promise<BackupSummary[]>;
  targetFigures(targetRoot: string): Promise<{ storedBytes: bigint; logicalBytes: bigint; backups: number }>;
}

export interface DataJobRunnerOptions {
  api: DataJobApi;
  mover: DataMover;
  node: string;
  /** This process's identity: running jobs are leased to it. */
  instance: string;
  log: Logger;
  /** Jobs at once (default 2: data jobs are I/O bound and the mover overlaps its own work). */
  maxParallel?: number;
  /** Replication jobs at once, beside those (default 8: a receive mostly waits for its sender). */
  maxParallelReplicas?: number;
  /** Time between two claims (ms, default 1 s). */
  claimMs?: number;
  /** Time between two progress reports of a running job (ms, default 1 s). */
  progressIntervalMs?: number;
  /** Told when a job ends (whatever its result), e.g. to report the targets again soon. */
  onFinished?(spec: DataJobSpec): void;
  /** First wait before reporting a result again after a failed report (default 1 s, up to 10x). */
  reportRetryMs?: number;
  /**
   * Where this agent sees the host's `/` for volume paths (the agent loop's `poolRoot`): a
   * job's source and destination are the volume's paths on the host, as the plugins give
   * them. Backup targets are not mapped: every node mounts a target at its own path.
   */
  poolRoot?: string;
  /**
   * The replication jobs (replica-send, -receive, -remove: server/agent/replication/jobs.ts),
   * which map their paths through the same pool root themselves. Without them those jobs
   * fail (retryable): this agent does not run them.
   */
  replicaJobs?: {
    run(spec: Extract<DataJobSpec, { kind: 'replica-send' | 'replica-receive' | 'replica-remove' }>, onProgress: (p: MoverProgress) => void, signal: AbortSignal): Promise<DataJobResult>;
  };
}


const dec = (v: bigint | number) => BigInt(v).toString();

/** Chunks younger than this survive the collection a delete runs. */
const DELETE_GC_GRACE_MS = 60_000;

/** A mover error that trying again cannot mend: a damaged chunk, a missing backup, a refused id or path. */
/** What a job is about, for messages: its backup, or its volume's transfer. */
const subjectOf = (spec: DataJobSpec) => ('backupId' in spec ? `backup ${spec.backupId}` : `volume ${spec.pvName}`);

function failureOf(e: unknown, spec: DataJobSpec): DataJobResult {
  const err = e as { name?: string; message?: string; chunk?: unknown; reason?: unknown };
  const message = String(err?.message ?? e).slice(0, 2000);
  if (typeof err?.chunk === 'string') {
    return { ok: false, error: `${subjectOf(spec)}: chunk ${err.chunk} is damaged${typeof err.reason === 'string' ? ` (${err.reason.slice(0, 500)})` : ''}`, damagedChunk: err.chunk.slice(0, 128), retryable: false };
  }
  if (err?.name === 'MissingBackupError') return { ok: false, error: `${subjectOf(spec)} is not in the target: ${message}`, retryable: false };
  if (err?.name === 'AbortError') return { ok: false, error: `${spec.kind} of ${subjectOf(spec)} was stopped`, retryable: true };
  return { ok: false, error: `${spec.kind} of ${subjectOf(spec)} failed: ${message}`, retryable: true };
}

export class DataJobRunner {
  private readonly running = new Map<string, { abort: AbortController; done: Promise<void> }>();
  private readonly stopping = new AbortController();
  private loop: Promise<void> | undefined;

  constructor(private readonly o: DataJobRunnerOptions) {}

  /** Keys of the jobs running in this process. */
  runningJobs(): string[] {
    return [...this.running.keys()];
  }

  start(): void {
    this.loop ??= this.claimLoop();
  }

  /** Stops claiming and aborts running jobs without reporting them: their leases run out and they are taken again. */
  async stop(): Promise<void> {
    this.stopping.abort();
    for (const r of this.running.values()) r.abort.abort();
    await Promise.allSettled([this.loop, ...[...this.running.values()].map((r) => r.done)]);
  }

  private async claimLoop(): Promise<void> {
    const signal = this.stopping.signal;
    while (!signal.aborted) {
      try {
        await this.claimOnce();
      } catch (err) {
        if (!signal.aborted) this.o.log.warn({ err: (err as Error).message }, 'data job claim failed; trying again');
      }
      await sleep(this.o.claimMs ?? 1_000, signal);
    }
  }

  /** One claim: renews the leases of what runs here and starts what the server hands out. */
  async claimOnce(): Promise<void> {
    const replicas = [...this.running.keys()].filter((k) => k.startsWith('replica-')).length;
    const max = Math.max(0, (this.o.maxParallel ?? 2) - (this.running.size - replicas));
    // Replication jobs have a budget of their own, when this agent runs them.
    const maxReplica = this.o.replicaJobs ? Math.max(0, (this.o.maxParallelReplicas ?? 8) - replicas) : 0;
    const { jobs } = await this.o.api.claimDataJobs(this.o.node, { instance: this.o.instance, running: this.runningJobs(), max, maxReplica });
    for (const j of jobs) this.startJob(j.key, j.spec, j.attempt);
  }

  private startJob(key: string, spec: DataJobSpec, attempt: number): void {
    if (this.running.has(key) || this.stopping.signal.aborted) return;
    const abort = new AbortController();
    const done = this.runJob(key, spec, attempt, abort).finally(() => this.running.delete(key));
    this.running.set(key, { abort, done });
  }

  private async runJob(key: string, spec: DataJobSpec, attempt: number, abort: AbortController): Promise<void> {
    const log = this.o.log.child({ job: key, attempt });
    let last: DataJobProgress = { doneBytes: '0', totalBytes: '0' };
    const onProgress = (p: MoverProgress) => {
      last = { doneBytes: dec(p.doneBytes), totalBytes: dec(p.totalBytes), newBytes: dec(p.newBytes) };
    };
    let cancelled = false;
    let sending = false;
    const report = () => {
      if (sending) return; // one report in flight at a time; the next tick sends fresher numbers
      sending = true;
      this.o.api
        .dataJobProgress(this.o.node, key, { instance: this.o.instance, progress: last })
        .then((r) => {
          if (r.cancel && !abort.signal.aborted) {
            log.warn('data job is no longer this agent’s (forgotten, cancelled or taken over); stopping it');
            cancelled = true;
            abort.abort();
          }
        })
        .catch((err) => log.warn({ err: (err as Error).message }, 'data job progress report failed'))
        .finally(() => {
          sending = false;
        });
    };
    const ticker = setInterval(report, this.o.progressIntervalMs ?? 1_000);
    log.info({ kind: spec.kind, subject: subjectOf(spec) }, 'data job started');
    let result: DataJobResult;
    try {
      result = await this.perform(spec, onProgress, abort.signal);
    } catch (e) {
      result = failureOf(e, spec);
    } finally {
      clearInterval(ticker);
    }
    log[result.ok ? 'info' : 'warn']({ ok: result.ok, ...(result.ok ? {} : { error: result.error }) }, 'data job finished');
    this.o.onFinished?.(spec);
    // Stopping: the lease runs out and the job is taken again. Cancelled: it is not ours.
    if (this.stopping.signal.aborted || cancelled) return;
    for (let n = 0; !this.stopping.signal.aborted; n++) {
      try {
        const r = await this.o.api.dataJobResult(this.o.node, key, { instance: this.o.instance, result });
        if (!r.accepted) log.warn('data job result not taken: the job is no longer this agent’s');
        return;
      } catch (err) {
        const status = (err as { status?: number }).status;
        if (status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 429) {
          log.warn({ err: (err as Error).message }, 'data job result refused');
          return;
        }
        log.warn({ err: (err as Error).message, n }, 'data job result report failed; retrying');
        const base = this.o.reportRetryMs ?? 1_000;
        await sleep(Math.min(10 * base, base * (n + 1)), this.stopping.signal);
      }
    }
  }

  private async perform(spec: DataJobSpec, onProgress: (p: MoverProgress) => void, signal: AbortSignal): Promise<DataJobResult> {
    const m = this.o.mover;
    const onNode = (p: string) => seenFrom(this.o.poolRoot, p);
    switch (spec.kind) {
      case 'backup': {
        const source: BackupSource = spec.format === 'files' ? { format: 'files', root: onNode(spec.sourcePath) } : { format: 'image', file: onNode(spec.sourcePath) };
        const r = await m.runBackup({
          targetRoot: spec.targetPath,
          backupId: spec.backupId,
          source,
          origin: spec.origin,
          ...(spec.parentBackupId ? { parentBackupId: spec.parentBackupId } : {}),
          ...(spec.parentSourcePath ? { parentSourcePath: onNode(spec.parentSourcePath) } : {}),
          onProgress,
          signal,
        });
        return { ok: true, doneBytes: dec(r.totalBytes), totalBytes: dec(r.totalBytes), newBytes: dec(r.newBytes), chunks: r.chunks, newChunks: r.newChunks };
      }
      case 'restore': {
        const destination: BackupSource = spec.format === 'files' ? { format: 'files', root: onNode(spec.destinationPath) } : { format: 'image', file: onNode(spec.destinationPath) };
        const r = await m.runRestore({ targetRoot: spec.targetPath, backupId: spec.backupId, destination, onProgress, signal });
        return { ok: true, doneBytes: dec(r.totalBytes), totalBytes: dec(r.totalBytes) };
      }
      case 'verify': {
        const r = await m.verifyBackup({ targetRoot: spec.targetPath, backupId: spec.backupId, onProgress });
        if (!r.ok) return { ok: false, error: `backup ${spec.backupId}: chunk ${r.chunk} is damaged (${r.reason.slice(0, 500)})`, damagedChunk: r.chunk.slice(0, 128), retryable: false };
        return { ok: true, doneBytes: dec(r.bytes), totalBytes: dec(r.bytes), chunks: r.chunks };
      }
      case 'delete': {
        await m.deleteBackup({ targetRoot: spec.targetPath, backupId: spec.backupId });
        // The deleted backup's chunks are old; a minute's grace keeps what running backups
        // have just written (they would write it again before publishing, but need not).
        await m.collectGarbage({ targetRoot: spec.targetPath, graceMs: DELETE_GC_GRACE_MS });
        return { ok: true, doneBytes: '0', totalBytes: '0' };
      }
      case 'replica-send':
      case 'replica-receive':
      case 'replica-remove':
        if (!this.o.replicaJobs) return { ok: false, error: `this agent does not run ${spec.kind} jobs`, retryable: true };
        return this.o.replicaJobs.run(spec, onProgress, signal);
    }
  }
}

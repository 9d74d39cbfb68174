// Cleanup jobs of local disks (table cleanup_jobs): the intent to wipe a disk, written
// BEFORE the agent may touch it and settled only by the agent's result. States:
//   queued -> running -> succeeded
//                     -> failed (retried after next_attempt_at, with backoff) -> running ...
//   queued | failed -> quarantined (an admin cancelled: the disk is never offered again
//                                   until an admin retries the wipe and it succeeds)
// A disk (node, host path) with a queued, running, failed or quarantined job is "dirty":
// a partial unique index keeps at most one such job per disk, and the manager never
// offers a dirty disk. A running job is held by one agent instance under a lease the
// agent's progress reports extend; only an expired lease lets another instance take it,
// so two cleanups of one disk never run at once.
import type { CleanupMethod } from '../domain/cleanup-method';
import type { CleanupProgress } from '../contracts/agent';
import type { SqlClient } from './pg';
import { sqlOf, type Queryable } from './sql-handle';
import { camelRow } from './row-case';

export type JobState = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled' | 'quarantined';
export const OPEN_STATES: readonly JobState[] = ['queued', 'running', 'failed', 'quarantined'];

export interface CleanupJob {
  id: string;
  nodeName: string;
  pvName: string;
  pvUid: string;
  hostPath: string;
  className: string;
  volumeMode: 'Filesystem' | 'Block';
  method: CleanupMethod;
  command: string[];
  fsType: string;
  state: JobState;
  attempt: number;
  progress: CleanupProgress | null;
  lastError: string | null;
  outputTail: string[];
  agentInstance: string | null;
  leaseUntil: Date | null;
  cancelRequested: boolean;
  nextAttemptAt: Date;
  createdAt: Date;
  updatedAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

export type NewJob = Pick<CleanupJob, 'nodeName' | 'pvName' | 'pvUid' | 'hostPath' | 'className' | 'volumeMode' | 'method' | 'command' | 'fsType'> & {
  state: 'queued' | 'quarantined';
  lastError?: string;
};

interface Row {
  id: string;
  node_name: string;
  pv_name: string;
  pv_uid: string;
  host_path: string;
  class_name: string;
  volume_mode: 'Filesystem' | 'Block';
  method: CleanupMethod;
  command: unknown;
  fs_type: string;
  state: JobState;
  attempt: number;
  progress: unknown;
  last_error: string | null;
  output_tail: unknown;
  agent_instance: string | null;
  lease_until: Date | null;
  cancel_requested: boolean;
  next_attempt_at: Date;
  created_at: Date;
  updated_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

const json = <T>(v: unknown, fallback: T): T => (v === null || v === undefined ? fallback : typeof v === 'string' ? (JSON.parse(v) as T) : (v as T));
const date = (v: Date | null) => (v ? new Date(v) : null);

function toJob(r: Row): CleanupJob {
  return {
    ...camelRow(r),
    command: json<string[]>(r.command, []),
    progress: json<CleanupProgress | null>(r.progress, null),
    outputTail: json<string[]>(r.output_tail, []),
    leaseUntil: date(r.lease_until),
    nextAttemptAt: new Date(r.next_attempt_at),
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
    startedAt: date(r.started_at),
    finishedAt: date(r.finished_at),
  };
}

const OPEN = `state IN ('queued', 'running', 'failed', 'quarantined')`;

export class CleanupJobStore {
  private readonly sql: SqlClient;

  /** `on`: the store (or one of its transactions). */
  constructor(on: Queryable) {
    this.sql = sqlOf(on);
  }

  /**
   * Records the intent to wipe a disk. At most one open job per disk: when one exists
   * already, nothing is written and that job is returned.
   */
  async record(j: NewJob): Promise<{ job: CleanupJob; created: boolean }> {
    const rows = await this.sql.$queryRawUnsafe<Row[]>(
      `INSERT INTO cleanup_jobs (id, node_name, pv_name, pv_uid, host_path, class_name, volume_mode, method, command, fs_type, state, last_error)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10, $11)
       ON CONFLICT (node_name, host_path) WHERE ${OPEN} DO NOTHING
       RETURNING *`,
      j.nodeName,
      j.pvName,
      j.pvUid,
      j.hostPath,
      j.className,
      j.volumeMode,
      j.method,
      JSON.stringify(j.command),
      j.fsType,
      j.state,
      j.lastError ?? null,
    );
    if (rows[0]) return { job: toJob(rows[0]), created: true };
    const open = await this.openForDisk(j.nodeName, j.hostPath);
    if (!open) throw new Error(`cleanup job for ${j.nodeName}:${j.hostPath} conflicted but none is open`);
    return { job: open, created: false };
  }

  async get(id: string): Promise<CleanupJob | undefined> {
    if (!/^[0-9a-f-]{36}$/i.test(id)) return undefined;
    const rows = await this.sql.$queryRawUnsafe<Row[]>('SELECT * FROM cleanup_jobs WHERE id = $1::uuid', id);
    return rows[0] ? toJob(rows[0]) : undefined;
  }

  /** The unfinished job of a disk, if any: while it exists the disk is dirty. */
  async openForDisk(nodeName: string, hostPath: string): Promise<CleanupJob | undefined> {
    const rows = await this.sql.$queryRawUnsafe<Row[]>(
      `SELECT * FROM cleanup_jobs WHERE node_name = $1 AND host_path = $2 AND ${OPEN}`,
      nodeName,
      hostPath,
    );
    return rows[0] ? toJob(rows[0]) : undefined;
  }

  /** The newest job recorded for one PV object (by uid). */
  async latestForPvUid(pvUid: string): Promise<CleanupJob | undefined> {
    const rows = await this.sql.$queryRawUnsafe<Row[]>(
      'SELECT * FROM cleanup_jobs WHERE pv_uid = $1 ORDER BY created_at DESC LIMIT 1',
      pvUid,
    );
    return rows[0] ? toJob(rows[0]) : undefined;
  }

  /** A PV name's cleanup history, newest first. */
  async historyOfPv(pvName: string, limit = 50): Promise<CleanupJob[]> {
    const rows = await this.sql.$queryRawUnsafe<Row[]>(
      'SELECT * FROM cleanup_jobs WHERE pv_name = $1 ORDER BY created_at DESC LIMIT $2',
      pvName,
      limit,
    );
    return rows.map(toJob);
  }

  async listForNode(nodeName: string, opts: { openOnly?: boolean; limit?: number } = {}): Promise<CleanupJob[]> {
    const rows = await this.sql.$queryRawUnsafe<Row[]>(
      `SELECT * FROM cleanup_jobs WHERE node_name = $1 ${opts.openOnly ? `AND ${OPEN}` : ''} ORDER BY created_at DESC LIMIT $2`,
      nodeName,
      opts.limit ?? 500,
    );
    return rows.map(toJob);
  }

  /** Failed and quarantined jobs on every node, newest first (the reclaim center). */
  async listStuck(limit = 500): Promise<CleanupJob[]> {
    const rows = await this.sql.$queryRawUnsafe<Row[]>(
      `SELECT * FROM cleanup_jobs WHERE state IN ('failed', 'quarantined') ORDER BY updated_at DESC LIMIT $1`,
      limit,
    );
    return rows.map(toJob);
  }

  /** Open jobs per node and state, for the roll-up. */
  async openCounts(): Promise<{ nodeName: string; state: JobState; count: number }[]> {
    const rows = await this.sql.$queryRawUnsafe<{ node_name: string; state: JobState; n: bigint | number }[]>(
      `SELECT node_name, state, count(*) AS n FROM cleanup_jobs WHERE ${OPEN} GROUP BY node_name, state`,
    );
    return rows.map((r) => ({ nodeName: r.node_name, state: r.state, count: Number(r.n) }));
  }

  /**
   * Hands an agent instance the jobs it may run now: queued ones, failed ones whose backoff
   * has passed, and running ones whose lease expired: their holder died, or is this very
   * instance, which no longer runs them (`running`: what it does run; it dropped the job,
   * e.g. after failing to report its end through a long network outage). Each becomes
   * running under `instance` with a fresh lease; the attempt counter counts every start.
   */
  async claim(nodeName: string, instance: string, leaseMs: number, limit: number, running: readonly string[] = []): Promise<CleanupJob[]> {
    const rows = await this.sql.$queryRawUnsafe<Row[]>(
      `UPDATE cleanup_jobs j SET state = 'running', attempt = j.attempt + 1, agent_instance = $2,
              lease_until = now() + ($3::int * interval '1 millisecond'), started_at = now(), updated_at = now(),
              progress = NULL, cancel_requested = false
        WHERE j.id IN (
          SELECT id FROM cleanup_jobs
           WHERE node_name = $1
             AND ((state IN ('queued', 'failed') AND next_attempt_at <= now())
               OR (state = 'running' AND lease_until < now() AND (agent_instance IS DISTINCT FROM $2 OR NOT (id = ANY($5::uuid[])))))
           ORDER BY next_attempt_at
           LIMIT $4
           FOR UPDATE SKIP LOCKED)
        RETURNING j.*`,
      nodeName,
      instance,
      leaseMs,
      limit,
      running,
    );
    return rows.map(toJob);
  }

  /**
   * Progress of a running job from the instance that holds it; extends the lease. Returns
   * whether the job still belongs to that instance and whether an admin asked to cancel.
   */
  async progress(id: string, nodeName: string, instance: string, p: CleanupProgress, leaseMs: number): Promise<{ held: boolean; cancel: boolean }> {
    const rows = await this.sql.$queryRawUnsafe<{ cancel_requested: boolean }[]>(
      `UPDATE cleanup_jobs SET progress = $4::jsonb, lease_until = now() + ($5::int * interval '1 millisecond'), updated_at = now()
        WHERE id = $1::uuid AND node_name = $2 AND state = 'running' AND agent_instance = $3
        RETURNING cancel_requested`,
      id,
      nodeName,
      instance,
      JSON.stringify(p),
      leaseMs,
    );
    return { held: rows.length > 0, cancel: rows[0]?.cancel_requested ?? false };
  }

  /** Extends the leases of the jobs an instance is still running (its heartbeat). */
  async renew(nodeName: string, instance: string, ids: string[], leaseMs: number): Promise<void> {
    if (ids.length === 0) return;
    await this.sql.$executeRawUnsafe(
      `UPDATE cleanup_jobs SET lease_until = now() + ($4::int * interval '1 millisecond')
        WHERE node_name = $1 AND agent_instance = $2 AND state = 'running' AND id = ANY($3::uuid[])`,
      nodeName,
      instance,
      ids,
      leaseMs,
    );
  }

  /**
   * The result of a run, from the instance that holds it. Success settles the job; a
   * failure waits `retryInMs` before the next attempt, or is quarantined when an admin
   * asked to cancel. Returns the settled job, or undefined when the job was not held.
   */
  async finish(
    id: string,
    nodeName: string,
    instance: string,
    r: { ok: boolean; error?: string; outputTail?: string[]; progress?: CleanupProgress },
    retryInMs: number,
  ): Promise<CleanupJob | undefined> {
    const rows = await this.sql.$queryRawUnsafe<Row[]>(
      `UPDATE cleanup_jobs SET
          state = CASE WHEN $4 THEN 'succeeded' WHEN cancel_requested THEN 'quarantined' ELSE 'failed' END,
          last_error = CASE WHEN $4 THEN last_error WHEN cancel_requested THEN coalesce($5, 'cancelled by an admin') ELSE $5 END,
          output_tail = $6::jsonb,
          finished_at = now(), updated_at = now(), lease_until = NULL,
          next_attempt_at = now() + ($7::int * interval '1 millisecond'),
          progress = coalesce($8::jsonb, progress)
        WHERE id = $1::uuid AND node_name = $2 AND state = 'running' AND agent_instance = $3
        RETURNING *`,
      id,
      nodeName,
      instance,
      r.ok,
      r.ok ? null : (r.error ?? 'cleanup failed'),
      JSON.stringify((r.outputTail ?? []).slice(-50)),
      retryInMs,
      r.progress ? JSON.stringify(r.progress) : null,
    );
    return rows[0] ? toJob(rows[0]) : undefined;
  }

  /** An admin's retry: a failed or quarantined job runs again now. */
  async retry(id: string): Promise<CleanupJob | undefined> {
    const rows = await this.sql.$queryRawUnsafe<Row[]>(
      `UPDATE cleanup_jobs SET state = 'queued', next_attempt_at = now(), cancel_requested = false, updated_at = now()
        WHERE id = $1::uuid AND state IN ('failed', 'quarantined') RETURNING *`,
      id,
    );
    return rows[0] ? toJob(rows[0]) : undefined;
  }

  /**
   * An admin's cancel: a waiting job is quarantined at once; a running one is asked to stop
   * (its agent aborts it and the result quarantines it). The disk stays dirty either way.
   */
  async cancel(id: string): Promise<CleanupJob | undefined> {
    const rows = await this.sql.$queryRawUnsafe<Row[]>(
      `UPDATE cleanup_jobs SET
          state = CASE WHEN state = 'running' THEN state ELSE 'quarantined' END,
          cancel_requested = (state = 'running'),
          last_error = CASE WHEN state = 'running' THEN last_error ELSE coalesce(last_error || '; ', '') || 'cancelled by an admin' END,
          updated_at = now()
        WHERE id = $1::uuid AND state IN ('queued', 'failed', 'running') RETURNING *`,
      id,
    );
    return rows[0] ? toJob(rows[0]) : undefined;
  }

  /** Jobs changed at or after `since` (database clock): PV name and change time. */
  async changedSince(since: Date): Promise<{ pvName: string; at: number }[]> {
    const rows = await this.sql.$queryRawUnsafe<{ pv_name: string; at: Date }[]>(
      'SELECT pv_name, max(updated_at) AS at FROM cleanup_jobs WHERE updated_at >= $1 GROUP BY pv_name',
      since,
    );
    return rows.map((r) => ({ pvName: r.pv_name, at: new Date(r.at).getTime() }));
  }
}

// Data jobs (table data_jobs): a volume's data moved between a node and a backup target,
// queued by the controllers under a stable key and run by the agent of the job's node.
//   queued -> running -> succeeded
//                     -> failed                      (not retryable, or out of attempts)
//                     -> queued after a backoff     (a retryable failure: I/O, a lost lease)
//   failed -> queued                                 (retry(): the controllers ask again)
// A running job is held by one agent instance under a lease that its progress reports and
// claims renew; only an expired lease lets another instance take it, so one job never runs
// twice at once. The controllers' side is the contract's DataJobQueue; the agent's side is
// claim / progress / finish.
import type { DataJob, DataJobProgress, DataJobQueue, DataJobResult, DataJobSpec, DataJobState } from '../contracts/data-jobs';
import type { SqlClient } from './pg';
import { sqlOf, type Queryable } from './sql-handle';
import { backoffMs } from '../domain/backoff';

interface Row {
  key: string;
  node_name: string;
  kind: string;
  spec: unknown;
  state: DataJobState;
  attempt: number;
  progress: unknown;
  result: unknown;
  agent_instance: string | null;
  lease_until: Date | null;
  cancel_requested: boolean;
  next_attempt_at: Date;
  created_at: Date;
  updated_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

const json = <T>(v: unknown): T | undefined => (v === null || v === undefined ? undefined : typeof v === 'string' ? (JSON.parse(v) as T) : (v as T));

function toJob(r: Row): DataJob {
  const progress = json<DataJobProgress>(r.progress);
  const result = json<DataJobResult>(r.result);
  return {
    key: r.key,
    node: r.node_name,
    spec: json<DataJobSpec>(r.spec) as DataJobSpec,
    state: r.state,
    attempt: r.attempt,
    ...(progress ? { progress } : {}),
    ...(result ? { result } : {}),
    createdAt: new Date(r.created_at),
    ...(r.started_at ? { startedAt: new Date(r.started_at) } : {}),
    ...(r.finished_at ? { finishedAt: new Date(r.finished_at) } : {}),
  };
}

/** A job as its agent receives it. */
export interface ClaimedDataJob {
  key: string;
  spec: DataJobSpec;
  attempt: number;
}

export interface DataJobRetryPolicy {
  /** Attempts in all before a retryable failure is final (default 5). */
  maxAttempts: number;
  /** Backoff after attempt n: base * 2^(n-1), capped (ms; default 5 s to 5 min). */
  baseMs: number;
  maxMs: number;
}

export const DEFAULT_RETRY: DataJobRetryPolicy = { maxAttempts: 5, baseMs: 5_000, maxMs: 300_000 };

/** The wait before the next attempt after `attempt` failed ones. */
export function dataJobBackoffMs(attempt: number, p: DataJobRetryPolicy): number {
  return backoffMs(attempt, p.baseMs, p.maxMs);
}

export class DataJobStore implements DataJobQueue {
  private readonly sql: SqlClient;

  constructor(
    on: Queryable,
    private readonly retryPolicy: DataJobRetryPolicy = DEFAULT_RETRY,
  ) {
    this.sql = sqlOf(on);
  }

  // --- the controllers' side (DataJobQueue) ------------------------------------------

  async ensure(key: string, node: string, spec: DataJobSpec): Promise<DataJob> {
    const rows = await this.sql.$queryRawUnsafe<Row[]>(
      `INSERT INTO data_jobs (key, node_name, kind, spec) VALUES ($1, $2, $3, $4::jsonb)
       ON CONFLICT (key) DO NOTHING RETURNING *`,
      key,
      node,
      spec.kind,
      JSON.stringify(spec),
    );
    if (rows[0]) return toJob(rows[0]);
    const had = await this.get(key);
    if (!had) throw new Error(`data job ${key} conflicted but does not exist`);
    return had;
  }

  async get(key: string): Promise<DataJob | undefined> {
    const rows = await this.sql.$queryRawUnsafe<Row[]>('SELECT * FROM data_jobs WHERE key = $1', key);
    return rows[0] ? toJob(rows[0]) : undefined;
  }

  /** Forgets the job whatever its state: a running one's agent is told to stop at its next progress report. */
  async forget(key: string): Promise<void> {
    await this.sql.$executeRawUnsafe('DELETE FROM data_jobs WHERE key = $1', key);
  }

  async retry(key: string): Promise<void> {
    await this.sql.$executeRawUnsafe(
      `UPDATE data_jobs SET state = 'queued', next_attempt_at = now(), updated_at = now(), cancel_requested = false
        WHERE key = $1 AND state = 'failed'`,
      key,
    );
  }

  /** Asks the agent running the job to stop (it answers with a failed result). */
  async cancel(key: string): Promise<void> {
    await this.sql.$executeRawUnsafe(`UPDATE data_jobs SET cancel_requested = true, updated_at = now() WHERE key = $1 AND state = 'running'`, key);
  }

  async listForNode(node: string, limit = 500): Promise<DataJob[]> {
    const rows = await this.sql.$queryRawUnsafe<Row[]>('SELECT * FROM data_jobs WHERE node_name = $1 ORDER BY created_at DESC LIMIT $2', node, limit);
    return rows.map(toJob);
  }

  // --- the agent's side -----------------------------------------------------------------

  /**
   * Renews the leases of the jobs `instance` still runs (`running`), then hands it the jobs
   * it may start now: queued ones whose backoff has passed, and running ones whose lease
   * expired (their holder died, or is this instance, which no longer runs them). Each
   * becomes running under `instance` with a fresh lease; the attempt counts every start.
   */
  async claim(node: string, instance: string, leaseMs: number, limit: number, running: readonly string[] = [], replicaLimit?: number): Promise<ClaimedDataJob[]> {
    if (running.length > 0) await this.renew(node, instance, running, leaseMs);
    if (replicaLimit === undefined) return this.claimOf(node, instance, leaseMs, limit, running, 'all');
    // Replication transfers have a budget of their own: a receive waits for its sender, and
    // receives filling every slot on two nodes replicating to each other would block the
    // sends each waits for.
    return [...(await this.claimOf(node, instance, leaseMs, limit, running, 'others')), ...(await this.claimOf(node, instance, leaseMs, replicaLimit, running, 'replica'))];
  }

  private async claimOf(node: string, instance: string, leaseMs: number, limit: number, running: readonly string[], kinds: 'all' | 'replica' | 'others'): Promise<ClaimedDataJob[]> {
    if (limit <= 0) return [];
    const kindFilter = kinds === 'all' ? '' : kinds === 'replica' ? `AND kind LIKE 'replica-%'` : `AND kind NOT LIKE 'replica-%'`;
    const rows = await this.sql.$queryRawUnsafe<Row[]>(
      `UPDATE data_jobs j SET state = 'running', attempt = j.attempt + 1, agent_instance = $2,
              lease_until = now() + ($3::int * interval '1 millisecond'), started_at = now(), updated_at = now(),
              progress = NULL, cancel_requested = false
        WHERE j.key IN (
          SELECT key FROM data_jobs
           WHERE node_name = $1 ${kindFilter}
             AND ((state = 'queued' AND next_attempt_at <= now())
               OR (state = 'running' AND lease_until < now() AND (agent_instance IS DISTINCT FROM $2 OR NOT (key = ANY($5::text[])))))
           ORDER BY next_attempt_at
           LIMIT $4
           FOR UPDATE SKIP LOCKED)
        RETURNING j.*`,
      node,
      instance,
      leaseMs,
      limit,
      [...running],
    );
    return rows.map((r) => ({ key: r.key, spec: json<DataJobSpec>(r.spec) as DataJobSpec, attempt: r.attempt }));
  }

  async renew(node: string, instance: string, keys: readonly string[], leaseMs: number): Promise<void> {
    if (keys.length === 0) return;
    await this.sql.$executeRawUnsafe(
      `UPDATE data_jobs SET lease_until = now() + ($4::int * interval '1 millisecond')
        WHERE node_name = $1 AND agent_instance = $2 AND state = 'running' AND key = ANY($3::text[])`,
      node,
      instance,
      [...keys],
      leaseMs,
    );
  }

  /**
   * Progress of a running job from the instance that holds it; extends the lease. `cancel`
   * is true when the job is no longer this instance's (forgotten, taken by another after
   * the lease ran out) or the controllers asked it to stop: the agent aborts it.
   */
  async progress(key: string, node: string, instance: string, p: DataJobProgress, leaseMs: number): Promise<{ held: boolean; cancel: boolean }> {
    const rows = await this.sql.$queryRawUnsafe<{ cancel_requested: boolean }[]>(
      `UPDATE data_jobs SET progress = $4::jsonb, lease_until = now() + ($5::int * interval '1 millisecond'), updated_at = now()
        WHERE key = $1 AND node_name = $2 AND state = 'running' AND agent_instance = $3
        RETURNING cancel_requested`,
      key,
      node,
      instance,
      JSON.stringify(p),
      leaseMs,
    );
    const held = rows.length > 0;
    return { held, cancel: !held || (rows[0]?.cancel_requested ?? false) };
  }

  /**
   * The result of a run, from the instance that holds it. Success settles the job; a
   * retryable failure queues it again after a backoff until attempts run out; any other
   * failure (or a cancelled run) is final. Returns the job as settled, or undefined when
   * the job was not this instance's.
   */
  async finish(key: string, node: string, instance: string, r: DataJobResult): Promise<DataJob | undefined> {
    const retryable = !r.ok && r.retryable;
    const rows = await this.sql.$queryRawUnsafe<Row[]>(
      `UPDATE data_jobs SET
          state = CASE WHEN $4 THEN 'succeeded'
                       WHEN $5 AND NOT cancel_requested AND attempt < $6 THEN 'queued'
                       ELSE 'failed' END,
          next_attempt_at = now() + (LEAST($8::bigint, $7::bigint * power(2, LEAST(30, GREATEST(0, attempt - 1)))::bigint) * interval '1 millisecond'),
          result = $9::jsonb,
          progress = CASE WHEN $4 THEN $10::jsonb ELSE progress END,
          finished_at = now(), updated_at = now(), lease_until = NULL, agent_instance = NULL
        WHERE key = $1 AND node_name = $2 AND state = 'running' AND agent_instance = $3
        RETURNING *`,
      key,
      node,
      instance,
      r.ok,
      retryable,
      this.retryPolicy.maxAttempts,
      this.retryPolicy.baseMs,
      this.retryPolicy.maxMs,
      JSON.stringify(r),
      r.ok ? JSON.stringify({ doneBytes: r.doneBytes, totalBytes: r.totalBytes, ...(r.newBytes ? { newBytes: r.newBytes } : {}) }) : null,
    );
    return rows[0] ? toJob(rows[0]) : undefined;
  }
}

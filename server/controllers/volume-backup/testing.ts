// An in-memory DataJobQueue: a test double of the port (the real one is a table, written by
// another part of the code base), with the agent's side as methods a test calls to move a
// job along. Objects in tests still live in the real Postgres.
import type { DataJob, DataJobProgress, DataJobQueue, DataJobResult, DataJobSpec } from '../../contracts/data-jobs';

export class MemoryJobQueue implements DataJobQueue {
  readonly jobs = new Map<string, DataJob>();
  /** Every key ever queued, in order (a test checks nothing was queued twice). */
  readonly queued: string[] = [];

  async ensure(key: string, node: string, spec: DataJobSpec): Promise<DataJob> {
    const had = this.jobs.get(key);
    if (had) return structuredClone(had);
    const job: DataJob = { key, node, spec: structuredClone(spec), state: 'queued', attempt: 1, createdAt: new Date() };
    this.jobs.set(key, job);
    this.queued.push(key);
    return structuredClone(job);
  }

  async get(key: string): Promise<DataJob | undefined> {
    const j = this.jobs.get(key);
    return j ? structuredClone(j) : undefined;
  }

  async forget(key: string): Promise<void> {
    this.jobs.delete(key);
  }

  async retry(key: string): Promise<void> {
    const j = this.jobs.get(key);
    if (!j || j.state !== 'failed') return;
    this.jobs.set(key, { ...j, state: 'queued', attempt: j.attempt + 1, result: undefined, progress: undefined, finishedAt: undefined });
  }

  // --- the agent's side ---
  private must(key: string): DataJob {
    const j = this.jobs.get(key);
    if (!j) throw new Error(`no job ${key}`);
    return j;
  }

  progress(key: string, p: DataJobProgress): void {
    const j = this.must(key);
    this.jobs.set(key, { ...j, state: 'running', startedAt: j.startedAt ?? new Date(), progress: p });
  }

  finish(key: string, result: DataJobResult): void {
    const j = this.must(key);
    this.jobs.set(key, { ...j, state: result.ok ? 'succeeded' : 'failed', startedAt: j.startedAt ?? new Date(), finishedAt: new Date(), result });
  }
}

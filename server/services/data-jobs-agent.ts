// The agent's side of data jobs and backup targets (backups-spec, "Agent <-> server"): an
// agent claims its node's data jobs under a lease, reports progress (which renews the
// lease and answers whether to stop) and the result; it reads the backup targets it must
// look at and reports what it saw. Every method refuses another node (403) before it reads
// anything, and validates the body with the contract's zod schemas (400, no stack).
import { z } from 'zod';
import { dataJobProgressSchema, dataJobSpecSchema, dataJobResultSchema, targetReportsSchema, type DataJobSpec } from '../contracts/data-jobs';
import { nodeMayActFor, type NodePrincipal } from '../domain/authorization';
import { StowageError } from '../domain/errors';
import { DataJobStore } from '../store/data-jobs';
import type { ObjectStore } from '../store/object-store';
import { TargetReports } from '../store/target-reports';

const INSTANCE_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** A data job's key: `<kind>/<name>` (`backup/<uid>`, `restore/<pvName>`), its kind one the contract knows. */
export const DATA_JOB_KEY_RE = new RegExp(`^(${dataJobSpecSchema.options.map((o) => o.shape.kind.value).join('|')})/[A-Za-z0-9][A-Za-z0-9._-]{0,511}$`);

const instance = z.string().regex(INSTANCE_RE, 'instance must be 1-64 letters, digits, ".", "_" or "-"');
const key = z.string().regex(DATA_JOB_KEY_RE, 'a data job key is <kind>/<name>');
const claimBody = z.object({ instance, running: z.array(key).max(1000).default([]), max: z.number().int().min(0).max(64).default(4), maxReplica: z.number().int().min(0).max(64).optional() });
const progressBody = z.object({ instance, progress: dataJobProgressSchema });
const resultBody = z.object({ instance, result: dataJobResultSchema });

export interface DataJobsAgentOptions {
  /** A running job's lease: progress must arrive within it (ms; default 20 s). */
  leaseMs?: number;
}

/** The backup targets every agent looks at: their names and paths (admins' BackupTarget objects). */
export type BackupTargetList = () => Promise<{ name: string; path: string }[]>;

const bad = (m: string) => new StowageError('BadRequest', m);

function parse<T>(schema: z.ZodType<T>, body: unknown, what: string): T {
  const r = schema.safeParse(body);
  if (r.success) return r.data;
  const first = r.error.issues[0];
  throw bad(`${what}: ${first ? `${first.path.join('.') || 'body'}: ${first.message}` : 'invalid'}`);
}

export class DataJobsAgentService {
  readonly jobs: DataJobStore;
  readonly reports: TargetReports;
  private readonly leaseMs: number;

  constructor(
    on: ObjectStore,
    private readonly targets: BackupTargetList,
    opts: DataJobsAgentOptions = {},
  ) {
    this.jobs = new DataJobStore(on);
    this.reports = new TargetReports(on);
    this.leaseMs = opts.leaseMs ?? 20_000;
  }

  private check(p: NodePrincipal, node: string): void {
    if (!nodeMayActFor(p, node)) throw new StowageError('Forbidden', `node "${p.nodeName}" may not act for node "${node}"`, { kind: 'nodes', name: node });
  }

  private checkKey(k: string): void {
    if (!DATA_JOB_KEY_RE.test(k)) throw new StowageError('NotFound', 'data job not found');
  }

  /** Renews the leases of what the instance runs, and hands it new jobs of its node. */
  async claim(p: NodePrincipal, node: string, body: unknown): Promise<{ jobs: { key: string; spec: DataJobSpec; attempt: number }[] }> {
    this.check(p, node);
    const b = parse(claimBody, body, 'data job claim');
    return { jobs: await this.jobs.claim(node, b.instance, this.leaseMs, b.max, b.running, b.maxReplica) };
  }

  async progress(p: NodePrincipal, node: string, jobKey: string, body: unknown): Promise<{ cancel: boolean }> {
    this.check(p, node);
    this.checkKey(jobKey);
    const b = parse(progressBody, body, 'data job progress');
    const r = await this.jobs.progress(jobKey, node, b.instance, b.progress, this.leaseMs);
    return { cancel: r.cancel };
  }

  /** The end of a run; `accepted` is false when the job was no longer this instance's. */
  async result(p: NodePrincipal, node: string, jobKey: string, body: unknown): Promise<{ accepted: boolean; state?: string }> {
    this.check(p, node);
    this.checkKey(jobKey);
    const b = parse(resultBody, body, 'data job result');
    const settled = await this.jobs.finish(jobKey, node, b.instance, b.result);
    return settled ? { accepted: true, state: settled.state } : { accepted: false };
  }

  async listTargets(p: NodePrincipal, node: string): Promise<{ targets: { name: string; path: string }[] }> {
    this.check(p, node);
    return { targets: await this.targets() };
  }

  /** The node's look at every target; targets it does not report lose its row. */
  async reportTargets(p: NodePrincipal, node: string, body: unknown): Promise<{ accepted: number }> {
    this.check(p, node);
    const b = parse(targetReportsSchema, body, 'backup target report');
    const names = new Set<string>();
    for (const t of b.targets) {
      if (names.has(t.name)) throw bad(`backup target report: target "${t.name}" is reported twice`);
      names.add(t.name);
    }
    await this.reports.save(node, b.targets);
    return { accepted: b.targets.length };
  }
}

// The agent's pool keeper: each pass it asks the server for its pools and the volumes to
// settle, brings each volume to what its intent record wants (a subvolume with its qgroup
// limit, or nothing), reports each result, and reports every pool: its figures, or why the
// path cannot serve (missing, not btrfs, no quotas), never skipping one. Guards first: a
// path that is not `<pool>/pvc-<uid>` of one of this node's pools is refused untouched.
// Each pool is looked at once per pass (its qgroups name the subvolumes' ids), so a pass
// over many volumes runs about the commands a hand-written loop would: create and limit.
// The agent learns of work at once: with nothing to do it asks with a wait, and the server
// answers as soon as a record of this node wants something (or when the pools are due).
import path from 'node:path';
import type { Logger } from 'pino';
import type { PoolReport, PoolVolumeDone, PoolVolumeWork, PoolWork } from '../contracts/agent';
import { isPoolVolumePath, poolProblem, poolVolumePath, type QgroupRow } from '../domain/btrfs-pool';
import type { PoolOs } from './pool-os';
import { inParallel } from '../domain/in-parallel';

export interface PoolApi {
  /** With `waitMs`, the server may hold the answer that long while no volume wants work. */
  poolWork(node: string, waitMs?: number): Promise<PoolWork>;
  poolVolumeDone(node: string, pvName: string, done: PoolVolumeDone): Promise<unknown>;
  /** Several results at once (one request per pass). */
  poolVolumesDone(node: string, results: (PoolVolumeDone & { pvName: string })[]): Promise<unknown>;
  poolReport(node: string, pools: PoolReport[]): Promise<unknown>;
}

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** What one look at a pool found: why it cannot serve, or its qgroups. */
type PoolState = { problem: string; rows?: undefined } | { problem?: undefined; rows: QgroupRow[] };

/** Volumes settled at once in a pass. */
const PARALLEL = 4;
/** The pools are looked at (figures, used bytes) this often; a pass with work does not wait for the next. */
export const LOOK_EVERY_MS = 2_000;
/** An unchanged pool report is sent again after this long. */
const REPORT_AGAIN_MS = 10_000;

const idByName = (rows: QgroupRow[] | undefined, name: string) => rows?.find((r) => r.path?.split('/').pop() === name)?.id;

export class PoolKeeper {
  private lastReport = '';
  private lastReportAt = 0;
  private lastLookAt = 0;
  private hadWork = false;

  /**
   * `root`: where this agent sees the host's `/` (an agent in a container with the host
   * mounted at /host, say); pool paths are the host's, as the class and the PV name them.
   */
  constructor(
    private readonly os: PoolOs,
    private readonly api: PoolApi,
    private readonly node: string,
    private readonly log: Logger,
    private readonly root = '',
  ) {}

  private at(p: string): string {
    return this.root ? path.posix.join(this.root, p) : p;
  }

  /**
   * One pass: ask for work (after a pass without any, waiting on the server until some
   * comes or the pools are due for a look), settle the volumes, report them in one request,
   * then report the pools when due (when changed, or now and then).
   */
  async pass(): Promise<{ worked: boolean }> {
    const due = this.lastLookAt + LOOK_EVERY_MS - Date.now();
    const work = await this.api.poolWork(this.node, this.hadWork || due <= 0 ? 0 : due);
    this.hadWork = work.volumes.length > 0;
    const states = new Map<string, Promise<PoolState>>();
    const stateOf = (pool: string) => {
      if (!states.has(pool)) states.set(pool, this.lookAt(pool));
      return states.get(pool)!;
    };
    const results: [PoolVolumeWork, PoolVolumeDone][] = [];
    await inParallel(work.volumes, PARALLEL, async (v) => {
      let done: PoolVolumeDone;
      try {
        done = await this.settle(work, v, await stateOf(v.pool));
      } catch (err) {
        this.log.warn({ pv: v.pvName, want: v.want, err: errorText(err) }, 'pool volume not settled; trying again');
        done = { state: 'failed', error: errorText(err) };
      }
      results.push([v, done]);
    });
    // The new subvolumes' ids, from one fresh look at each pool that got one.
    const made = new Set(results.filter(([, d]) => d.state === 'present' && !d.subvolumeId).map(([v]) => v.pool));
    for (const pool of made) states.set(pool, this.lookAt(pool));
    const reports: (PoolVolumeDone & { pvName: string })[] = [];
    for (const [v, done] of results) {
      const id = done.state === 'present' ? (done.subvolumeId ?? idByName((await states.get(v.pool))?.rows, v.pvName)) : undefined;
      reports.push({ pvName: v.pvName, ...done, ...(id ? { subvolumeId: id } : {}) });
    }
    if (reports.length > 0) await this.api.poolVolumesDone(this.node, reports);
    const worked = { worked: this.hadWork };
    if (Date.now() - this.lastLookAt < LOOK_EVERY_MS) return worked;
    this.lastLookAt = Date.now();
    const pools = await Promise.all(work.pools.map(async (p) => this.report(p.className, p.path, await (made.has(p.path) ? states.get(p.path)! : this.lookAt(p.path)))));
    const text = JSON.stringify(pools);
    if (text === this.lastReport && Date.now() - this.lastReportAt < REPORT_AGAIN_MS) return worked;
    await this.api.poolReport(this.node, pools);
    this.lastReport = text;
    this.lastReportAt = Date.now();
    return worked;
  }

  /** Brings one volume to its wanted state; idempotent, so a pass cut short is simply run again. */
  async settle(work: PoolWork, v: PoolVolumeWork, state?: PoolState): Promise<PoolVolumeDone> {
    if (!work.pools.some((p) => p.path === v.pool) || !isPoolVolumePath(v.pool, v.path) || v.path !== poolVolumePath(v.pool, v.pvName)) {
      throw new Error(`refusing ${v.path}: not a volume of a pool of node "${this.node}"`);
    }
    const pool = state ?? (await this.lookAt(v.pool));
    if (pool.problem) throw new Error(`pool ${v.pool}: ${pool.problem}`);
    const at = this.at(v.path);
    const exists = await this.os.isSubvolume(at);
    if (v.want === 'absent') {
      const id = exists ? (idByName(pool.rows, v.pvName) ?? (await this.os.subvolumeId(at))) : v.subvolumeId;
      if (id !== undefined) await this.os.deleteSubvolume(this.at(v.pool), at, id);
      this.log.info({ pv: v.pvName, path: v.path }, 'subvolume removed');
      return { state: 'absent' };
    }
    if (!exists) {
      if (v.from === undefined) await this.os.createSubvolume(at);
      else if (!isPoolVolumePath(v.pool, v.from)) throw new Error(`refusing to snapshot ${v.from}: not a volume of pool ${v.pool}`);
      else await this.os.snapshotSubvolume(this.at(v.from), at, v.readOnly === true);
    }
    // A read-only snapshot has no limit of its own: it never grows.
    if (!v.readOnly) await this.os.limit(at, BigInt(v.limitBytes));
    this.log.debug({ pv: v.pvName, path: v.path, limit: v.limitBytes }, exists ? 'subvolume limit set' : 'subvolume created');
    const id = exists ? idByName(pool.rows, v.pvName) : undefined;
    return { state: 'present', limitBytes: v.limitBytes, ...(id ? { subvolumeId: id } : {}) };
  }

  /** One look at a pool: why it cannot serve, or its qgroups. */
  private async lookAt(logical: string): Promise<PoolState> {
    const p = this.at(logical);
    try {
      const seen = await this.os.look(p);
      if (!seen.exists || !seen.isDirectory || seen.fsType !== 'btrfs') return { problem: poolProblem(seen)! };
      try {
        return { rows: await this.os.qgroups(p) };
      } catch (err) {
        return { problem: poolProblem({ ...seen, quotas: false, quotaError: errorText(err) })! };
      }
    } catch (err) {
      return { problem: errorText(err) };
    }
  }

  /** One pool's report: figures and used bytes per volume, or the reason it cannot serve. */
  async look(className: string, logical: string): Promise<PoolReport> {
    return this.report(className, logical, await this.lookAt(logical));
  }

  private async report(className: string, logical: string, state: PoolState): Promise<PoolReport> {
    if (state.problem) return { className, path: logical, usable: false, reason: state.problem };
    try {
      const st = await this.os.statfs(this.at(logical));
      const usedBytes: Record<string, string> = {};
      for (const r of state.rows!) {
        const name = r.path?.split('/').pop();
        if (name?.startsWith('pvc-')) usedBytes[name] = String(r.referencedBytes);
      }
      return { className, path: logical, usable: true, totalBytes: String(st.totalBytes), freeBytes: String(st.availableBytes), usedBytes };
    } catch (err) {
      return { className, path: logical, usable: false, reason: errorText(err) };
    }
  }
}

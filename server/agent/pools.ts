// The agent's pool keeper: each pass it asks the server for its pools and the volumes to
// settle, brings each volume to what its intent record wants (a subvolume with its qgroup
// limit, or nothing), reports each result, and reports every pool: its figures, or why the
// path cannot serve (missing, not btrfs, no quotas), never skipping one. Guards first: a
// path that is not `<pool>/pvc-<uid>` of one of this node's pools is refused untouched.
import path from 'node:path';
import type { Logger } from 'pino';
import type { PoolReport, PoolVolumeDone, PoolVolumeWork, PoolWork } from '../contracts/agent';
import { isPoolVolumePath, poolProblem, poolVolumePath } from '../domain/btrfs-pool';
import type { PoolOs } from './pool-os';

export interface PoolApi {
  poolWork(node: string): Promise<PoolWork>;
  poolVolumeDone(node: string, pvName: string, done: PoolVolumeDone): Promise<unknown>;
  poolReport(node: string, pools: PoolReport[]): Promise<unknown>;
}

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));

export class PoolKeeper {
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

  /** One pass: settle the volumes, then report the pools. */
  async pass(): Promise<void> {
    const work = await this.api.poolWork(this.node);
    for (const v of work.volumes) {
      let done: PoolVolumeDone;
      try {
        done = await this.settle(work, v);
      } catch (err) {
        this.log.warn({ pv: v.pvName, want: v.want, err: errorText(err) }, 'pool volume not settled; trying again');
        done = { state: 'failed', error: errorText(err) };
      }
      await this.api.poolVolumeDone(this.node, v.pvName, done);
    }
    await this.api.poolReport(this.node, await Promise.all(work.pools.map((p) => this.look(p.className, p.path))));
  }

  /** Brings one volume to its wanted state; idempotent, so a pass cut short is simply run again. */
  async settle(work: PoolWork, v: PoolVolumeWork): Promise<PoolVolumeDone> {
    if (!work.pools.some((p) => p.path === v.pool) || !isPoolVolumePath(v.pool, v.path) || v.path !== poolVolumePath(v.pool, v.pvName)) {
      throw new Error(`refusing ${v.path}: not a volume of a pool of node "${this.node}"`);
    }
    const problem = await this.problemOf(v.pool);
    if (problem) throw new Error(`pool ${v.pool}: ${problem}`);
    const at = this.at(v.path);
    const id = await this.os.subvolumeId(at);
    if (v.want === 'absent') {
      const known = id ?? v.subvolumeId;
      if (known !== undefined) await this.os.deleteSubvolume(this.at(v.pool), at, known);
      this.log.info({ pv: v.pvName, path: v.path }, 'subvolume removed');
      return { state: 'absent' };
    }
    const limit = BigInt(v.limitBytes);
    if (id === undefined) await this.os.createSubvolume(at);
    await this.os.limit(at, limit);
    const made = id ?? (await this.os.subvolumeId(at));
    this.log.info({ pv: v.pvName, path: v.path, limit: v.limitBytes }, id === undefined ? 'subvolume created' : 'subvolume limit set');
    return { state: 'present', limitBytes: v.limitBytes, ...(made ? { subvolumeId: made } : {}) };
  }

  private async problemOf(logical: string): Promise<string | undefined> {
    const pool = this.at(logical);
    const seen = await this.os.look(pool);
    if (!seen.exists || !seen.isDirectory || seen.fsType !== 'btrfs') return poolProblem(seen);
    try {
      await this.os.qgroups(pool);
      return undefined;
    } catch (err) {
      return poolProblem({ ...seen, quotas: false, quotaError: errorText(err) });
    }
  }

  /** One pool's report: figures and used bytes per volume, or the reason it cannot serve. */
  async look(className: string, path: string): Promise<PoolReport> {
    const at = this.at(path);
    try {
      const seen = await this.os.look(at);
      let rows;
      if (seen.exists && seen.isDirectory && seen.fsType === 'btrfs') {
        try {
          rows = await this.os.qgroups(at);
        } catch (err) {
          return { className, path, usable: false, reason: poolProblem({ ...seen, quotas: false, quotaError: errorText(err) }) };
        }
      }
      if (!rows) return { className, path, usable: false, reason: poolProblem(seen) };
      const st = await this.os.statfs(at);
      const usedBytes: Record<string, string> = {};
      for (const r of rows) {
        const name = r.path?.split('/').pop();
        if (name?.startsWith('pvc-')) usedBytes[name] = String(r.referencedBytes);
      }
      return { className, path, usable: true, totalBytes: String(st.totalBytes), freeBytes: String(st.availableBytes), usedBytes };
    } catch (err) {
      return { className, path, usable: false, reason: errorText(err) };
    }
  }
}

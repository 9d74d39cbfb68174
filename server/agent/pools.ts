// The agent's pool keeper: each pass it asks the server for its pools and the volumes to
// settle, brings each volume to what its intent record wants (a subvolume with its qgroup
// limit, or nothing), reports each result, and reports every pool: its figures, or why the
// path cannot serve (missing, not btrfs, no quotas), never skipping one. Guards first: a
// path that is not `<pool>/pvc-<uid>` of one of this node's pools is refused untouched; a
// volume is made from another volume of the pool, or (a replica's promotion) from one of
// its own replication snapshots `<pool>/.stowage-replicas/<pv>/snap-<seq>`.
// Each pool is looked at once per pass (its qgroups name the subvolumes' ids), so a pass
// over many volumes runs about the commands a hand-written loop would: create and limit.
// The agent learns of work at once: with nothing to do it asks with a wait, and the server
// answers as soon as a record of this node wants something (or when the pools are due).
import type { Logger } from 'pino';
import type { PoolReport, PoolVolumeDone, PoolVolumeWork, PoolWork } from '../contracts/agent';
import { isPoolVolumePath, poolProblem, poolVolumePath, type QgroupRow } from '../domain/btrfs-pool';
import { isReplicaSnapshotPath } from '../domain/replication-paths';
import type { PoolOs } from './pool-os';
import { limiter } from '../domain/in-parallel';
import { seenFrom } from './host-root';

export interface PoolApi {
  /**
   * With `waitMs`, the server may hold the answer that long while no volume wants work, or
   * (with `seen`, the version of a list it answered) while the list is still that one.
   */
  poolWork(node: string, waitMs?: number, seen?: string): Promise<PoolWork>;
  poolVolumeDone(node: string, pvName: string, done: PoolVolumeDone): Promise<unknown>;
  /** Several results at once (one request per pass). */
  poolVolumesDone(node: string, results: (PoolVolumeDone & { pvName: string })[]): Promise<unknown>;
  poolReport(node: string, pools: PoolReport[]): Promise<unknown>;
}

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** What one look at a pool found: why it cannot serve, or its qgroups. */
type PoolState = { problem: string; rows?: undefined } | { problem?: undefined; rows: QgroupRow[] };

/** A volume settled (or not), waiting for its result to be sent. */
interface Settled {
  work: PoolVolumeWork;
  done: PoolVolumeDone;
  sent(error?: unknown): void;
}

/** Volumes settled at once. */
const PARALLEL = 8;
/** The pools are looked at (figures, used bytes) this often; a pass with work does not wait for the next. */
export const LOOK_EVERY_MS = 2_000;
/** An unchanged pool report is sent again after this long. */
const REPORT_AGAIN_MS = 10_000;

/**
 * A replica's promotion: the volume made writable from one of its own replication snapshots
 * (the last one this node received), never another volume's.
 */
const isPromotion = (v: PoolVolumeWork) => v.from !== undefined && !v.readOnly && isReplicaSnapshotPath(v.pool, v.from, v.pvName);

const idByName = (rows: QgroupRow[] | undefined, name: string) => rows?.find((r) => r.path?.split('/').pop() === name)?.id;

export class PoolKeeper {
  private lastReport = '';
  private lastReportAt = 0;
  private lastLookAt = 0;
  private hadWork = false;
  /** Each pool as last looked at, and when. */
  private readonly seen = new Map<string, { state: PoolState; at: number }>();
  /** Volumes being settled or reported: an answer that names them again does not start them twice. */
  private readonly inHand = new Set<string>();
  /** Results waiting to be sent; one request at a time carries all that are waiting. */
  private readonly settled: Settled[] = [];
  private sending = false;
  /** Volumes settled at once, across answers. */
  private readonly settling = limiter(PARALLEL);

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
    return seenFrom(this.root, p);
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
    await this.take(work, { together: true });
    await this.lookIfDue(work);
    return { worked: this.hadWork };
  }

  /**
   * Pool work as a stream, until `signal` aborts: each volume is settled as soon as an
   * answer names it (up to PARALLEL at once) and its result sent as soon as it is settled
   * (results settled meanwhile go together), while the next ask already waits on the
   * server for a list other than the one in hand. So a volume heard of in the middle of
   * another's work does not wait for a whole pass. `pauseMs`: the least time between asks
   * answered at once with nothing new (a server that does not hold them).
   */
  async run(signal: AbortSignal, pauseMs: number): Promise<void> {
    let version: string | undefined;
    const taking = new Set<Promise<void>>();
    let looking: Promise<void> | undefined;
    while (!signal.aborted) {
      const began = Date.now();
      let news = false;
      try {
        const due = Math.max(0, this.lastLookAt + LOOK_EVERY_MS - Date.now());
        const work = await this.api.poolWork(this.node, due, version);
        // A server that keeps no versions is asked again only after pauseMs.
        news = work.version !== undefined && work.version !== version;
        version = work.version;
        const took = this.take(work, { together: false })
          .catch((err) => {
            if (!signal.aborted) this.log.warn({ err: errorText(err), what: 'pools' }, 'pool results not sent; trying again');
          })
          .finally(() => taking.delete(took));
        taking.add(took);
        // The pools' look and report run beside the asks: a report (many volumes' usage
        // written on the server) must not hold up hearing of new volumes.
        if (!looking) {
          looking = this.lookIfDue(work)
            .catch((err) => {
              if (!signal.aborted) this.log.warn({ err: errorText(err), what: 'pools' }, 'pool report failed; trying again');
            })
            .finally(() => (looking = undefined));
        }
      } catch (err) {
        if (!signal.aborted) this.log.warn({ err: errorText(err), what: 'pools' }, 'agent step failed; trying again');
      }
      const rest = news ? 0 : pauseMs - (Date.now() - began);
      if (rest > 0 && !signal.aborted) await new Promise<void>((r) => setTimeout(r, rest));
    }
    // Work begun is finished (each step is short and idempotent), as a pass was.
    await Promise.all([...taking, looking]);
  }

  /**
   * Settles the volumes of an answer not in hand already; resolves once their results are
   * sent. `together`: one request for all of them (a pass), else each as it is done.
   */
  private async take(work: PoolWork, o: { together: boolean }): Promise<void> {
    const fresh = work.volumes.filter((v) => !this.inHand.has(v.pvName));
    for (const v of fresh) this.inHand.add(v.pvName);
    // Work that only makes volumes (or sets limits) takes a usable pool as the last look
    // found it, if that was recent: a pool gone bad since fails the commands, which are
    // reported and run again. A removal always looks afresh (it needs the ids now).
    const removes = new Set(fresh.filter((v) => v.want === 'absent').map((v) => v.pool));
    const states = new Map<string, Promise<PoolState>>();
    const stateOf = (pool: string) => {
      const seen = this.seen.get(pool);
      const recent = seen && !seen.state.problem && !removes.has(pool) && Date.now() - seen.at < LOOK_EVERY_MS;
      if (!states.has(pool)) states.set(pool, recent ? Promise.resolve(seen.state) : this.lookAt(pool));
      return states.get(pool)!;
    };
    const settleOne = (v: PoolVolumeWork): Promise<PoolVolumeDone> =>
      this.settling(async () => {
        try {
          return await this.settle(work, v, await stateOf(v.pool));
        } catch (err) {
          this.log.warn({ pv: v.pvName, want: v.want, err: errorText(err) }, 'pool volume not settled; trying again');
          return { state: 'failed', error: errorText(err) };
        }
      });
    if (o.together) {
      const done = await Promise.all(fresh.map(settleOne));
      await Promise.all(fresh.map((v, i) => this.send(v, done[i])));
    } else {
      await Promise.all(fresh.map(async (v) => this.send(v, await settleOne(v))));
    }
  }

  /** Queues one result; resolves once a request carrying it has been answered (the volume is out of hand then). */
  private send(work: PoolVolumeWork, done: PoolVolumeDone): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- passes on the batch's caught error unchanged
      this.settled.push({ work, done, sent: (err) => (this.inHand.delete(work.pvName), err === undefined ? resolve() : reject(err)) });
      if (!this.sending) void this.sendWaiting();
    });
  }

  /** Sends every waiting result, one request at a time, with the ids of new subvolumes from one fresh look per pool. */
  private async sendWaiting(): Promise<void> {
    this.sending = true;
    try {
      while (this.settled.length > 0) {
        // Results settled while this request is out wait for the next one.
        await Promise.resolve();
        const batch = this.settled.splice(0);
        let error: unknown;
        try {
          const made = new Set(batch.filter((s) => s.done.state === 'present' && !s.done.subvolumeId).map((s) => s.work.pool));
          const looks = new Map<string, PoolState>();
          for (const pool of made) looks.set(pool, await this.lookAt(pool));
          const reports = batch.map(({ work: v, done }) => {
            const id = done.state === 'present' ? (done.subvolumeId ?? idByName(looks.get(v.pool)?.rows, v.pvName)) : undefined;
            return { pvName: v.pvName, ...done, ...(id ? { subvolumeId: id } : {}) };
          });
          await this.api.poolVolumesDone(this.node, reports);
        } catch (err) {
          error = err;
        }
        for (const s of batch) s.sent(error);
      }
    } finally {
      this.sending = false;
    }
  }

  /** Looks at the pools and reports them when due (when changed, or now and then). */
  private async lookIfDue(work: PoolWork): Promise<void> {
    if (Date.now() - this.lastLookAt < LOOK_EVERY_MS) return;
    this.lastLookAt = Date.now();
    const pools = await Promise.all(work.pools.map(async (p) => this.report(p.className, p.path, await this.lookAt(p.path))));
    const text = JSON.stringify(pools);
    if (text === this.lastReport && Date.now() - this.lastReportAt < REPORT_AGAIN_MS) return;
    await this.api.poolReport(this.node, pools);
    this.lastReport = text;
    this.lastReportAt = Date.now();
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
    let made: string | undefined;
    if (!exists && v.from === undefined && !v.readOnly && this.os.createLimited) {
      // A new empty volume: made and limited in one step, with others asked for meanwhile.
      made = await this.os.createLimited(at, BigInt(v.limitBytes));
    } else {
      if (!exists) {
        if (v.from === undefined) await this.os.createSubvolume(at);
        else if (!isPoolVolumePath(v.pool, v.from) && !isPromotion(v)) throw new Error(`refusing to snapshot ${v.from}: not a volume of pool ${v.pool}, nor a replication snapshot of ${v.pvName}`);
        else await this.os.snapshotSubvolume(this.at(v.from), at, v.readOnly === true);
      } else {
        // Made before, perhaps by a step cut short: its owner's only, and read-only when it should be.
        await this.os.secure(at, v.readOnly === true);
      }
      // A read-only snapshot has no limit of its own: it never grows.
      if (!v.readOnly) await this.os.limit(at, BigInt(v.limitBytes));
    }
    this.log.debug({ pv: v.pvName, path: v.path, limit: v.limitBytes }, exists ? 'subvolume limit set' : 'subvolume created');
    const id = exists ? idByName(pool.rows, v.pvName) : made;
    return { state: 'present', limitBytes: v.limitBytes, ...(id ? { subvolumeId: id } : {}) };
  }

  /** One look at a pool: why it cannot serve, or its qgroups. */
  private async lookAt(logical: string): Promise<PoolState> {
    const at = Date.now();
    const state = await this.lookAtNow(logical);
    this.seen.set(logical, { state, at });
    return state;
  }

  private async lookAtNow(logical: string): Promise<PoolState> {
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
      const filesystem = { blockSize: String(st.blockSize), blocks: String(st.blocks), availableBlocks: String(st.availableBlocks) };
      return { className, path: logical, usable: true, totalBytes: String(st.totalBytes), freeBytes: String(st.availableBytes), filesystem, usedBytes };
    } catch (err) {
      return { className, path: logical, usable: false, reason: errorText(err) };
    }
  }
}

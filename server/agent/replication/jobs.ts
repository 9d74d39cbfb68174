// The agent's replication jobs (contracts/data-jobs.ts, replica-*): the primary's
// `replica-send` takes a read-only snapshot of the volume and streams it (or its
// difference from the parent the replica holds) to the receiver; the replica's
// `replica-receive` waits for that sender on the listener and `btrfs receive`s it;
// `replica-remove` fences a stale writable copy and drops snapshots. Guards first: every
// path must be the volume's own (rules.ts), else the job is refused untouched. Every step
// is idempotent, so a job cut short is simply run again: a complete snapshot is kept, a
// half-made one deleted and made again.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { TLSSocket } from 'node:tls';
import type { DataJobResult, DataJobSpec, ReplicaTransfer } from '../../contracts/data-jobs';
import { poolVolumePath } from '../../domain/btrfs-pool';
import { replicaSnapshotDir } from '../../domain/replication-paths';
import type { MoverProgress } from '../backup/backup';
import { realPoolOs } from '../pool-os';
import { sleep } from '../../domain/sleep';
import type { ReplicationListener } from './listener';
import { headerMismatch, parseHeader } from './protocol';
import { btrfs, checkPool, deleteSnapshot, ensureFolder, pruneFolder, referencedBytes, snapshotState } from './replica-fs';
import { replicaJobRefusal, seqOf } from './rules';
import { connect, streamReceive, streamSend } from './transfer';
import { seenFrom } from '../host-root';

type Spec<K extends DataJobSpec['kind']> = Extract<DataJobSpec, { kind: K }>;
export type ReplicaJobSpec = Spec<'replica-send'> | Spec<'replica-receive'> | Spec<'replica-remove'>;

export interface ReplicaJobsOptions {
  /** Where this agent sees the host's `/` (the agent's poolRoot; '' on the host). */
  poolRoot?: string;
  /** The node's listener: without it, receive jobs fail (retryable) and only send and remove run. */
  listener?: ReplicationListener;
  log: Logger;
  /** The btrfs binary the streams run (default `btrfs`). */
  btrfsBin?: string;
  /**
   * How long a sender keeps trying to connect (ms, default 15 s): the two jobs of a transfer
   * are queued together, and the receiver may not be listening for it yet (a refused
   * handshake looks the same as a wrong key, so it is tried again too, until then).
   */
  connectWithinMs?: number;
}

const dec = (v: bigint) => v.toString();
const refused = (error: string): DataJobResult => ({ ok: false, error, retryable: false });

export class ReplicaJobs {
  /** The steps that change a volume's folder run one job at a time per volume (two replicas' sends of one seq share a snapshot). */
  private readonly folderLocks = new Map<string, Promise<unknown>>();

  constructor(private readonly o: ReplicaJobsOptions) {}

  private at(p: string): string {
    return seenFrom(this.o.poolRoot, p);
  }

  async run(spec: ReplicaJobSpec, onProgress: (p: MoverProgress) => void, signal: AbortSignal): Promise<DataJobResult> {
    const why = replicaJobRefusal(spec);
    if (why) return refused(`refusing ${spec.kind} of ${spec.pvName}: ${why}`);
    await checkPool(this.at(spec.pool));
    switch (spec.kind) {
      case 'replica-send':
        return this.send(spec, onProgress, signal);
      case 'replica-receive':
        return this.receive(spec, onProgress, signal);
      case 'replica-remove':
        return this.locked(spec.pool, spec.pvName, () => this.remove(spec));
    }
  }

  private async locked<T>(pool: string, pvName: string, fn: () => Promise<T>): Promise<T> {
    const key = `${pool}\0${pvName}`;
    const before = this.folderLocks.get(key) ?? Promise.resolve();
    const mine = before.catch(() => {}).then(fn);
    this.folderLocks.set(key, mine);
    try {
      return await mine;
    } finally {
      if (this.folderLocks.get(key) === mine) this.folderLocks.delete(key);
    }
  }

  private async send(spec: Spec<'replica-send'>, onProgress: (p: MoverProgress) => void, signal: AbortSignal): Promise<DataJobResult> {
    const poolAt = this.at(spec.pool);
    const snapAt = this.at(spec.snapshotPath);
    const parentAt = spec.parentPath !== undefined ? this.at(spec.parentPath) : undefined;
    const prepared = await this.locked(spec.pool, spec.pvName, async (): Promise<DataJobResult | undefined> => {
      const volAt = this.at(spec.volumePath);
      if (!(await realPoolOs.isSubvolume(volAt))) return refused(`volume ${spec.pvName} is not on this node (${spec.volumePath})`);
      const dir = replicaSnapshotDir(spec.pool, spec.pvName);
      await ensureFolder(this.at(dir));
      await pruneFolder(poolAt, this.at(dir), dir, [...spec.keep, spec.snapshotPath, ...(spec.parentPath ? [spec.parentPath] : [])]);
      if (parentAt !== undefined) {
        const p = await snapshotState(parentAt);
        if (!p.exists || !p.readOnly) return { ok: false, error: `parent ${spec.parentPath} is not on this node: the next transfer must be a full one`, retryable: false, parentMissing: true };
      }
      const s = await snapshotState(snapAt);
      if (s.exists && s.readOnly) return undefined; // taken before (by this job cut short, or another replica's)
      if (s.exists) await deleteSnapshot(poolAt, snapAt); // half-made
      await btrfs(['subvolume', 'snapshot', '-r', volAt, snapAt]);
      return undefined;
    });
    if (prepared) return prepared;
    const estimate = spec.parentPath ? 0n : ((await referencedBytes(poolAt, spec.pvName)) ?? 0n);
    const progress = (done: bigint) => onProgress({ doneBytes: done, totalBytes: done > estimate ? done : estimate, newBytes: done });
    progress(0n);
    const socket = await this.connectSoon(spec.receiver.endpoint, spec.transfer, signal);
    const bytes = await streamSend({
      socket,
      header: { pvName: spec.pvName, seq: spec.seq, parentSeq: spec.parentPath ? seqOf(spec.parentPath) : null, epoch: spec.epoch },
      snapshot: snapAt,
      ...(parentAt ? { parent: parentAt } : {}),
      signal,
      onBytes: progress,
      btrfsBin: this.o.btrfsBin,
    });
    this.o.log.info({ pv: spec.pvName, seq: spec.seq, parent: spec.parentPath ? seqOf(spec.parentPath) : null, bytes: dec(bytes), to: spec.receiver.node }, 'replication snapshot sent');
    return { ok: true, doneBytes: dec(bytes), totalBytes: dec(bytes) };
  }

  /** Connects, trying again (250 ms, doubling to 2 s) until connectWithinMs has passed. */
  private async connectSoon(endpoint: string, t: ReplicaTransfer, signal: AbortSignal): Promise<TLSSocket> {
    const deadline = Date.now() + (this.o.connectWithinMs ?? 15_000);
    for (let wait = 250; ; wait = Math.min(2 * wait, 2_000)) {
      try {
        return await connect(endpoint, t, signal);
      } catch (e) {
        if (signal.aborted || Date.now() + wait > deadline) throw e;
      }
      await sleep(wait, signal);
    }
  }

  private async receive(spec: Spec<'replica-receive'>, onProgress: (p: MoverProgress) => void, signal: AbortSignal): Promise<DataJobResult> {
    const listener = this.o.listener;
    if (!listener) return { ok: false, error: `this node's agent has no replication listener (stowage agent --replication-listen)`, retryable: true };
    const poolAt = this.at(spec.pool);
    const dir = replicaSnapshotDir(spec.pool, spec.pvName);
    const dirAt = this.at(dir);
    const snapAt = this.at(spec.snapshotPath);
    const keep = [...spec.keep, spec.snapshotPath];
    const prepared = await this.locked(spec.pool, spec.pvName, async (): Promise<DataJobResult | undefined> => {
      await ensureFolder(dirAt);
      const s = await snapshotState(snapAt);
      if (s.exists && s.readOnly && s.received) {
        // Received before (its result report was lost): done.
        await pruneFolder(poolAt, dirAt, dir, keep);
        return { ok: true, doneBytes: '0', totalBytes: '0' };
      }
      if (s.exists) await deleteSnapshot(poolAt, snapAt); // a partial receive
      if (spec.parentPath !== undefined) {
        const p = await snapshotState(this.at(spec.parentPath));
        // The parent is one this node received, or (a fenced copy resyncing from the replica it
        // fed) one it took itself and sent: btrfs receive finds it by its received UUID or its own.
        if (!p.exists || !p.readOnly) return { ok: false, error: `parent ${spec.parentPath} is not on this node: the next transfer must be a full one`, retryable: false, parentMissing: true };
      }
      return undefined;
    });
    if (prepared) return prepared;
    const arrival = await listener.expect(spec.transfer, spec.waitSeconds * 1000, signal);
    const { socket } = arrival;
    const want = { pvName: spec.pvName, seq: spec.seq, parentSeq: spec.parentPath ? seqOf(spec.parentPath) : null, epoch: spec.epoch };
    const parsed = parseHeader(arrival.headerLine);
    const mismatch = parsed.ok ? headerMismatch(parsed.header, want) : parsed.reason;
    if (mismatch) {
      socket.end(`NO ${mismatch}\n`);
      setTimeout(() => socket.destroy(), 1_000).unref();
      return { ok: false, error: `the sender's transfer does not match this job: ${mismatch}`, retryable: true };
    }
    try {
      const bytes = await streamReceive({
        socket,
        folder: dirAt,
        signal,
        onBytes: (n) => onProgress({ doneBytes: n, totalBytes: n, newBytes: n }),
        btrfsBin: this.o.btrfsBin,
        check: async () => {
          const s = await snapshotState(snapAt);
          return s.exists && s.readOnly && s.received ? undefined : `the stream did not make ${spec.snapshotPath}`;
        },
      });
      await this.locked(spec.pool, spec.pvName, () => pruneFolder(poolAt, dirAt, dir, keep));
      this.o.log.info({ pv: spec.pvName, seq: spec.seq, bytes: dec(bytes), from: spec.sender.node }, 'replication snapshot received');
      return { ok: true, doneBytes: dec(bytes), totalBytes: dec(bytes) };
    } catch (e) {
      // Nothing half-received stays: the next attempt starts clean either way.
      await this.locked(spec.pool, spec.pvName, async () => {
        const s = await snapshotState(snapAt);
        if (s.exists && !(s.readOnly && s.received)) await deleteSnapshot(poolAt, snapAt);
      }).catch((err) => this.o.log.warn({ pv: spec.pvName, err: (err as Error).message }, 'could not delete a partial receive; the next attempt will'));
      throw e;
    }
  }

  private async remove(spec: Spec<'replica-remove'>): Promise<DataJobResult> {
    const poolAt = this.at(spec.pool);
    if (spec.removeVolume) {
      await deleteSnapshot(poolAt, this.at(poolVolumePath(spec.pool, spec.pvName)));
      this.o.log.info({ pv: spec.pvName, epoch: spec.epoch }, 'stale writable copy removed');
    }
    if (!spec.keepSnapshots) {
      const dirAt = this.at(replicaSnapshotDir(spec.pool, spec.pvName));
      let names: string[] = [];
      try {
        names = await fs.readdir(dirAt);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
      for (const n of names) {
        const p = path.join(dirAt, n);
        if (await realPoolOs.isSubvolume(p).catch(() => false)) await deleteSnapshot(poolAt, p);
      }
      await fs.rmdir(dirAt).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== 'ENOENT') throw new Error(`could not remove ${replicaSnapshotDir(spec.pool, spec.pvName)}: ${e.code === 'ENOTEMPTY' ? 'it holds something that is not a snapshot' : e.message}`);
      });
    }
    return { ok: true, doneBytes: '0', totalBytes: '0' };
  }
}

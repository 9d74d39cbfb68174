// Replication between two nodes on real btrfs: two loop-mounted pools, each seen by its
// own agent through a pool root (so both call their pool `/pool`, as a class does), one
// listener on the replica's side, and the jobs run through each node's DataJobRunner over
// an in-memory job queue. A full send, then an incremental one (far fewer bytes); a wrong
// key or an unknown transfer is refused and nothing lands; a missing parent fails at once
// with parentMissing; a sender that dies mid-stream leaves no partial snapshot, and one that
// comes before its receiver listens tries again and gets through; a promotion
// through the PoolKeeper gives a writable volume with the data; replica-remove fences the
// writable copy and keeps or drops the snapshots.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DataJobResult, DataJobSpec } from '../../contracts/data-jobs';
import { replicaSnapshotDir, replicaSnapshotPath } from '../../domain/replication-paths';
import { releaseAndWarn } from '../../provisioners/testing';
import { treeDigest, until } from '../backup/testing';
import type { DataJobApi } from '../agent-client';
import { DataJobRunner, type DataMover } from '../data-job-runner';
import { createPool, poolSupport } from '../pool-setup';
import { realPoolOs } from '../pool-os';
import { PoolKeeper, type PoolApi } from '../pools';
import { ReplicaJobs } from './jobs';
import { ReplicationListener } from './listener';
import { encodeHeader, Framer } from './protocol';
import { connect } from './transfer';

const run = promisify(execFile);
const support = await poolSupport();
if (!support.ok) console.log(`[skip] replication on btrfs: ${support.reason}`);

const log = pino({ level: process.env.TEST_LOG ?? 'silent' });
const PV = 'pvc-0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';
const POOL = '/pool';
const snap = (seq: number) => replicaSnapshotPath(POOL, PV, seq);
const key = () => randomBytes(32).toString('hex');

/** A job queue in memory: what a node's runner claims, and the results it reports. */
class MemoryJobs implements DataJobApi {
  private readonly queued: { key: string; spec: DataJobSpec; attempt: number }[] = [];
  readonly results = new Map<string, DataJobResult>();
  readonly progress = new Map<string, { doneBytes: string; totalBytes: string }>();
  add(k: string, spec: DataJobSpec): void {
    this.queued.push({ key: k, spec, attempt: 1 });
  }
  async claimDataJobs(_node: string, body: { max: number }) {
    return { jobs: this.queued.splice(0, body.max) };
  }
  async dataJobProgress(_node: string, k: string, body: { progress: { doneBytes: string; totalBytes: string } }) {
    this.progress.set(k, body.progress);
    return { cancel: false };
  }
  async dataJobResult(_node: string, k: string, body: { result: DataJobResult }) {
    this.results.set(k, body.result);
    return { accepted: true };
  }
  async backupTargets() {
    return { targets: [] };
  }
  async reportBackupTargets() {
    return { accepted: 0 };
  }
  async result(k: string, timeoutMs = 60_000): Promise<DataJobResult> {
    await until(`result of ${k}`, () => this.results.has(k), timeoutMs);
    return this.results.get(k)!;
  }
}

const noMover = {} as DataMover; // replica jobs never reach the data mover

describe.runIf(support.ok)('replication between two btrfs pools', () => {
  let work: string;
  let rootA: string;
  let rootB: string;
  let listener: ReplicationListener;
  /** Handshakes the listener refused (its debug log). */
  let refusedHandshakes = 0;
  const queue = { a: new MemoryJobs(), b: new MemoryJobs() };
  const runners: DataJobRunner[] = [];
  let jobsB: ReplicaJobs;
  let n = 0;

  beforeAll(async () => {
    work = await fs.mkdtemp(path.join(os.tmpdir(), 'stowage-replication-'));
    rootA = path.join(work, 'a');
    rootB = path.join(work, 'b');
    for (const r of [rootA, rootB]) await createPool({ source: `${r}.img`, mount: path.join(r, POOL), sizeBytes: 1n << 30n });
    const counting = pino({ level: 'debug' }, { write: (line: string) => void (line.includes('replication connection refused') && refusedHandshakes++) });
    listener = new ReplicationListener({ listen: '127.0.0.1:0', log: counting, headerTimeoutMs: 2_000 });
    await listener.start();
    const jobsA = new ReplicaJobs({ poolRoot: rootA, log, connectWithinMs: 5_000 });
    jobsB = new ReplicaJobs({ poolRoot: rootB, listener, log });
    for (const [node, api, replicaJobs] of [['a', queue.a, jobsA], ['b', queue.b, jobsB]] as const) {
      const r = new DataJobRunner({ api, mover: noMover, node, instance: `agent-${node}`, log, claimMs: 20, progressIntervalMs: 100, poolRoot: node === 'a' ? rootA : rootB, replicaJobs });
      r.start();
      runners.push(r);
    }
    await run('btrfs', ['subvolume', 'create', path.join(rootA, POOL, PV)]);
    await fs.chmod(path.join(rootA, POOL, PV), 0o700);
  });
  afterAll(async () => {
    await Promise.all(runners.map((r) => r.stop()));
    await listener?.close();
    if (work) await releaseAndWarn(work);
  });

  const onA = (p: string) => path.join(rootA, p);
  const onB = (p: string) => path.join(rootB, p);

  /** Queues a transfer of snapshot seq (from parent) on both nodes; resolves with both results. */
  async function transfer(seq: number, o: { parent?: number; keep?: number[]; sendKey?: string; sendId?: string; epoch?: number; waitSeconds?: number; senderFirst?: boolean } = {}) {
    const t = { id: `t-${++n}`, key: key() };
    const parentPath = o.parent ? snap(o.parent) : undefined;
    const keep = (o.keep ?? (o.parent ? [o.parent] : [])).map(snap);
    const receive = () => queue.b.add(`recv/${n}`, { kind: 'replica-receive', pvName: PV, pool: POOL, seq, snapshotPath: snap(seq), ...(parentPath ? { parentPath } : {}), epoch: 1, sender: { node: 'a' }, transfer: t, keep, waitSeconds: o.waitSeconds ?? 20 });
    const send = () =>
      queue.a.add(`send/${n}`, {
        kind: 'replica-send', pvName: PV, pool: POOL, volumePath: `${POOL}/${PV}`, seq, snapshotPath: snap(seq), ...(parentPath ? { parentPath } : {}), epoch: o.epoch ?? 1,
        receiver: { node: 'b', endpoint: listener.endpoint() }, transfer: { id: o.sendId ?? t.id, key: o.sendKey ?? t.key }, keep,
      });
    if (o.senderFirst) {
      // The sender tries before the receiver listens for this transfer: it tries again.
      send();
      await until('the sender to be refused once', () => refusedHandshakes > 0, 20_000);
      receive();
    } else {
      // The receiver registers first: every handshake of a refused case is the one under test.
      receive();
      await until('the receiver to register', () => (listener as unknown as { pending: Map<string, unknown> }).pending.has(t.id) || queue.b.results.has(`recv/${n}`), 20_000);
      send();
    }
    const [sent, received] = await Promise.all([queue.a.result(`send/${n}`), queue.b.result(`recv/${n}`)]);
    return { sent, received };
  }

  const exists = (p: string) => fs.stat(p).then(() => true, () => false);
  let fullBytes = 0n;

  it('sends a full snapshot, then only the difference: the replica holds the same files', async () => {
    const vol = onA(`${POOL}/${PV}`);
    await fs.writeFile(path.join(vol, 'big'), randomBytes(48 << 20));
    await fs.mkdir(path.join(vol, 'dir'));
    await fs.writeFile(path.join(vol, 'dir', 'small'), 'hello');
    const full = await transfer(1);
    expect(full.sent).toMatchObject({ ok: true });
    expect(full.received).toMatchObject({ ok: true });
    fullBytes = BigInt((full.sent as { doneBytes: string }).doneBytes);
    expect(fullBytes).toBeGreaterThan(48n << 20n);
    expect((full.received as { doneBytes: string }).doneBytes).toBe(String(fullBytes));
    expect(await treeDigest(onB(snap(1)))).toEqual(await treeDigest(onA(snap(1))));
    expect(await treeDigest(onB(snap(1)))).toEqual(await treeDigest(vol));

    // 1 MiB rewritten, a file added, one removed.
    const fh = await fs.open(path.join(vol, 'big'), 'r+');
    await fh.write(randomBytes(1 << 20), 0, 1 << 20, 8 << 20);
    await fh.close();
    await fs.writeFile(path.join(vol, 'dir', 'new'), 'fresh');
    await fs.rm(path.join(vol, 'dir', 'small'));
    const inc = await transfer(2, { parent: 1 });
    expect(inc.sent).toMatchObject({ ok: true });
    expect(inc.received).toMatchObject({ ok: true });
    const incBytes = BigInt((inc.sent as { doneBytes: string }).doneBytes);
    expect(incBytes).toBeLessThan(fullBytes / 20n);
    expect(incBytes).toBeGreaterThan(1n << 20n);
    expect(await treeDigest(onB(snap(2)))).toEqual(await treeDigest(onA(snap(2))));
    expect(await treeDigest(onB(snap(2)))).toEqual(await treeDigest(vol));
    // Both kept snapshot 1 (the parent, in keep) and 2 (this one).
    expect((await fs.readdir(onB(replicaSnapshotDir(POOL, PV)))).sort()).toEqual(['snap-1', 'snap-2']);
  });

  it('receiving a snapshot held already succeeds at once (a lost result report), pruning what is not kept', async () => {
    queue.b.add('recv/again', { kind: 'replica-receive', pvName: PV, pool: POOL, seq: 2, snapshotPath: snap(2), parentPath: snap(1), epoch: 1, sender: { node: 'a' }, transfer: { id: 'again', key: key() }, keep: [], waitSeconds: 30 });
    expect(await queue.b.result('recv/again', 10_000)).toEqual({ ok: true, doneBytes: '0', totalBytes: '0' });
    expect(await fs.readdir(onB(replicaSnapshotDir(POOL, PV)))).toEqual(['snap-2']);
  });

  it('a receive whose parent is not here fails at once with parentMissing, without waiting for a sender', async () => {
    const began = Date.now();
    queue.b.add('recv/orphan', { kind: 'replica-receive', pvName: PV, pool: POOL, seq: 3, snapshotPath: snap(3), parentPath: snap(1), epoch: 1, sender: { node: 'a' }, transfer: { id: 'orphan', key: key() }, keep: [], waitSeconds: 600 });
    const r = await queue.b.result('recv/orphan', 20_000);
    expect(r).toMatchObject({ ok: false, parentMissing: true, retryable: false });
    expect(Date.now() - began).toBeLessThan(20_000);
    expect(await exists(onB(snap(3)))).toBe(false);
  });

  it('a wrong key or an unknown transfer is refused in the handshake, and nothing is received', async () => {
    // Snapshot 3 (taken by the first attempt on the sender, and kept for the next ones) holds 24 MiB more.
    await fs.writeFile(path.join(onA(`${POOL}/${PV}`), 'more'), randomBytes(24 << 20));
    const wrong = await transfer(3, { parent: 2, sendKey: key(), waitSeconds: 3 });
    expect(wrong.sent).toMatchObject({ ok: false, retryable: true });
    expect((wrong.sent as { error: string }).error).toMatch(/could not connect to the receiver|closed the connection/);
    expect(wrong.received).toMatchObject({ ok: false, retryable: true, error: expect.stringMatching(/did not connect within 3 s/) });
    const unknown = await transfer(3, { parent: 2, sendId: 'nobody-registered-this', waitSeconds: 3 });
    expect(unknown.sent).toMatchObject({ ok: false, retryable: true });
    expect(unknown.received).toMatchObject({ ok: false });
    expect(await exists(onB(snap(3)))).toBe(false);
  });

  it('a sender whose header does not match the job (another epoch) is refused with the reason', async () => {
    const r = await transfer(3, { parent: 2, epoch: 0 });
    expect(r.sent).toMatchObject({ ok: false, error: expect.stringMatching(/the receiver refused: epoch 0 is not 1/) });
    expect(r.received).toMatchObject({ ok: false, error: expect.stringMatching(/does not match this job: epoch 0 is not 1/) });
    expect(await exists(onB(snap(3)))).toBe(false);
  });

  it('a sender that dies mid-stream leaves no partial snapshot; the next attempt completes it', async () => {
    // Snapshot 3 was taken on the sender by the refused attempts above.
    expect(await exists(path.join(onA(snap(3)), 'more'))).toBe(true);
    const t = { id: 'dies', key: key() };
    queue.b.add('recv/dies', { kind: 'replica-receive', pvName: PV, pool: POOL, seq: 3, snapshotPath: snap(3), parentPath: snap(2), epoch: 1, sender: { node: 'a' }, transfer: t, keep: [snap(2)], waitSeconds: 20 });
    await until('the receiver to register', () => (listener as unknown as { pending: Map<string, unknown> }).pending.has(t.id), 20_000);
    // A sender of our own that streams the first 4 MiB of the real stream, then is gone.
    const abort = new AbortController();
    const socket = await connect(listener.endpoint(), t, abort.signal);
    socket.write(encodeHeader({ pvName: PV, seq: 3, parentSeq: 2, epoch: 1 }));
    await new Promise<void>((resolve) => socket.once('data', () => resolve()));
    const { stdout } = await run('btrfs', ['send', '-q', '-p', onA(snap(2)), onA(snap(3))], { encoding: 'buffer', maxBuffer: 64 << 20 });
    const framer = new Framer();
    framer.pipe(socket, { end: false });
    framer.write(stdout.subarray(0, 4 << 20));
    await until('the receiver to take 1 MiB', () => Number(queue.b.progress.get('recv/dies')?.doneBytes ?? 0) >= 1 << 20, 20_000);
    socket.destroy();
    const r = await queue.b.result('recv/dies');
    expect(r).toMatchObject({ ok: false, retryable: true });
    expect(await exists(onB(snap(3)))).toBe(false);
    // The next attempt: a real transfer of the same snapshot (taken already on the sender),
    // whose sender comes first: refused until the receiver listens for it, then through.
    refusedHandshakes = 0;
    const again = await transfer(3, { parent: 2, senderFirst: true });
    expect(refusedHandshakes).toBeGreaterThan(0);
    expect(again.sent).toMatchObject({ ok: true });
    expect(again.received).toMatchObject({ ok: true });
    expect(await treeDigest(onB(snap(3)))).toEqual(await treeDigest(onA(snap(3))));
  });

  it('promotion: the PoolKeeper makes the writable volume from the last received snapshot, with its limit', async () => {
    const api: PoolApi = { poolWork: async () => ({ pools: [], volumes: [] }), poolVolumeDone: async () => ({}), poolVolumesDone: async () => ({}), poolReport: async () => ({}) };
    const keeper = new PoolKeeper(realPoolOs, api, 'b', log, rootB);
    const volume = { pvName: PV, pool: POOL, path: `${POOL}/${PV}`, want: 'present' as const, from: snap(3), limitBytes: String(256 << 20) };
    expect(await keeper.settle({ pools: [{ className: 'pooled', path: POOL }], volumes: [volume] }, volume)).toMatchObject({ state: 'present', limitBytes: String(256 << 20) });
    const promoted = onB(`${POOL}/${PV}`);
    expect(await treeDigest(promoted)).toEqual(await treeDigest(onA(snap(3))));
    await fs.writeFile(path.join(promoted, 'after-failover'), 'written on b');
    expect((await run('btrfs', ['property', 'get', '-ts', promoted, 'ro'])).stdout.trim()).toBe('ro=false');
    const { stdout } = await run('btrfs', ['qgroup', 'show', '-re', '--raw', onB(POOL)]);
    expect(stdout).toContain(String(256 << 20));
  });

  it('replica-remove fences the writable copy, keeps the snapshots when asked, else drops them; again changes nothing', async () => {
    const remove = (k: string, keepSnapshots: boolean) => {
      queue.b.add(k, { kind: 'replica-remove', pvName: PV, pool: POOL, epoch: 2, removeVolume: true, keepSnapshots });
      return queue.b.result(k);
    };
    expect(await remove('rm/fence', true)).toMatchObject({ ok: true });
    expect(await exists(onB(`${POOL}/${PV}`))).toBe(false);
    expect((await fs.readdir(onB(replicaSnapshotDir(POOL, PV)))).sort()).toEqual(['snap-2', 'snap-3']);
    expect(await remove('rm/all', false)).toMatchObject({ ok: true });
    expect(await exists(onB(replicaSnapshotDir(POOL, PV)))).toBe(false);
    expect(await remove('rm/again', false)).toMatchObject({ ok: true });
    // The sender's copy is untouched by the replica's removal.
    expect(await exists(onA(`${POOL}/${PV}`))).toBe(true);
  });

  it('a job whose paths are not the volume\'s own is refused untouched', async () => {
    queue.a.add('send/bad', {
      kind: 'replica-send', pvName: PV, pool: POOL, volumePath: `${POOL}/../etc`, seq: 9, snapshotPath: snap(9), epoch: 1,
      receiver: { node: 'b', endpoint: listener.endpoint() }, transfer: { id: 'bad', key: key() }, keep: [],
    });
    expect(await queue.a.result('send/bad', 10_000)).toMatchObject({ ok: false, retryable: false, error: expect.stringMatching(/refusing replica-send/) });
    expect(await exists(onA(snap(9)))).toBe(false);
  });
});

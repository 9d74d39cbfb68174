// Replication, agent side: a full transfer of a 1 GiB volume through the agent's own path
// (replica-send -> TLS-PSK listener -> replica-receive, each `btrfs send` / `btrfs receive`
// streamed in frames) against a raw `btrfs send | btrfs receive` of the same snapshot on
// the same machine (issue goal: >= 0.7x); then an incremental transfer after 1% changed,
// bytes sent against bytes changed (goal: within 2x). Two pools on file-backed loop
// devices (root needed), each seen by its own agent through a pool root; the receiving
// agent's side runs in a process of its own (as two agents do), this process sends. No
// Postgres.
//
//   npx tsx bench/replication-agent.ts [--mib 1024] [--rounds 2]
import { execFile, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import pino from 'pino';
import type { DataJobSpec } from '../server/contracts/data-jobs';
import { replicaSnapshotDir, replicaSnapshotPath } from '../server/domain/replication-paths';
import { createPool } from '../server/agent/pool-setup';
import { ReplicaJobs } from '../server/agent/replication/jobs';
import { ReplicationListener } from '../server/agent/replication/listener';
import { commands } from '../server/agent/command-runner';
import { releaseAndWarn } from '../server/provisioners/testing';
import { poolBenchDir } from './stack';

const run = promisify(execFile);
const { values: args } = parseArgs({ options: { mib: { type: 'string', default: '1024' }, rounds: { type: 'string', default: '2' }, 'receiver-root': { type: 'string' } } });
const MIB = Number(args.mib);
const ROUNDS = Number(args.rounds);
const PV = 'pvc-0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';
const POOL = '/pool';
const log = pino({ level: 'warn' });

if (args['receiver-root']) {
  // The receiving agent: a listener and the replica jobs; one JSON spec a line in, one result a line out.
  const listener = new ReplicationListener({ listen: '127.0.0.1:0', log });
  await listener.start();
  const receiver = new ReplicaJobs({ poolRoot: args['receiver-root'], listener, log });
  process.stdout.write(`${JSON.stringify({ endpoint: listener.endpoint() })}\n`);
  for await (const line of createInterface({ input: process.stdin })) {
    const cpu = process.cpuUsage();
    const r = await receiver.run(JSON.parse(line), () => {}, new AbortController().signal).catch((e: Error) => ({ ok: false, error: e.message }));
    const used = process.cpuUsage(cpu);
    process.stdout.write(`${JSON.stringify({ ...r, cpuMs: (used.user + used.system) / 1000 })}\n`);
  }
  await listener.close();
  commands.close();
  process.exit(0);
}

const work = await poolBenchDir('stowage-bench-replication-');
const rootA = path.join(work, 'a');
const rootB = path.join(work, 'b');
const size = BigInt(Math.max(2048, MIB * 3)) << 20n;
const mibps = (bytes: number, ms: number) => bytes / (1 << 20) / (ms / 1000);
try {
  for (const r of [rootA, rootB]) await createPool({ source: `${r}.img`, mount: path.join(r, POOL), sizeBytes: size });
  const vol = path.join(rootA, POOL, PV);
  await run('btrfs', ['subvolume', 'create', vol]);
  await fs.chmod(vol, 0o700);
  // MIB of incompressible data in 64 MiB files.
  for (let i = 0; i * 64 < MIB; i++) {
    const fh = await fs.open(path.join(vol, `data-${i}`), 'w');
    for (let j = 0; j < Math.min(64, MIB - i * 64); j++) await fh.write(randomBytes(1 << 20));
    await fh.close();
  }
  await run('sync');
  const child = spawn(process.execPath, ['--import', 'tsx', new URL(import.meta.url).pathname, '--receiver-root', rootB], { stdio: ['pipe', 'pipe', 'inherit'] });
  const answers = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => JSON.parse((await answers.next()).value as string);
  const { endpoint } = (await next()) as { endpoint: string };
  const receiver = {
    run: (spec: DataJobSpec) => {
      child.stdin.write(`${JSON.stringify(spec)}\n`);
      return next() as Promise<{ ok: boolean; doneBytes?: string; cpuMs: number }>;
    },
  };
  const sender = new ReplicaJobs({ poolRoot: rootA, log });
  const noProgress = () => {};
  let n = 0;

  async function transfer(seq: number, parent?: number): Promise<{ bytes: number; ms: number; receiverCpuMs: number }> {
    const t = { id: `bench-${++n}`, key: randomBytes(32).toString('hex') };
    const common = { pvName: PV, pool: POOL, seq, snapshotPath: replicaSnapshotPath(POOL, PV, seq), ...(parent ? { parentPath: replicaSnapshotPath(POOL, PV, parent) } : {}), epoch: 1, transfer: t, keep: parent ? [replicaSnapshotPath(POOL, PV, parent)] : [] };
    const recvSpec: DataJobSpec = { kind: 'replica-receive', ...common, sender: { node: 'a' }, waitSeconds: 60 };
    const sendSpec: DataJobSpec = { kind: 'replica-send', ...common, volumePath: `${POOL}/${PV}`, receiver: { node: 'b', endpoint } };
    const signal = new AbortController().signal;
    const began = Date.now();
    const r0 = receiver.run(recvSpec);
    const [s, r] = await Promise.all([sender.run(sendSpec, noProgress, signal), r0]);
    const ms = Date.now() - began;
    if (!s.ok || !r.ok) throw new Error(`transfer failed: ${JSON.stringify({ s, r })}`);
    return { bytes: Number(s.doneBytes), ms, receiverCpuMs: r.cpuMs };
  }

  async function raw(seq: number, parent?: number): Promise<number> {
    const from = path.join(rootA, replicaSnapshotPath(POOL, PV, seq));
    const into = path.join(rootB, POOL, 'raw');
    await fs.mkdir(into, { recursive: true });
    const began = Date.now();
    const p = parent ? `-p ${path.join(rootA, replicaSnapshotPath(POOL, PV, parent))}` : '';
    await run('sh', ['-c', `btrfs send -q ${p} "$1" | btrfs receive -q "$2"`, 'sh', from, into]);
    const ms = Date.now() - began;
    await run('btrfs', ['subvolume', 'delete', '--commit-after', path.join(into, path.basename(from))]);
    return ms;
  }

  const dropReceived = async (seq: number) => {
    const p = path.join(rootB, replicaSnapshotPath(POOL, PV, seq));
    await run('btrfs', ['subvolume', 'delete', '--commit-after', p]);
  };

  // Snapshot 1 taken up front: the raw pipe sends it too, and the send job finds it made.
  await fs.mkdir(path.join(rootA, replicaSnapshotDir(POOL, PV)), { recursive: true, mode: 0o700 });
  await run('btrfs', ['subvolume', 'snapshot', '-r', vol, path.join(rootA, replicaSnapshotPath(POOL, PV, 1))]);
  console.log(`full transfer of ${MIB} MiB (${ROUNDS} rounds each, alternating; the source in the page cache for both):`);
  const ours: number[] = [];
  const raws: number[] = [];
  let fullBytes = 0;
  const fullCpuMs: string[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    raws.push(await raw(1));
    const cpu0 = process.cpuUsage();
    const t = await transfer(1);
    const c = process.cpuUsage(cpu0);
    fullCpuMs.push(`${((c.user + c.system) / 1000).toFixed(0)}+${t.receiverCpuMs.toFixed(0)} ms`);
    fullBytes = t.bytes;
    ours.push(t.ms);
    if (round < ROUNDS - 1) await dropReceived(1);
  }
  const best = (xs: number[]) => Math.min(...xs);
  const oursRate = mibps(fullBytes, best(ours));
  const rawRate = mibps(fullBytes, best(raws));
  console.log(`  raw btrfs send | btrfs receive: ${rawRate.toFixed(0)} MiB/s (best of ${raws.map((m) => `${m} ms`).join(', ')})`);
  console.log(`  through the agent (TLS-PSK):   ${oursRate.toFixed(0)} MiB/s (best of ${ours.map((m) => `${m} ms`).join(', ')}), ${(fullBytes / (1 << 20)).toFixed(0)} MiB of stream`);
  console.log(`  ratio: ${(oursRate / rawRate).toFixed(2)}x (goal >= 0.7x); agent CPU per full transfer (sender+receiver): ${fullCpuMs.join(', ')}`);

  // 1% of the volume rewritten in place (spread over the files), then an incremental transfer.
  const changed = Math.max(1, Math.round(MIB / 100)) << 20;
  const files = (await fs.readdir(vol)).sort();
  for (let i = 0; i < changed / (256 << 10); i++) {
    const fh = await fs.open(path.join(vol, files[i % files.length]), 'r+');
    await fh.write(randomBytes(256 << 10), 0, 256 << 10, ((i * 7) % 60) << 20);
    await fh.close();
  }
  // The raw pipe of the same difference first (it finds the parent by its received UUID).
  await run('btrfs', ['subvolume', 'snapshot', '-r', vol, path.join(rootA, replicaSnapshotPath(POOL, PV, 2))]);
  const rawInc = await raw(2, 1);
  const cpu = process.cpuUsage();
  const inc = await transfer(2, 1);
  const used = process.cpuUsage(cpu);
  console.log(`incremental after ${(changed / (1 << 20)).toFixed(0)} MiB changed: ${(inc.bytes / (1 << 20)).toFixed(1)} MiB sent (${(inc.bytes / changed).toFixed(2)}x the changed bytes; goal <= 2x) in ${inc.ms} ms (raw pipe: ${rawInc} ms); sending agent CPU ${((used.user + used.system) / 1000).toFixed(0)} ms`);
  const dir = path.join(rootB, replicaSnapshotDir(POOL, PV));
  console.log(`replica holds: ${(await fs.readdir(dir)).sort().join(', ')}`);
  child.stdin.end();
  await new Promise((r) => child.once('close', r));
} finally {
  commands.close();
  await releaseAndWarn(work);
}

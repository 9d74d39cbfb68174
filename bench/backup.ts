// Backups (the data mover, server/agent/backup/): a btrfs on a file-backed loop device, a
// subvolume holding 1 GiB of random data, a read-only snapshot. Side by side:
//   full backup      vs cp -r of the snapshot to the same target filesystem (+ sync -f)   goal >= 0.8x
//   incremental      after 10 MiB changed, with the parent snapshot (btrfs changed ranges) goal <= 2 % written, <= 10 % of the full time
//   restore          vs cp -r of the target's chunks to the same destination filesystem   goal >= 0.8x
// then the restored tree is compared with the snapshot by checksums. Root needed (loop,
// mount); everything is released at the end. Prints figures; never fails on speed.
//
// The machine may be shared: cp, the full backup and the restore each run --runs times
// (interleaved, each into a fresh directory) and the best of each is compared; the CPU
// seconds each used are printed beside (cp's from the children's rusage, ours from the process).
//
//   npx tsx bench/backup.ts [--mib 1024] [--files 4] [--change-mib 10] [--runs 2] [--target DIR]
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { runBackup } from '../server/agent/backup/backup';
import { runRestore } from '../server/agent/backup/restore';
import { targetFigures } from '../server/agent/backup/target';
import { createPool } from '../server/agent/pool-setup';
import { releaseAndWarn } from '../server/provisioners/testing';
import { poolBenchDir } from './stack';

const run = promisify(execFile);
const { values: args } = parseArgs({
  options: { runs: { type: 'string', default: '2' }, mib: { type: 'string', default: '1024' }, files: { type: 'string', default: '4' }, 'change-mib': { type: 'string', default: '10' }, target: { type: 'string' } },
});
const MIB = Number(args.mib);
const FILES = Number(args.files);
const CHANGE = Number(args['change-mib']);
const RUNS = Math.max(1, Number(args.runs));
const origin = { namespace: 'bench', claimName: 'data', volumeBackupName: 'bench', sizeBytes: String(BigInt(MIB) << 20n), installation: 'bench' };

const work = await poolBenchDir('stowage-bench-backup-', args.target ?? os.tmpdir());

const seconds = async (f: () => Promise<unknown>) => {
  const t0 = performance.now();
  await f();
  return (performance.now() - t0) / 1000;
};
/** CPU seconds of this process and of its waited-for children (cp, sync) so far. */
const TICK = 100; // USER_HZ
async function cpuNow(): Promise<{ self: number; children: number }> {
  const f = (await fs.readFile('/proc/self/stat', 'utf8')).split(') ')[1].split(' ');
  const u = process.cpuUsage();
  return { self: (u.user + u.system) / 1e6, children: (Number(f[13]) + Number(f[14])) / TICK };
}
/** Wall seconds and CPU seconds (own + children's) of one run. */
async function measured(f: () => Promise<unknown>): Promise<{ s: number; cpu: number }> {
  const c0 = await cpuNow();
  const s = await seconds(f);
  const c1 = await cpuNow();
  return { s, cpu: c1.self - c0.self + (c1.children - c0.children) };
}
const best = (xs: { s: number; cpu: number }[]) => xs.reduce((a, b) => (b.s < a.s ? b : a));
const runsOf = (xs: { s: number }[]) => xs.map((x) => `${x.s.toFixed(2)} s`).join(', ');
const mbs = (bytes: number, s: number) => `${(bytes / 1e6 / s).toFixed(0)} MB/s`;
const sync = (dir: string) => run('sync', ['-f', dir]);

async function treeHashes(root: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const n of (await fs.readdir(root)).sort()) {
    const h = createHash('sha256');
    for await (const b of (await fs.open(path.join(root, n))).createReadStream()) h.update(b as Buffer);
    out.set(n, h.digest('hex'));
  }
  return out;
}

try {
  const pool = path.join(work, 'pool');
  await createPool({ source: path.join(work, 'pool.img'), mount: pool, sizeBytes: BigInt(MIB * 3 + 512) << 20n });
  const vol = path.join(pool, 'vol');
  await run('btrfs', ['subvolume', 'create', vol]);
  const per = Math.floor(MIB / FILES);
  for (let f = 0; f < FILES; f++) {
    const fh = await fs.open(path.join(vol, `data-${f}`), 'w');
    for (let m = 0; m < per; m += 8) await fh.write(randomBytes(Math.min(8, per - m) << 20));
    await fh.close();
  }
  const s1 = path.join(pool, 's1');
  await run('btrfs', ['subvolume', 'snapshot', '-r', vol, s1]);
  await run('sync', ['-f', pool]);
  const bytes = FILES * per * (1 << 20);
  console.log(`data: ${FILES} files, ${(bytes / (1 << 20)).toFixed(0)} MiB of random bytes in a read-only btrfs snapshot; target and restores on ${(await run('stat', ['-f', '-c', '%T', work])).stdout.trim()}`);

  // Full backup vs cp, interleaved (cp first also warms the page cache for both readers).
  const cpDest = path.join(work, 'cp-copy');
  const target = path.join(work, 'target');
  const cpRuns: { s: number; cpu: number }[] = [];
  const fullRuns: { s: number; cpu: number }[] = [];
  let full!: Awaited<ReturnType<typeof runBackup>>;
  for (let r = 0; r < RUNS; r++) {
    cpRuns.push(
      await measured(async () => {
        await run('cp', ['-r', `${s1}/.`, cpDest]);
        await sync(cpDest);
      }),
    );
    await fs.rm(cpDest, { recursive: true });
    await fs.rm(target, { recursive: true, force: true });
    await fs.mkdir(target);
    await sync(work);
    fullRuns.push(
      await measured(async () => {
        full = await runBackup({ targetRoot: target, backupId: 'full', source: { format: 'files', root: s1 }, origin });
      }),
    );
  }
  const cpBest = best(cpRuns);
  const fullBest = best(fullRuns);
  const fullSeconds = fullBest.s;
  console.log(`cp -r + sync -f:      ${cpBest.s.toFixed(2)} s  ${mbs(bytes, cpBest.s)}  cpu ${cpBest.cpu.toFixed(2)} s  (runs: ${runsOf(cpRuns)})`);
  console.log(
    `full backup:          ${fullSeconds.toFixed(2)} s  ${mbs(bytes, fullSeconds)}  cpu ${fullBest.cpu.toFixed(2)} s  ratio ${(cpBest.s / fullSeconds).toFixed(2)}x of cp (goal >= 0.8)  written ${full.newBytes} B in ${full.newChunks} chunks  (runs: ${runsOf(fullRuns)})`,
  );

  // 10 MiB changed, a new snapshot, an incremental backup with the parent snapshot.
  const fh = await fs.open(path.join(vol, 'data-0'), 'r+');
  await fh.write(randomBytes(CHANGE << 20), 0, CHANGE << 20, Math.floor(per / 3) << 20);
  await fh.close();
  const s2 = path.join(pool, 's2');
  await run('btrfs', ['subvolume', 'snapshot', '-r', vol, s2]);
  let inc!: Awaited<ReturnType<typeof runBackup>>;
  const incSeconds = await seconds(async () => {
    inc = await runBackup({ targetRoot: target, backupId: 'inc', source: { format: 'files', root: s2 }, origin, parentBackupId: 'full', parentSourcePath: s1 });
  });
  console.log(
    `incremental (${inc.mode}):  ${incSeconds.toFixed(2)} s  = ${((incSeconds / fullSeconds) * 100).toFixed(1)} % of the full backup's time (goal <= 10 %)  read ${inc.readBytes} B  written ${inc.newBytes} B = ${((Number(inc.newBytes) / bytes) * 100).toFixed(2)} % (goal <= 2 %)`,
  );
  const figures = await targetFigures(target);
  console.log(`target:               ${figures.backups} backups, stored ${figures.storedBytes} B, logical ${figures.logicalBytes} B (dedupe ${(Number(figures.logicalBytes) / Number(figures.storedBytes)).toFixed(2)}x)`);

  // Restore vs cp of the target's chunks to the same filesystem, interleaved.
  const cpBack = path.join(work, 'cp-back');
  const dest = path.join(work, 'restored');
  const cpBackRuns: { s: number; cpu: number }[] = [];
  const restoreRuns: { s: number; cpu: number }[] = [];
  for (let r = 0; r < RUNS; r++) {
    await sync(work);
    cpBackRuns.push(
      await measured(async () => {
        await run('cp', ['-r', `${path.join(target, 'stowage-backups', 'chunks')}/.`, cpBack]);
        await sync(cpBack);
      }),
    );
    await fs.rm(cpBack, { recursive: true });
    await fs.rm(dest, { recursive: true, force: true });
    await fs.mkdir(dest);
    await sync(work);
    restoreRuns.push(
      await measured(async () => {
        await runRestore({ targetRoot: target, backupId: 'inc', destination: { format: 'files', root: dest } });
        await sync(dest);
      }),
    );
  }
  const cpBackBest = best(cpBackRuns);
  const restoreBest = best(restoreRuns);
  console.log(`cp -r of the chunks:  ${cpBackBest.s.toFixed(2)} s  ${mbs(bytes, cpBackBest.s)}  cpu ${cpBackBest.cpu.toFixed(2)} s  (runs: ${runsOf(cpBackRuns)})`);
  console.log(
    `restore + sync -f:    ${restoreBest.s.toFixed(2)} s  ${mbs(bytes, restoreBest.s)}  cpu ${restoreBest.cpu.toFixed(2)} s  ratio ${(cpBackBest.s / restoreBest.s).toFixed(2)}x of cp (goal >= 0.8)  (runs: ${runsOf(restoreRuns)})`,
  );
  const [want, got] = await Promise.all([treeHashes(s2), treeHashes(dest)]);
  const same = want.size === got.size && [...want].every(([k, v]) => got.get(k) === v);
  console.log(`restored data equals the snapshot: ${same ? 'yes' : 'NO'}`);
  if (!same) process.exitCode = 1;
} finally {
  await releaseAndWarn(work);
}

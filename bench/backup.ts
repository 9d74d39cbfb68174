// Backups (the data mover, server/agent/backup/): a btrfs on a file-backed loop device, a
// subvolume holding 1 GiB of random data, a read-only snapshot. Side by side:
//   full backup      vs cp -r of the snapshot to the same target filesystem (+ sync -f)   goal >= 0.8x
//   incremental      after 10 MiB changed, with the parent snapshot (btrfs changed ranges) goal <= 2 % written, <= 10 % of the full time
//   restore          vs cp -r of the target's chunks to the same destination filesystem   goal >= 0.8x
// then the restored tree is compared with the snapshot by checksums. Root needed (loop,
// mount); everything is released at the end. Prints figures; never fails on speed.
//
//   npx tsx bench/backup.ts [--mib 1024] [--files 4] [--change-mib 10] [--target DIR]
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { runBackup } from '../server/agent/backup/backup';
import { runRestore } from '../server/agent/backup/restore';
import { targetFigures } from '../server/agent/backup/target';
import { createPool, poolSupport } from '../server/agent/pool-setup';
import { releaseAndWarn } from '../server/provisioners/testing';
import { releaseOnEarlyExit } from './stack';

const run = promisify(execFile);
const { values: args } = parseArgs({
  options: { mib: { type: 'string', default: '1024' }, files: { type: 'string', default: '4' }, 'change-mib': { type: 'string', default: '10' }, target: { type: 'string' } },
});
const MIB = Number(args.mib);
const FILES = Number(args.files);
const CHANGE = Number(args['change-mib']);
const origin = { namespace: 'bench', claimName: 'data', volumeBackupName: 'bench', sizeBytes: String(BigInt(MIB) << 20n), installation: 'bench' };

const support = await poolSupport();
if (!support.ok) {
  console.log(`skipped: ${support.reason}`);
  process.exit(0);
}
const work = await fs.mkdtemp(path.join(args.target ?? os.tmpdir(), 'stowage-bench-backup-'));
releaseOnEarlyExit(work);

const seconds = async (f: () => Promise<unknown>) => {
  const t0 = performance.now();
  await f();
  return (performance.now() - t0) / 1000;
};
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

  // Full backup vs cp (cp first also warms the page cache for both readers).
  const cpDest = path.join(work, 'cp-copy');
  const cpSeconds = await seconds(async () => {
    await run('cp', ['-r', `${s1}/.`, cpDest]);
    await sync(cpDest);
  });
  await fs.rm(cpDest, { recursive: true });
  await sync(work);
  const target = path.join(work, 'target');
  await fs.mkdir(target);
  let full!: Awaited<ReturnType<typeof runBackup>>;
  const fullSeconds = await seconds(async () => {
    full = await runBackup({ targetRoot: target, backupId: 'full', source: { format: 'files', root: s1 }, origin });
  });
  const cp2Seconds = await seconds(async () => {
    await run('cp', ['-r', `${s1}/.`, cpDest]);
    await sync(cpDest);
  });
  await fs.rm(cpDest, { recursive: true });
  const cpBest = Math.min(cpSeconds, cp2Seconds);
  console.log(`cp -r + sync -f:      ${cpBest.toFixed(2)} s  ${mbs(bytes, cpBest)}  (runs: ${cpSeconds.toFixed(2)} s, ${cp2Seconds.toFixed(2)} s)`);
  console.log(`full backup:          ${fullSeconds.toFixed(2)} s  ${mbs(bytes, fullSeconds)}  ratio ${(cpBest / fullSeconds).toFixed(2)}x of cp (goal >= 0.8)  written ${full.newBytes} B in ${full.newChunks} chunks`);

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

  // Restore vs cp of the target's chunks to the same filesystem.
  await sync(work);
  const cpBack = path.join(work, 'cp-back');
  const cpBackSeconds = await seconds(async () => {
    await run('cp', ['-r', `${path.join(target, 'stowage-backups', 'chunks')}/.`, cpBack]);
    await sync(cpBack);
  });
  await fs.rm(cpBack, { recursive: true });
  await sync(work);
  const dest = path.join(work, 'restored');
  await fs.mkdir(dest);
  const restoreSeconds = await seconds(async () => {
    await runRestore({ targetRoot: target, backupId: 'inc', destination: { format: 'files', root: dest } });
    await sync(dest);
  });
  console.log(`cp -r of the chunks:  ${cpBackSeconds.toFixed(2)} s  ${mbs(bytes, cpBackSeconds)}`);
  console.log(`restore + sync -f:    ${restoreSeconds.toFixed(2)} s  ${mbs(bytes, restoreSeconds)}  ratio ${(cpBackSeconds / restoreSeconds).toFixed(2)}x of cp (goal >= 0.8)`);
  const [want, got] = await Promise.all([treeHashes(s2), treeHashes(dest)]);
  const same = want.size === got.size && [...want].every(([k, v]) => got.get(k) === v);
  console.log(`restored data equals the snapshot: ${same ? 'yes' : 'NO'}`);
  if (!same) process.exitCode = 1;
} finally {
  await releaseAndWarn(work);
}

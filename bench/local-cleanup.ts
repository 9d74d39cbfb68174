// Local-volume cleanup speed, side by side with the plain tools in one run:
//  - file cleanup: the agent's CleanupRunner ("files") vs `rm -rf` of the same tree
//    (100,000 small files by default), alternating who goes first each round;
//  - dd-zero: the agent's CleanupRunner ("dd-zero") vs raw `dd if=/dev/zero oflag=direct`
//    to the same loop device.
// Target: the agent at >= 0.8x the plain tool's speed. Nothing asserts; read the figures.
//
// By default both run on a tmpfs the benchmark mounts (CPU-bound: where the agent's own
// overhead shows most); --dir runs them on that directory's filesystem instead.
//
//   npx tsx bench/local-cleanup.ts [--files 100000] [--rounds 3] [--device-mib 512] [--dir /path]
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { CleanupRunner } from '../server/agent/cleanup-runner';
import type { LocalClassConfig } from '../server/domain/local-volume-config';
import { realAgentOs } from '../server/agent/os';
import { createRealOs } from '../server/provisioners/os';
import { releaseEverythingUnder } from '../server/provisioners/testing';

const run = promisify(execFile);
const { values: args } = parseArgs({
  options: {
    files: { type: 'string', default: '100000' },
    rounds: { type: 'string', default: '3' },
    'device-mib': { type: 'string', default: '512' },
    dir: { type: 'string' },
  },
});
const FILES = Number(args.files);
const ROUNDS = Number(args.rounds);
const DEVICE_MIB = Number(args['device-mib']);
const PER_DIR = 1000;

const base = await fs.mkdtemp(path.join(args.dir ?? os.tmpdir(), 'stowage-bench-cleanup-'));
const disks = path.join(base, 'disks');
await fs.mkdir(disks);
let where = `${base} (${args.dir ? 'the given directory' : 'the temporary directory'})`;
if (!args.dir) {
  try {
    await run('mount', ['-t', 'tmpfs', '-o', 'size=3g', 'tmpfs', disks]);
    where = 'a tmpfs mounted for the benchmark';
  } catch (e) {
    console.log(`(no tmpfs: ${(e as Error).message.split('\n')[0]}; using ${base})`);
  }
}
const cls: LocalClassConfig = {
  className: 'bench',
  hostDir: disks,
  mountDir: disks,
  blockCleanerCommand: ['dd-zero'],
  volumeMode: 'Filesystem',
  fsType: 'ext4',
  namePattern: '*',
  requireMountPoints: false,
  minSizeBytes: '0',
  parallelCleanups: 1,
};
let job = 0;
let attached: string | undefined;

function makeTree(root: string): void {
  mkdirSync(root, { recursive: true });
  for (let i = 0; i < FILES; i++) {
    const d = path.join(root, `d${Math.floor(i / PER_DIR)}`);
    if (i % PER_DIR === 0) mkdirSync(d);
    writeFileSync(path.join(d, `f${i}`), 'x');
  }
}

async function timed(fn: () => Promise<void>): Promise<number> {
  await run('sync');
  const t0 = performance.now();
  await fn();
  return (performance.now() - t0) / 1000;
}

const fmt = (n: number) => n.toFixed(2);

try {
  console.log(`file cleanup: ${FILES.toLocaleString('en-US')} files of 1 byte in ${Math.ceil(FILES / PER_DIR)} directories, on ${where}`);
  const rm: number[] = [];
  const agent: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? ['rm', 'agent'] : ['agent', 'rm'];
    for (const who of order) {
      const vol = path.join(disks, `vol-${who}`);
      makeTree(path.join(vol, 'data'));
      if (who === 'rm') {
        rm.push(await timed(async () => void (await run('rm', ['-rf', '--', path.join(vol, 'data')]))));
      } else {
        const runner = new CleanupRunner(realAgentOs);
        let reports = 0;
        agent.push(
          await timed(async () => {
            const res = await runner.run(
              { jobId: `j${++job}`, pvName: 'pv', className: 'bench', hostPath: vol, volumeMode: 'Filesystem', method: 'files', attempt: 1 },
              cls,
              () => reports++,
            );
            if (!res.ok) throw new Error(res.error);
          }),
        );
        const left = await fs.readdir(vol);
        if (left.length !== 0) throw new Error(`agent left ${left.length} entries`);
      }
      await fs.rm(vol, { recursive: true, force: true });
    }
  }
  const best = (xs: number[]) => Math.min(...xs);
  console.log(`  rm -rf          ${rm.map(fmt).join(' s, ')} s   best ${fmt(best(rm))} s  (${Math.round(FILES / best(rm)).toLocaleString('en-US')} files/s)`);
  console.log(`  agent (files)   ${agent.map(fmt).join(' s, ')} s   best ${fmt(best(agent))} s  (${Math.round(FILES / best(agent)).toLocaleString('en-US')} files/s)`);
  const ratios = rm.map((t, i) => t / agent[i]).sort((a, b) => a - b);
  console.log(`  agent speed / rm -rf speed: best vs best ${(best(rm) / best(agent)).toFixed(2)}x, median of rounds ${ratios[Math.floor(ratios.length / 2)].toFixed(2)}x (target >= 0.8x)`);

  const host = createRealOs('bench');
  const loop = await host.loopSupport();
  if (!loop.ok) {
    console.log(`dd-zero: skipped (${loop.reason})`);
  } else {
    // The backing file stays outside the tmpfs, so the final cleanup finds and detaches it.
    const img = path.join(base, 'dev.img');
    const bytes = DEVICE_MIB << 20;
    await host.truncate(img, BigInt(bytes));
    const dev = await host.losetupAttach(img);
    attached = dev;
    await fs.symlink(dev, path.join(disks, 'blk'));
    console.log(`dd-zero: ${DEVICE_MIB} MiB loop device ${dev}, bs=4M oflag=direct, both`);
    const raw: number[] = [];
    const ours: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? ['raw', 'agent'] : ['agent', 'raw'];
      for (const who of order) {
        if (who === 'raw') {
          raw.push(await timed(async () => void (await run('dd', ['if=/dev/zero', `of=${dev}`, 'bs=4M', `count=${bytes}`, 'iflag=count_bytes', 'oflag=direct', 'conv=fsync']))));
        } else {
          const runner = new CleanupRunner(realAgentOs);
          ours.push(
            await timed(async () => {
              const res = await runner.run(
                { jobId: `j${++job}`, pvName: 'pv', className: 'bench', hostPath: path.join(disks, 'blk'), volumeMode: 'Block', method: 'dd-zero', attempt: 1 },
                cls,
                () => {},
              );
              if (!res.ok) throw new Error(`${res.error} ${res.outputTail?.join(' | ')}`);
            }),
          );
        }
      }
    }
    const mibs = (s: number) => Math.round(DEVICE_MIB / s);
    console.log(`  raw dd          ${raw.map(fmt).join(' s, ')} s   best ${mibs(Math.min(...raw))} MiB/s`);
    console.log(`  agent (dd-zero) ${ours.map(fmt).join(' s, ')} s   best ${mibs(Math.min(...ours))} MiB/s`);
    console.log(`  agent speed / raw dd speed: ${(Math.min(...raw) / Math.min(...ours)).toFixed(2)}x (target >= 0.8x)`);
  }
} finally {
  if (attached) await createRealOs('bench').losetupDetach(attached).catch((e) => console.log(`detach ${attached}: ${e}`));
  const problems = await releaseEverythingUnder(base);
  if (problems.length) console.log(`cleanup problems: ${problems.join('; ')}`);
}

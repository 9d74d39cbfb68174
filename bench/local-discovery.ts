// Discovery speed on a real directory: N entries (default 1,000 directories, plus a few
// loop-device symlinks when loop devices are permitted) under one discovery directory.
// Target: one discovery pass over 1,000 entries in under 1 s. Nothing asserts.
//
//   npx tsx bench/local-discovery.ts [--entries 1000] [--rounds 5] [--dir /path]
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { localClass } from '../server/agent/local-class-fixture';
import { discoverAll } from '../server/agent/discovery';
import { realAgentOs } from '../server/agent/os';
import { createRealOs } from '../server/provisioners/os';
import { releaseEverythingUnder } from '../server/provisioners/testing';

const { values: args } = parseArgs({
  options: { entries: { type: 'string', default: '1000' }, rounds: { type: 'string', default: '5' }, dir: { type: 'string' } },
});
const ENTRIES = Number(args.entries);
const ROUNDS = Number(args.rounds);
const LOOPS = 4;

const base = await fs.mkdtemp(path.join(args.dir ?? os.tmpdir(), 'stowage-bench-discovery-'));
try {
  const disks = path.join(base, 'disks');
  await fs.mkdir(disks);
  const host = createRealOs('bench');
  const loop = await host.loopSupport();
  let loops = 0;
  if (loop.ok) {
    for (; loops < LOOPS; loops++) {
      const img = path.join(base, `d${loops}.img`);
      await host.truncate(img, 16n << 20n);
      await fs.symlink(await host.losetupAttach(img), path.join(disks, `blk-${loops}`));
    }
  } else console.log(`(no loop devices: ${loop.reason})`);
  for (let i = loops; i < ENTRIES; i++) await fs.mkdir(path.join(disks, `vol-${String(i).padStart(5, '0')}`));
  const cls = localClass({ className: 'bench', hostDir: disks, mountDir: disks });
  console.log(`discovery of ${ENTRIES.toLocaleString('en-US')} entries (${ENTRIES - loops} directories, ${loops} loop-device symlinks) under one directory`);
  const times: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = performance.now();
    const found = await discoverAll(realAgentOs, [cls]);
    times.push(performance.now() - t0);
    const eligible = found.filter((e) => e.eligible).length;
    if (eligible !== ENTRIES) throw new Error(`expected ${ENTRIES} eligible entries, found ${eligible}`);
  }
  const sorted = [...times].sort((a, b) => a - b);
  console.log(`  passes: ${times.map((t) => `${t.toFixed(0)} ms`).join(', ')}`);
  console.log(`  median ${sorted[Math.floor(sorted.length / 2)].toFixed(0)} ms, worst ${sorted.at(-1)!.toFixed(0)} ms (target < 1000 ms)`);
} finally {
  const problems = await releaseEverythingUnder(base);
  if (problems.length) console.log(`cleanup problems: ${problems.join('; ')}`);
}

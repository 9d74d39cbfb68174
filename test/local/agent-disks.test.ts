// The node agent on real disks: real directories, tmpfs mounts and loop devices that this
// test creates and releases itself. Skips (with the reason printed) only where the machine
// does not permit loop devices or mounts.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CleanupRunner } from '../../server/agent/cleanup-runner';
import type { CleanupMethod } from '../../server/domain/cleanup-method';
import type { CleanupProgress, CleanupRequest } from '../../server/contracts/agent';
import type { LocalClassConfig } from '../../server/domain/local-volume-config';
import { discoverAll } from '../../server/agent/discovery';
import { localClass } from '../../server/agent/local-class-fixture';
import { realAgentOs } from '../../server/agent/os';
import { createRealOs } from '../../server/provisioners/os';
import { releaseEverythingUnder } from '../../server/provisioners/testing';

const run = promisify(execFile);
const host = createRealOs('node-a');
const DEVICE_BYTES = 16 << 20;

const loop = await host.loopSupport();
let mountOk = { ok: true, reason: '' };
{
  const probe = await fs.mkdtemp(path.join(os.tmpdir(), 'stowage-mount-probe-'));
  try {
    await run('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe]);
    await run('umount', [probe]);
  } catch (e) {
    mountOk = { ok: false, reason: `mount -t tmpfs is not permitted here (${(e as Error).message.split('\n')[0]})` };
  }
  await fs.rm(probe, { recursive: true, force: true });
}
if (!loop.ok) console.log(`[skip] agent tests on loop devices: ${loop.reason}`);
if (!mountOk.ok) console.log(`[skip] agent tests on tmpfs mounts: ${mountOk.reason}`);

let dir: string;
let disks: string;
let seq = 0;

function cls(o: Partial<LocalClassConfig> = {}): LocalClassConfig {
  return localClass({ hostDir: disks, mountDir: disks, parallelCleanups: 4, ...o });
}

function req(entry: string, o: Partial<CleanupRequest> = {}): CleanupRequest {
  return { jobId: `job-${++seq}`, pvName: `pv-${seq}`, className: 'local', hostPath: `${disks}/${entry}`, volumeMode: 'Filesystem', method: 'files', attempt: 1, ...o };
}

/** A fresh loop device over a file in the test's directory, filled with a non-zero pattern. */
async function loopDevice(name: string): Promise<string> {
  const file = path.join(dir, `${name}.img`);
  await host.truncate(file, BigInt(DEVICE_BYTES));
  const dev = await host.losetupAttach(file);
  await fill(dev, 0xa5);
  return dev;
}

async function fill(dev: string, byte: number): Promise<void> {
  const h = await realAgentOs.openForWrite(dev);
  try {
    const chunk = Buffer.alloc(1 << 20, byte);
    for (let off = 0; off < DEVICE_BYTES; off += chunk.length) await h.write(chunk, off);
    await h.sync();
  } finally {
    await h.close();
  }
}

/** Offsets of non-zero bytes found reading the whole device back (at most a few). */
async function nonZero(dev: string): Promise<number[]> {
  const bad: number[] = [];
  for (let off = 0; off < DEVICE_BYTES && bad.length < 3; off += 1 << 20) {
    const buf = await realAgentOs.readRange(dev, off, 1 << 20);
    const i = buf.findIndex((b) => b !== 0);
    if (i >= 0) bad.push(off + i);
  }
  return bad;
}

async function mountTmpfs(target: string): Promise<void> {
  await fs.mkdir(target, { recursive: true });
  await run('mount', ['-t', 'tmpfs', '-o', 'size=32m', 'tmpfs', target]);
}

beforeAll(async () => {
  await run('udevadm', ['settle']).catch(() => undefined);
});
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'stowage-agent-'));
  disks = path.join(dir, 'disks');
  await fs.mkdir(disks);
});
afterEach(async () => {
  const problems = await releaseEverythingUnder(dir);
  expect(problems).toEqual([]);
});
afterAll(async () => {
  if (dir) await releaseEverythingUnder(dir);
});

describe.runIf(loop.ok && mountOk.ok)('discovery on real disks', () => {
  it('one directory holding a tmpfs mount, a plain directory, loop-device symlinks and things that are not volumes', async () => {
    const dev = await loopDevice('a');
    const dev2 = await loopDevice('b');
    await mountTmpfs(path.join(disks, 'mounted'));
    await fs.mkdir(path.join(disks, 'plain'));
    await fs.symlink(dev, path.join(disks, 'blk'));
    await fs.symlink(dev, path.join(disks, 'blk-twice'));
    await fs.writeFile(path.join(disks, 'notes.txt'), 'x');
    await fs.symlink(path.join(dir, 'missing'), path.join(disks, 'dangling'));
    await fs.mkdir(path.join(dir, 'outside'));
    await fs.symlink(path.join(dir, 'outside'), path.join(disks, 'escape'));
    await fs.symlink('/dev/null', path.join(disks, 'null'));
    // A device mounted elsewhere must not be offered as a raw disk.
    await host.mkfs(dev2, 'ext4');
    await fs.mkdir(path.join(dir, 'busy'));
    await host.mount(dev2, path.join(dir, 'busy'));
    await fs.symlink(dev2, path.join(disks, 'in-use'));

    const entries = await discoverAll(realAgentOs, [cls()]);
    const got = Object.fromEntries(entries.map((e) => [e.entryName, { eligible: e.eligible, mode: e.volumeMode, reason: e.reason }]));
    expect(got).toEqual({
      blk: { eligible: true, mode: 'Block', reason: undefined },
      'blk-twice': { eligible: false, mode: 'Block', reason: `the same device is also reachable as ${disks}/blk` },
      dangling: { eligible: false, mode: 'Filesystem', reason: 'broken symlink: its target does not exist' },
      escape: { eligible: false, mode: 'Filesystem', reason: `resolves outside the discovery directory (to ${path.join(dir, 'outside')})` },
      'in-use': { eligible: false, mode: 'Block', reason: `block device ${dev2} is mounted (at ${path.join(dir, 'busy')})` },
      mounted: { eligible: true, mode: 'Filesystem', reason: undefined },
      'notes.txt': { eligible: false, mode: 'Filesystem', reason: 'not a directory or block device (a regular file)' },
      null: { eligible: false, mode: 'Filesystem', reason: 'not a directory or block device (a character device)' },
      plain: { eligible: true, mode: 'Filesystem', reason: undefined },
    });
    const byName = Object.fromEntries(entries.map((e) => [e.entryName, e]));
    expect(byName.blk.capacityBytes).toBe(String(DEVICE_BYTES));
    expect(byName.mounted.capacityBytes).toBe(String(32 << 20));
    expect(byName.blk.hostPath).toBe(`${disks}/blk`);

    const strict = await discoverAll(realAgentOs, [cls({ requireMountPoints: true })]);
    expect(strict.find((e) => e.entryName === 'plain')?.reason).toBe('not a mount point (this class requires mount points: requireMountPoints)');
    expect(strict.find((e) => e.entryName === 'mounted')?.eligible).toBe(true);
  });
});

describe.runIf(mountOk.ok)('file cleanup on a tmpfs mount', () => {
  it('removes every file and directory, keeps the mount point, never follows a symlink out', async () => {
    const vol = path.join(disks, 'vol');
    await mountTmpfs(vol);
    const outside = path.join(dir, 'precious.txt');
    await fs.writeFile(outside, 'keep me');
    for (let d = 0; d < 5; d++) {
      await fs.mkdir(path.join(vol, `d${d}`, 'deeper'), { recursive: true });
      for (let f = 0; f < 20; f++) await fs.writeFile(path.join(vol, `d${d}`, 'deeper', `f${f}`), 'data');
    }
    await fs.writeFile(path.join(vol, '.hidden'), 'h');
    await fs.symlink(outside, path.join(vol, 'link'));
    await fs.symlink(dir, path.join(vol, 'dirlink'));

    const progress: CleanupProgress[] = [];
    const result = await new CleanupRunner(realAgentOs).run(req('vol'), cls(), (p) => progress.push(p));
    expect(result).toMatchObject({ ok: true });
    expect(await fs.readdir(vol)).toEqual([]);
    expect((await host.mountedAt(vol)) !== undefined).toBe(true);
    expect(await fs.readFile(outside, 'utf8')).toBe('keep me');
    expect(progress.at(-1)).toMatchObject({ unit: 'entries', done: '113', total: '113' });
  });

  it('a volume with another filesystem mounted inside is refused before anything is removed', async () => {
    const vol = path.join(disks, 'vol');
    await fs.mkdir(path.join(vol, 'a'), { recursive: true });
    await fs.writeFile(path.join(vol, 'a', 'keep'), 'x');
    await mountTmpfs(path.join(vol, 'nested'));
    await fs.writeFile(path.join(vol, 'nested', 'other'), 'y');
    const result = await new CleanupRunner(realAgentOs).run(req('vol'), cls(), () => {});
    expect(result).toMatchObject({ ok: false });
    expect(result.error).toContain('another filesystem mounted inside the volume');
    expect((await fs.readdir(vol)).sort()).toEqual(['a', 'nested']);
    expect(await fs.readdir(path.join(vol, 'nested'))).toEqual(['other']);
  });

  it('a directory symlink pointing outside the discovery directory is refused', async () => {
    await fs.mkdir(path.join(dir, 'outside'));
    await fs.writeFile(path.join(dir, 'outside', 'keep'), 'x');
    await fs.symlink(path.join(dir, 'outside'), path.join(disks, 'escape'));
    const result = await new CleanupRunner(realAgentOs).run(req('escape'), cls(), () => {});
    expect(result).toMatchObject({ ok: false, refused: true });
    expect(await fs.readdir(path.join(dir, 'outside'))).toEqual(['keep']);
  });
});

describe.runIf(loop.ok)('block cleanup methods on loop devices (read back)', () => {
  it.each<{ method: CleanupMethod; classCmd?: string[] }>([
    { method: 'dd-zero' },
    { method: 'dd-zero', classCmd: ['dd-zero', '2'] },
    { method: 'blkdiscard' },
    { method: 'shred', classCmd: ['shred', '1'] },
  ])('$method $classCmd leaves every byte zero', async ({ method, classCmd }) => {
    const dev = await loopDevice('w');
    await fs.symlink(dev, path.join(disks, 'blk'));
    expect((await nonZero(dev)).length).toBeGreaterThan(0);
    const progress: CleanupProgress[] = [];
    const result = await new CleanupRunner(realAgentOs).run(
      req('blk', { volumeMode: 'Block', method }),
      cls(classCmd ? { blockCleanerCommand: classCmd } : {}),
      (p) => progress.push(p),
    );
    expect(result, JSON.stringify(result)).toMatchObject({ ok: true });
    expect(await nonZero(dev)).toEqual([]);
    expect(progress.at(-1)).toMatchObject({ unit: 'bytes', done: progress.at(-1)!.total });
    expect(BigInt(progress.at(-1)!.total)).toBeGreaterThanOrEqual(BigInt(DEVICE_BYTES));
  });

  it('fs-reset leaves no filesystem and none of the old files', async () => {
    const dev = await loopDevice('fs');
    await host.mkfs(dev, 'ext4');
    const mnt = path.join(dir, 'm');
    await fs.mkdir(mnt);
    await host.mount(dev, mnt);
    await fs.writeFile(path.join(mnt, 'secret.txt'), 'old tenant data');
    await host.umount(mnt);
    await fs.symlink(dev, path.join(disks, 'blk'));
    const result = await new CleanupRunner(realAgentOs).run(req('blk', { volumeMode: 'Block', method: 'fs-reset' }), cls(), () => {});
    expect(result, JSON.stringify(result)).toMatchObject({ ok: true });
    expect(await host.fsTypeOf(dev)).toBeUndefined();
    const { stdout } = await run('wipefs', ['-n', '-O', 'TYPE', '--noheadings', dev]);
    expect(stdout.trim()).toBe('');
    // The old filesystem cannot be mounted any more.
    await expect(host.mount(dev, mnt, 'ext4')).rejects.toThrow();
  });

  it('a custom command sees the entry (a symlink to the device) in LOCAL_PV_BLKDEVICE and its failure is reported with output', async () => {
    const dev = await loopDevice('c');
    await fs.symlink(dev, path.join(disks, 'blk'));
    const script = path.join(dir, 'wipe.sh');
    const seen = path.join(dir, 'seen');
    await fs.writeFile(script, `#!/bin/sh\nprintf '%s' "$LOCAL_PV_BLKDEVICE" > '${seen}'\ndd if=/dev/zero of="$LOCAL_PV_BLKDEVICE" bs=1M oflag=direct 2>/dev/null\necho done\nexit "\${1:-0}"\n`, { mode: 0o755 });
    const ok = await new CleanupRunner(realAgentOs).run(req('blk', { volumeMode: 'Block', method: 'custom' }), cls({ blockCleanerCommand: [script] }), () => {});
    expect(ok, JSON.stringify(ok)).toMatchObject({ ok: true });
    expect(await fs.readFile(seen, 'utf8')).toBe(path.join(disks, 'blk')); // upstream: the entry under mountDir
    expect(await nonZero(dev)).toEqual([]);

    const bad = await new CleanupRunner(realAgentOs).run(req('blk', { volumeMode: 'Block', method: 'custom', command: [script, '3'] }), cls(), () => {});
    expect(bad).toMatchObject({ ok: false, exitCode: 3, outputTail: ['done'] });
  });

  it('hdparm on a loop device fails with a clear reason', async () => {
    const dev = await loopDevice('h');
    await fs.symlink(dev, path.join(disks, 'blk'));
    const result = await new CleanupRunner(realAgentOs).run(req('blk', { volumeMode: 'Block', method: 'hdparm' }), cls(), () => {});
    expect(result.ok).toBe(false);
    // Without hdparm installed: "cannot run hdparm"; with it: the device has no ATA security.
    expect(result.error).toMatch(/cannot run hdparm|ATA secure erase is not available/);
    expect((await nonZero(dev)).length).toBeGreaterThan(0);
  });

  it('a device outside the discovery directory is refused and left untouched', async () => {
    const dev = await loopDevice('o');
    const runner = new CleanupRunner(realAgentOs);
    const direct = await runner.run(req('x', { volumeMode: 'Block', method: 'dd-zero', hostPath: dev }), cls(), () => {});
    expect(direct).toMatchObject({ ok: false, refused: true });
    const dotdot = await runner.run(req('x', { volumeMode: 'Block', method: 'dd-zero', hostPath: `${disks}/../${path.basename(dev)}` }), cls(), () => {});
    expect(dotdot).toMatchObject({ ok: false, refused: true });
    expect((await nonZero(dev)).length).toBeGreaterThan(0);
  });
});

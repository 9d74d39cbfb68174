import { describe, expect, it } from 'vitest';
import type { LocalClassConfig } from '../domain/local-volume-config';
import { localClass } from './local-class-fixture';
import { discoverAll } from './discovery';
import { FakeAgentOs } from './os-fake';
import { realAgentOs } from './os';
import fs from 'node:fs/promises';
import nodeOs from 'node:os';
import path from 'node:path';

const GiB = 1n << 30n;

const cls = localClass;

/** A discovery directory with one entry of every kind. */
function world() {
  const os = new FakeAgentOs();
  os.mkdir('/mnt/disks').mkdir('/mnt/elsewhere').mkdir('/dev');
  const loop0 = os.blockDevice('/dev/loop0', 64n << 20n);
  os.blockDevice('/dev/loop1', 32n << 20n);
  os.blockDevice('/dev/loop2', 16n << 20n);
  os.mkdir('/mnt/disks/mounted').mount('/mnt/disks/mounted', { totalBytes: 5n * GiB });
  os.mkdir('/mnt/disks/plain');
  os.symlink('/mnt/disks/blk', '/dev/loop0');
  os.writeFile('/mnt/disks/file.txt', 10n);
  os.symlink('/mnt/disks/dangling', '/dev/nothing');
  os.symlink('/mnt/disks/out', '/mnt/elsewhere');
  os.symlink('/mnt/disks/blk-again', '/dev/loop0');
  os.symlink('/mnt/disks/loopy', '/mnt/disks/loopy');
  return { os, loop0 };
}

async function byName(os: FakeAgentOs, c: LocalClassConfig[]) {
  return Object.fromEntries((await discoverAll(os, c)).map((e) => [e.entryName, e]));
}

describe('discoverAll: one entry of each kind in one directory', () => {
  it.each([
    { entry: 'mounted', eligible: true, mode: 'Filesystem', capacity: String(5n * GiB), reason: undefined },
    { entry: 'plain', eligible: true, mode: 'Filesystem', capacity: String(1n << 40n), reason: undefined },
    { entry: 'blk', eligible: true, mode: 'Block', capacity: String(64n << 20n), reason: undefined },
    { entry: 'blk-again', eligible: false, mode: 'Block', capacity: String(64n << 20n), reason: 'the same device is also reachable as /mnt/disks/blk' },
    { entry: 'file.txt', eligible: false, mode: 'Filesystem', capacity: '0', reason: 'not a directory or block device (a regular file)' },
    { entry: 'dangling', eligible: false, mode: 'Filesystem', capacity: '0', reason: 'broken symlink: its target does not exist' },
    { entry: 'loopy', eligible: false, mode: 'Filesystem', capacity: '0', reason: 'broken symlink: a symlink loop' },
    { entry: 'out', eligible: false, mode: 'Filesystem', capacity: '0', reason: 'resolves outside the discovery directory (to /mnt/elsewhere)' },
  ])('$entry -> eligible $eligible ($reason)', async ({ entry, eligible, mode, capacity, reason }) => {
    const { os } = world();
    const e = (await byName(os, [cls()]))[entry];
    expect(e).toMatchObject({ className: 'local', hostPath: `/mnt/disks/${entry}`, eligible, volumeMode: mode, capacityBytes: capacity });
    expect(e.reason).toBe(reason);
  });

  it('reports every entry, sorted by name', async () => {
    const { os } = world();
    expect((await discoverAll(os, [cls()])).map((e) => e.entryName)).toEqual(['blk', 'blk-again', 'dangling', 'file.txt', 'loopy', 'mounted', 'out', 'plain']);
  });
});

describe('discoverAll: class settings', () => {
  it('requireMountPoints makes a plain directory ineligible and keeps the mount point', async () => {
    const { os } = world();
    const r = await byName(os, [cls({ requireMountPoints: true })]);
    expect(r.plain).toMatchObject({ eligible: false, reason: 'not a mount point (this class requires mount points: requireMountPoints)' });
    expect(r.mounted.eligible).toBe(true);
    expect(r.blk.eligible).toBe(true);
  });

  // Upstream: the configured volumeMode decides what a class offers, not what an entry is.
  it('a Block class offers its block devices and none of its directories', async () => {
    const { os } = world();
    const r = await byName(os, [cls({ volumeMode: 'Block' })]);
    expect(r.blk).toMatchObject({ eligible: true, volumeMode: 'Block' });
    expect(r.mounted).toMatchObject({ eligible: false, reason: 'path "/mnt/disks/mounted" of filesystem mode cannot be used to create block volume' });
    expect(r.plain.eligible).toBe(false);
  });

  it('a Filesystem class offers its block devices too (their PVs are Filesystem volumes)', async () => {
    const { os } = world();
    const r = await byName(os, [cls({ volumeMode: 'Filesystem' })]);
    expect(r.blk).toMatchObject({ eligible: true, volumeMode: 'Block' });
    expect(r.mounted.eligible).toBe(true);
  });

  it('minSize makes smaller entries ineligible', async () => {
    const { os } = world();
    const r = await byName(os, [cls({ minSizeBytes: String(48n << 20n) })]);
    expect(r.blk.eligible).toBe(true);
    os.symlink('/mnt/disks/small', '/dev/loop2');
    const r2 = await byName(os, [cls({ minSizeBytes: String(48n << 20n) })]);
    expect(r2.small).toMatchObject({ eligible: false, reason: `smaller (${16n << 20n} bytes) than minSize (${48n << 20n} bytes)` });
  });

  it('namePattern: names that do not match are reported, not offered', async () => {
    const { os } = world();
    const r = await byName(os, [cls({ namePattern: 'b*' })]);
    expect(r.blk.eligible).toBe(true);
    expect(r.plain).toMatchObject({ eligible: false, reason: 'name does not match namePattern "b*"' });
  });

  it('hostPath is hostDir + entry, even when the agent sees the directory under mountDir', async () => {
    const os = new FakeAgentOs();
    os.mkdir('/mnt/local-storage/mnt~ssds/ssd1');
    const [e] = await discoverAll(os, [cls({ hostDir: '/mnt/ssds', mountDir: '/mnt/local-storage/mnt~ssds' })]);
    expect(e).toMatchObject({ entryName: 'ssd1', hostPath: '/mnt/ssds/ssd1', eligible: true });
  });

  it('a missing discovery directory yields nothing', async () => {
    expect(await discoverAll(new FakeAgentOs(), [cls({ mountDir: '/nope', hostDir: '/nope' })])).toEqual([]);
  });

  it('an unreadable directory entry is reported as unreadable', async () => {
    const os = new FakeAgentOs();
    os.mkdir('/mnt/disks/locked', { unreadable: true });
    const [e] = await discoverAll(os, [cls()]);
    expect(e).toMatchObject({ eligible: false, reason: 'unreadable: EACCES' });
  });
});

describe('discoverAll: the same storage reachable twice', () => {
  it('a device mounted in the directory and also linked as a block entry is offered once', async () => {
    const os = new FakeAgentOs();
    os.mkdir('/dev').mkdir('/mnt/disks/fs');
    os.blockDevice('/dev/sdb', 8n * GiB);
    os.mount('/mnt/disks/fs', { source: '/dev/sdb' });
    os.symlink('/mnt/disks/raw', '/dev/sdb');
    const r = await byName(os, [cls()]);
    expect(r.fs.eligible).toBe(true);
    expect(r.raw).toMatchObject({ eligible: false, reason: 'block device /dev/sdb is mounted (at /mnt/disks/fs)' });
  });

  it('a symlink to a directory inside the discovery directory is the same storage as the directory', async () => {
    const os = new FakeAgentOs();
    os.mkdir('/mnt/disks/a').symlink('/mnt/disks/b', '/mnt/disks/a');
    const r = await byName(os, [cls()]);
    expect(r.a.eligible).toBe(true);
    expect(r.b).toMatchObject({ eligible: false, reason: 'the same storage is also reachable as /mnt/disks/a' });
  });

  it('one device in two classes is offered by the first class only', async () => {
    const os = new FakeAgentOs();
    os.mkdir('/dev').mkdir('/mnt/fast').mkdir('/mnt/slow');
    os.blockDevice('/dev/sdc', GiB);
    os.symlink('/mnt/fast/d', '/dev/sdc').symlink('/mnt/slow/d', '/dev/sdc');
    const r = await discoverAll(os, [cls({ className: 'fast', hostDir: '/mnt/fast', mountDir: '/mnt/fast' }), cls({ className: 'slow', hostDir: '/mnt/slow', mountDir: '/mnt/slow' })]);
    expect(r.map((e) => [e.className, e.eligible])).toEqual([
      ['fast', true],
      ['slow', false],
    ]);
    expect(r[1].reason).toBe('the same device is also reachable as /mnt/fast/d');
  });
});

// Seed 003, "Local volume provisioner unit tests": the discovery half of each item (the PV
// half belongs to the manager). Named after the seed's list.
describe('seed 003 provisioner tests (discovery half)', () => {
  it.each([
    {
      name: 'Directory not in the cache and PV should be created: a new directory is discovered as eligible',
      setup: (os: FakeAgentOs) => os.mkdir('/mnt/disks/new'),
      expect: [['new', true]],
    },
    {
      name: 'Directories created later are discovered',
      setup: (os: FakeAgentOs) => os.mkdir('/mnt/disks/early').mkdir('/mnt/disks/late'),
      expect: [['early', true], ['late', true]],
    },
    {
      name: 'Non-directory type should not create a PV',
      setup: (os: FakeAgentOs) => os.writeFile('/mnt/disks/f', 1n),
      expect: [['f', false]],
    },
    {
      name: 'Unconfigured directories are ignored',
      setup: (os: FakeAgentOs) => os.mkdir('/mnt/other/x').mkdir('/mnt/disks'),
      expect: [],
    },
    {
      name: 'A discovery directory with block and filesystem volumes discovers both',
      setup: (os: FakeAgentOs) => {
        os.mkdir('/dev').mkdir('/mnt/disks/dir');
        os.blockDevice('/dev/loop9', 1n << 20n);
        os.symlink('/mnt/disks/dev', '/dev/loop9');
      },
      expect: [['dev', true], ['dir', true]],
    },
  ])('$name', async ({ setup, expect: want }) => {
    const os = new FakeAgentOs();
    os.mkdir('/mnt/disks');
    setup(os);
    const r = await discoverAll(os, [cls()]);
    expect(r.map((e) => [e.entryName, e.eligible])).toEqual(want);
  });

  it('PVs are created with the configured StorageClass: entries carry their class', async () => {
    const os = new FakeAgentOs();
    os.mkdir('/mnt/a/x').mkdir('/mnt/b/y');
    const r = await discoverAll(os, [cls({ className: 'gold', hostDir: '/mnt/a', mountDir: '/mnt/a' }), cls({ className: 'bronze', hostDir: '/mnt/b', mountDir: '/mnt/b' })]);
    expect(r.map((e) => [e.className, e.hostPath])).toEqual([
      ['gold', '/mnt/a/x'],
      ['bronze', '/mnt/b/y'],
    ]);
  });
});

describe('discoverAll while this agent wipes a disk', () => {
  it('Ensure a new PV is not created while cleaning of volume behind the PV is still in progress (agent half): the entry is not eligible', async () => {
    const os = new FakeAgentOs();
    os.mkdir('/mnt/disks/a').mkdir('/mnt/disks/b');
    const r = await discoverAll(os, [cls()], { cleaning: new Set(['/mnt/disks/a']) });
    expect(r.map((e) => [e.entryName, e.eligible, e.cleanupRunning ?? false, e.reason])).toEqual([
      ['a', false, true, 'a cleanup of this disk is running'],
      ['b', true, false, undefined],
    ]);
  });
});

describe('plain directories are not disks of their own', () => {
  it('two directories on one filesystem share it: each gets half, the sum is the filesystem once (real directories)', async () => {
    const dir = await fs.mkdtemp(path.join(nodeOs.tmpdir(), 'stowage-discovery-'));
    try {
      await fs.mkdir(path.join(dir, 'a'));
      await fs.mkdir(path.join(dir, 'b'));
      const total = (await fs.statfs(dir, { bigint: true })).blocks * (await fs.statfs(dir, { bigint: true })).bsize;
      const entries = await discoverAll(realAgentOs, [cls({ hostDir: dir, mountDir: dir })]);
      expect(entries.map((e) => [e.entryName, e.eligible])).toEqual([['a', true], ['b', true]]);
      const sizes = entries.map((e) => BigInt(e.capacityBytes));
      expect(sizes[0]).toBe(total / 2n);
      expect(sizes[1]).toBe(total / 2n);
      expect(sizes[0] + sizes[1]).toBeLessThanOrEqual(total);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('the share counts directories of every class on the filesystem; a mount point keeps its own size', async () => {
    const os = new FakeAgentOs();
    os.mkdir('/mnt/a/x').mkdir('/mnt/b/y').mkdir('/mnt/b/z').mkdir('/mnt/a/m').mount('/mnt/a/m', { totalBytes: 5n * GiB });
    const entries = await discoverAll(os, [cls({ className: 'a', hostDir: '/mnt/a', mountDir: '/mnt/a' }), cls({ className: 'b', hostDir: '/mnt/b', mountDir: '/mnt/b' })]);
    const by = Object.fromEntries(entries.map((e) => [e.entryName, e.capacityBytes]));
    expect(by).toEqual({ m: String(5n * GiB), x: String((1n << 40n) / 3n), y: String((1n << 40n) / 3n), z: String((1n << 40n) / 3n) });
  });

  it('directoryCapacity declares the size of each plain directory', async () => {
    const os = new FakeAgentOs();
    os.mkdir('/mnt/disks/x').mkdir('/mnt/disks/y');
    const entries = await discoverAll(os, [cls({ directoryCapacityBytes: String(20n * GiB) })]);
    expect(entries.map((e) => e.capacityBytes)).toEqual([String(20n * GiB), String(20n * GiB)]);
  });

  it('minSize applies to the share', async () => {
    const os = new FakeAgentOs();
    os.mkdir('/mnt/disks/x').mkdir('/mnt/disks/y');
    const entries = await discoverAll(os, [cls({ minSizeBytes: String(600n * GiB) })]);
    expect(entries.map((e) => e.eligible)).toEqual([false, false]);
    expect(entries[0].reason).toMatch(/^smaller \(549755813888 bytes, its share of a filesystem other directories use too\) than minSize/);
  });
});

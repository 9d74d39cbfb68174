import fs from 'node:fs/promises';
import nodeOs from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRealOs } from './os';
import { FakeOs, FaultyOs } from './os-fake';
import { releaseEverythingUnder } from './testing';

describe('the real OS is idempotent where cleanup needs it', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(nodeOs.tmpdir(), 'stowage-os-'));
  });
  afterEach(async () => {
    await releaseEverythingUnder(dir);
  });

  it('rm, rmdir and umount of what is not there succeed', async () => {
    const os = createRealOs();
    await os.rm(path.join(dir, 'nothing'));
    await os.rmdir(path.join(dir, 'nothing'));
    await os.umount(dir);
    expect(await os.mountedAt(dir)).toBeUndefined();
  });

  it('truncate makes a sparse file of exactly the size', async () => {
    const os = createRealOs();
    const f = path.join(dir, 'f.img');
    await os.truncate(f, 3n << 20n);
    expect(await os.sizeOf(f)).toBe(3n << 20n);
    expect(await os.sizeOf(path.join(dir, 'none'))).toBeUndefined();
    expect((await os.statfs(dir)).totalBytes).toBeGreaterThan(0n);
  });

  it.each([
    { what: 'an existing plain directory', link: undefined, ask: 'plain', want: 'plain' },
    { what: 'a path that does not exist yet', link: undefined, ask: 'plain/new/deeper', want: 'plain/new/deeper' },
    { what: 'a symlink', link: 'ln', ask: 'ln', want: 'plain' },
    { what: 'a path that passes through a symlink', link: 'ln', ask: 'ln/new', want: 'plain/new' },
  ])('realpath of $what', async ({ link, ask, want }) => {
    const os = createRealOs();
    const real = await fs.realpath(dir);
    await fs.mkdir(path.join(dir, 'plain'));
    if (link) await fs.symlink(path.join(dir, 'plain'), path.join(dir, link));
    expect(await os.realpath(path.join(real, ask))).toBe(path.join(real, want));
  });

  it('mkdir applies the mode even under a umask', async () => {
    const os = createRealOs();
    await os.mkdir(path.join(dir, 'a/b'), 0o777);
    expect((await fs.stat(path.join(dir, 'a/b'))).mode & 0o777).toBe(0o777);
  });

  it('hostname is the configured node name when there is one', () => {
    expect(createRealOs('node-x').hostname()).toBe('node-x');
    expect(createRealOs().hostname()).toBe(nodeOs.hostname());
  });
});

describe('FakeOs is as strict as the kernel where it matters', () => {
  it('refuses to remove a mounted directory or detach a mounted device', async () => {
    const os = new FakeOs();
    await os.mkdir('/d/m');
    await os.truncate('/d/f.img', 2n << 20n);
    const dev = await os.losetupAttach('/d/f.img');
    await os.mkfs(dev, 'ext4');
    await os.mount(dev, '/d/m');
    await expect(os.rm('/d')).rejects.toThrow(/EBUSY/);
    await expect(os.losetupDetach(dev)).rejects.toThrow(/EBUSY/);
    await os.umount('/d/m');
    await os.losetupDetach(dev);
    await os.rm('/d');
    expect(await os.exists('/d')).toBe(false);
  });

  it('FaultyOs fails planned calls before they take effect, random ones sometimes after', async () => {
    const inner = new FakeOs();
    const os = new FaultyOs(inner);
    os.failNext('mkdir');
    await expect(os.mkdir('/x')).rejects.toThrow(/injected failure: mkdir\(\/x\)/);
    expect(await inner.exists('/x')).toBe(false);
    let n = 0;
    os.policy = { rate: 1, random: () => (n++ % 2 === 0 ? 0 : 0.2) };
    await expect(os.mkdir('/y')).rejects.toThrow(/injected/);
    expect(await inner.exists('/y')).toBe(true);
    expect(os.injected).toBe(2);
  });
});

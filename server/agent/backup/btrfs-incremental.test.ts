// Incremental backups on a real btrfs (a file-backed loop device): with the parent's
// read-only snapshot only the changed ranges are read and stored; the restored tree equals
// the new snapshot, including files renamed and directories swapped between snapshots.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, poolSupport } from '../pool-setup';
import { releaseAndWarn } from '../../provisioners/testing';
import { runBackup } from './backup';
import { runRestore } from './restore';
import { origin, treeDigest } from './testing';

const run = promisify(execFile);
const support = await poolSupport();
if (!support.ok) console.log(`[skip] btrfs incremental backups: ${support.reason}`);

describe.runIf(support.ok)('incremental backup from a btrfs parent snapshot', () => {
  let work: string;
  let pool: string;
  let target: string;
  beforeAll(async () => {
    work = await fs.mkdtemp(path.join(os.tmpdir(), 'stowage-mover-btrfs-'));
    pool = path.join(work, 'pool');
    await createPool({ source: path.join(work, 'pool.img'), mount: pool, sizeBytes: 512n << 20n });
    target = path.join(work, 'target');
    await fs.mkdir(target);
  });
  afterAll(async () => {
    if (work) await releaseAndWarn(work);
  });

  const btrfs = (...args: string[]) => run('btrfs', args);
  const snapshot = (name: string) => btrfs('subvolume', 'snapshot', '-r', path.join(pool, 'vol'), path.join(pool, name));
  async function restoreAndCompare(id: string, snap: string): Promise<void> {
    const dest = path.join(work, `dest-${id}`);
    await fs.mkdir(dest);
    await runRestore({ targetRoot: target, backupId: id, destination: { format: 'files', root: dest } });
    const want = await treeDigest(path.join(pool, snap));
    expect(await treeDigest(dest)).toEqual(want);
  }

  it('reads and stores only the changed ranges, and restores the new snapshot exactly', async () => {
    const vol = path.join(pool, 'vol');
    await btrfs('subvolume', 'create', vol);
    await fs.writeFile(path.join(vol, 'big'), randomBytes(32 << 20));
    for (const d of ['x', 'y']) {
      await fs.mkdir(path.join(vol, d));
      await fs.writeFile(path.join(vol, d, 'same-name'), `content of ${d} `.repeat(1000));
    }
    await fs.writeFile(path.join(vol, 'old-name'), randomBytes(100_000));
    await snapshot('s1');
    const full = await runBackup({ targetRoot: target, backupId: 'full', source: { format: 'files', root: path.join(pool, 's1') }, origin });
    expect(full.mode).toBe('full');

    // 1 MiB rewritten across a chunk boundary in place, a file renamed, two directories swapped, a new file.
    const fh = await fs.open(path.join(vol, 'big'), 'r+');
    await fh.write(randomBytes(1 << 20), 0, 1 << 20, (10 << 20) + 4096);
    await fh.close();
    await fs.rename(path.join(vol, 'old-name'), path.join(vol, 'new-name'));
    await fs.rename(path.join(vol, 'x'), path.join(vol, 'tmp'));
    await fs.rename(path.join(vol, 'y'), path.join(vol, 'x'));
    await fs.rename(path.join(vol, 'tmp'), path.join(vol, 'y'));
    await fs.writeFile(path.join(vol, 'fresh'), 'new');
    await snapshot('s2');

    const inc = await runBackup({ targetRoot: target, backupId: 'inc', source: { format: 'files', root: path.join(pool, 's2') }, origin, parentBackupId: 'full', parentSourcePath: path.join(pool, 's1') });
    expect(inc.mode).toBe('btrfs');
    // Read: the 2 chunks the write touched, plus the renamed, swapped and new files (~130 KB).
    expect(inc.readBytes).toBeLessThan((2 << 20) + 200_000);
    expect(inc.readBytes).toBeGreaterThanOrEqual(BigInt(2 << 20));
    expect(inc.newBytes).toBeLessThan((2 << 20) + 200_000);
    expect(inc.totalBytes).toBe(full.totalBytes + 3n);
    await restoreAndCompare('inc', 's2');
  });

  it('without the parent snapshot, reads a changed file whole (size+mtime differ) and still restores exactly', async () => {
    const vol = path.join(pool, 'vol');
    const fh = await fs.open(path.join(vol, 'big'), 'r+');
    await fh.write(randomBytes(4096), 0, 4096, 0);
    await fh.close();
    await snapshot('s3');
    const inc = await runBackup({ targetRoot: target, backupId: 'inc2', source: { format: 'files', root: path.join(pool, 's3') }, origin, parentBackupId: 'inc' });
    expect(inc.mode).toBe('parent');
    expect(inc.readBytes).toBeGreaterThanOrEqual(BigInt(32 << 20));
    expect(inc.newBytes).toBeLessThan(2n << 20n);
    await restoreAndCompare('inc2', 's3');
  });

  it('falls back to reading everything when the parent snapshot is not the one the parent backup was made from', async () => {
    await snapshot('s4');
    const inc = await runBackup({ targetRoot: target, backupId: 'inc3', source: { format: 'files', root: path.join(pool, 's4') }, origin, parentBackupId: 'full', parentSourcePath: path.join(pool, 's3') });
    expect(inc.mode).toBe('parent');
    await restoreAndCompare('inc3', 's4');
  });
});

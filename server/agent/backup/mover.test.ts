// The data mover on real directories: round trips (tree, image), dedupe, damage found by
// verify and refused by restore, a missing backup, an aborted backup, hostile manifests,
// and the target probe.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { releaseAndWarn } from '../../provisioners/testing';
import { runBackup } from './backup';
import { writeFileAtomic } from './chunk-store';
import { DamagedChunkError, MissingBackupError, chunkPath, layout, manifestSchema, type Manifest } from './format';
import { runRestore, verifyBackup } from './restore';
import { deleteBackup, listBackups, probeTarget, targetFigures } from './target';
import { fileHash, origin, treeDigest, writeSampleTree } from './testing';

const run = promisify(execFile);
let work: string;
let target: string;
beforeEach(async () => {
  work = await fs.mkdtemp(path.join(os.tmpdir(), 'stowage-mover-'));
  target = path.join(work, 'target');
  await fs.mkdir(target);
});
afterEach(async () => {
  await releaseAndWarn(work);
});

async function readManifestJson(id: string): Promise<Manifest> {
  return manifestSchema.parse(JSON.parse(await fs.readFile(path.join(layout(target).backups, `${id}.json`), 'utf8')));
}

describe('round trips', () => {
  it('restores a tree with dirs, symlinks, modes, an empty file, a sparse file and a 5 MiB file as it was', async () => {
    const src = path.join(work, 'src');
    await fs.mkdir(src);
    await writeSampleTree(src);
    await fs.chmod(src, 0o750);
    const before = await treeDigest(src);
    const r = await runBackup({ targetRoot: target, backupId: 'b1', source: { format: 'files', root: src }, origin });
    expect(r.totalBytes).toBe(BigInt((5 << 20) + 1_400_000 + 1 + 18 + (12 << 20)));
    expect(r.newChunks).toBe(r.chunks);
    // The compressible file was stored deflated: the target holds far less than the files' bytes minus holes.
    const figures = await targetFigures(target);
    expect(figures.backups).toBe(1);
    expect(figures.storedBytes).toBeLessThan(BigInt((5 << 20) + 1_400_000 / 4 + (1 << 20)));
    const dest = path.join(work, 'dest');
    await fs.mkdir(dest);
    const restored = await runRestore({ targetRoot: target, backupId: 'b1', destination: { format: 'files', root: dest } });
    expect(restored.totalBytes).toBe(r.totalBytes);
    expect(await treeDigest(dest)).toEqual(before);
    expect((await fs.stat(dest)).mode & 0o7777).toBe(0o750);
    // The sparse file kept its holes.
    const sp = await fs.stat(path.join(dest, 'sparse.img'));
    expect(sp.blocks * 512).toBeLessThan(2 << 20);
    expect((await fs.lstat(path.join(dest, 'dir/link-dangling'))).isSymbolicLink()).toBe(true);
  });

  it('restores an image file with its holes', async () => {
    const img = path.join(work, 'vol.img');
    await fs.writeFile(img, '');
    await fs.truncate(img, 20 << 20);
    const fh = await fs.open(img, 'r+');
    await fh.write(randomBytes(3 << 20), 0, 3 << 20, 1 << 20);
    await fh.write(Buffer.alloc(5000, 9), 0, 5000, (15 << 20) + 17);
    await fh.close();
    const r = await runBackup({ targetRoot: target, backupId: 'img-1', source: { format: 'image', file: img }, origin });
    expect(r.totalBytes).toBe(BigInt(20 << 20));
    const m = await readManifestJson('img-1');
    expect(m.image!.chunks.filter((c) => c === null).length).toBe(16);
    const out = path.join(work, 'restored.img');
    await runRestore({ targetRoot: target, backupId: 'img-1', destination: { format: 'image', file: out } });
    expect(await fileHash(out)).toBe(await fileHash(img));
    expect((await fs.stat(out)).blocks * 512).toBeLessThan(6 << 20);
  });

  it('refuses to restore a tree into an image file', async () => {
    const src = path.join(work, 'src');
    await fs.mkdir(src);
    await fs.writeFile(path.join(src, 'a'), 'a');
    await runBackup({ targetRoot: target, backupId: 'b1', source: { format: 'files', root: src }, origin });
    await expect(runRestore({ targetRoot: target, backupId: 'b1', destination: { format: 'image', file: path.join(work, 'x.img') } })).rejects.toThrow(/directory tree/);
  });
});

describe('dedupe', () => {
  it('stores two identical trees once: the second backup writes no new chunk', async () => {
    const a = path.join(work, 'a');
    const b = path.join(work, 'b');
    await fs.mkdir(a);
    await writeSampleTree(a);
    await run('cp', ['-a', `${a}/.`, b]);
    const first = await runBackup({ targetRoot: target, backupId: 'a', source: { format: 'files', root: a }, origin });
    const stored = (await targetFigures(target)).storedBytes;
    const second = await runBackup({ targetRoot: target, backupId: 'b', source: { format: 'files', root: b }, origin });
    expect(first.newBytes).toBeGreaterThan(0n);
    expect(second.newBytes).toBe(0n);
    expect(second.newChunks).toBe(0);
    expect(second.chunks).toBe(first.chunks);
    const figures = await targetFigures(target);
    expect(figures.storedBytes).toBe(stored);
    expect(figures.logicalBytes).toBe(first.totalBytes * 2n);
    expect((await listBackups(target)).map((s) => s.backupId).sort()).toEqual(['a', 'b']);
  });

  it('reuses the parent backup\'s chunks unread for files whose size, mtime and inode are unchanged', async () => {
    const src = path.join(work, 'src');
    await fs.mkdir(src);
    await writeSampleTree(src);
    await runBackup({ targetRoot: target, backupId: 'p1', source: { format: 'files', root: src }, origin });
    await fs.appendFile(path.join(src, 'dir/sub/script.sh'), 'echo more\n');
    const second = await runBackup({ targetRoot: target, backupId: 'p2', source: { format: 'files', root: src }, origin, parentBackupId: 'p1' });
    expect(second.mode).toBe('parent');
    expect(second.readBytes).toBe(28n);
    expect(second.newChunks).toBe(1);
    const dest = path.join(work, 'dest');
    await fs.mkdir(dest);
    await runRestore({ targetRoot: target, backupId: 'p2', destination: { format: 'files', root: dest } });
    expect(await treeDigest(dest)).toEqual(await treeDigest(src));
  });
});

describe('damage and absence', () => {
  async function backupOne(): Promise<{ src: string; chunk: string }> {
    const src = path.join(work, 'src');
    await fs.mkdir(src);
    await fs.writeFile(path.join(src, 'data'), randomBytes(3 << 20));
    await runBackup({ targetRoot: target, backupId: 'd1', source: { format: 'files', root: src }, origin });
    const m = await readManifestJson('d1');
    const file = m.entries!.find((e) => e.type === 'file');
    return { src, chunk: (file as { chunks: string[] }).chunks[1] };
  }

  it('finds a damaged chunk by verify, names it, and restore refuses it', async () => {
    const { chunk } = await backupOne();
    expect(await verifyBackup({ targetRoot: target, backupId: 'd1' })).toEqual({ ok: true, chunks: 3, bytes: BigInt(3 << 20) });
    const f = chunkPath(layout(target), chunk);
    const fh = await fs.open(f, 'r+');
    await fh.write(Buffer.from([0x55]), 0, 1, 1000);
    await fh.close();
    const v = await verifyBackup({ targetRoot: target, backupId: 'd1' });
    expect(v).toMatchObject({ ok: false, chunk });
    const dest = path.join(work, 'dest');
    await fs.mkdir(dest);
    const err = await runRestore({ targetRoot: target, backupId: 'd1', destination: { format: 'files', root: dest } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DamagedChunkError);
    expect(err).toMatchObject({ backupId: 'd1', chunk });
    expect((err as Error).message).toContain(chunk);
  });

  it('names a chunk missing from the target', async () => {
    const { chunk } = await backupOne();
    await fs.rm(chunkPath(layout(target), chunk));
    expect(await verifyBackup({ targetRoot: target, backupId: 'd1' })).toEqual({ ok: false, chunk, reason: 'is missing from the target' });
  });

  it('answers MissingBackupError for a backup without a manifest', async () => {
    const dest = path.join(work, 'dest');
    await fs.mkdir(dest);
    await expect(runRestore({ targetRoot: target, backupId: 'nope', destination: { format: 'files', root: dest } })).rejects.toBeInstanceOf(MissingBackupError);
    await expect(verifyBackup({ targetRoot: target, backupId: 'nope' })).rejects.toBeInstanceOf(MissingBackupError);
    await deleteBackup({ targetRoot: target, backupId: 'nope' }); // idempotent
  });

  it('leaves no manifest, lease or pending manifest when a backup is aborted midway', async () => {
    const src = path.join(work, 'src');
    await fs.mkdir(src);
    await fs.writeFile(path.join(src, 'data'), randomBytes(8 << 20));
    const ac = new AbortController();
    let calls = 0;
    const p = runBackup({
      targetRoot: target,
      backupId: 'aborted',
      source: { format: 'files', root: src },
      origin,
      signal: ac.signal,
      chunkBytes: 64 << 10,
      onProgress: (pr) => {
        calls++;
        if (pr.doneBytes > 0n) ac.abort();
      },
    });
    await expect(p).rejects.toThrow(/abort/i);
    expect(calls).toBeGreaterThan(0);
    const l = layout(target);
    expect(await fs.readdir(l.backups)).toEqual([]);
    expect(await fs.readdir(l.running)).toEqual([]);
    expect(await listBackups(target)).toEqual([]);
  });
});

describe('hostile input', () => {
  it('refuses backup ids that could name another file', async () => {
    for (const id of ['../x', 'a/b', '..', '.hidden', '', 'a'.repeat(254)]) {
      await expect(runBackup({ targetRoot: target, backupId: id, source: { format: 'files', root: work }, origin })).rejects.toThrow(/backup id/);
      await expect(deleteBackup({ targetRoot: target, backupId: id })).rejects.toThrow(/backup id/);
    }
  });

  async function plant(entries: unknown[]): Promise<string> {
    const src = path.join(work, 'src');
    await fs.mkdir(src, { recursive: true });
    await runBackup({ targetRoot: target, backupId: 'h1', source: { format: 'files', root: src }, origin });
    const m = JSON.parse(await fs.readFile(path.join(layout(target).backups, 'h1.json'), 'utf8')) as Record<string, unknown>;
    m.entries = entries;
    await writeFileAtomic(path.join(layout(target).backups, 'h1.json'), JSON.stringify(m));
    const dest = path.join(work, 'dest');
    await fs.mkdir(dest, { recursive: true });
    return dest;
  }
  const meta = { mode: 0o644, uid: 0, gid: 0, mtimeNs: '0' };

  it('never writes outside the destination: `..`, absolute paths, and files through a restored symlink are refused', async () => {
    const outside = path.join(work, 'outside');
    await fs.mkdir(outside);
    const cases: unknown[][] = [
      [{ type: 'file', path: '../outside/evil', size: '0', chunks: [], ...meta }],
      [{ type: 'file', path: `${outside}/evil`, size: '0', chunks: [], ...meta }],
      [{ type: 'dir', path: 'a/../../outside', ...meta }],
      [
        { type: 'symlink', path: 'link', target: outside, ...meta },
        { type: 'file', path: 'link/evil', size: '0', chunks: [], ...meta },
      ],
      [
        { type: 'file', path: 'twice', size: '0', chunks: [], ...meta },
        { type: 'file', path: 'twice', size: '0', chunks: [], ...meta },
      ],
      [{ type: 'file', path: 'huge', size: '99999999999999999', chunks: [], ...meta }],
    ];
    for (const entries of cases) {
      const dest = await plant(entries);
      await expect(runRestore({ targetRoot: target, backupId: 'h1', destination: { format: 'files', root: dest } })).rejects.toThrow(/manifest/);
      expect(await fs.readdir(outside)).toEqual([]);
      expect(await fs.readdir(dest)).toEqual([]);
      await fs.rm(dest, { recursive: true });
      await fs.rm(path.join(work, 'src'), { recursive: true });
      await deleteBackup({ targetRoot: target, backupId: 'h1' });
    }
  });

  it('treats an invalid or oversized-field manifest as a missing backup and leaves it out of the list', async () => {
    const dest = await plant([{ type: 'file', path: 'x', size: '1', chunks: ['not-a-hash'], ...meta }]);
    await expect(runRestore({ targetRoot: target, backupId: 'h1', destination: { format: 'files', root: dest } })).rejects.toThrow(/not valid/);
    expect(await listBackups(target)).toEqual([]);
  });
});

describe('probe', () => {
  it('says why a missing directory is not reachable', async () => {
    const p = await probeTarget(path.join(work, 'absent'));
    expect(p).toMatchObject({ reachable: false, writable: false });
    expect(p.reason).toMatch(/does not exist/);
  });

  it('reports a writable directory with its space', async () => {
    const p = await probeTarget(target);
    expect(p).toMatchObject({ reachable: true, writable: true });
    expect(p.totalBytes! > 0n && p.freeBytes! <= p.totalBytes!).toBe(true);
    expect(await fs.readdir(target)).toEqual([]);
  });

  it('says why a read-only mount is not writable', async () => {
    const ro = path.join(work, 'ro');
    await fs.mkdir(ro);
    try {
      await run('mount', ['-t', 'tmpfs', '-o', 'ro,size=1m', 'tmpfs', ro]);
    } catch (e) {
      console.log(`[skip] read-only probe: cannot mount here (${(e as Error).message})`);
      return;
    }
    const p = await probeTarget(ro);
    expect(p).toMatchObject({ reachable: true, writable: false });
    expect(p.reason).toMatch(/read-only/);
  });
});

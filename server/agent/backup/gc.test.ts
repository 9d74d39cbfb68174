// Garbage collection on real directories: it removes only unreferenced chunks, and a backup
// that reuses chunks a concurrent GC is removing still ends with every chunk present
// (taken back from the trash, or rewritten from its source).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { releaseAndWarn } from '../../provisioners/testing';
import { runBackup } from './backup';
import { chunkPath, layout, manifestChunkIds, manifestSchema } from './format';
import { collectGarbage } from './gc';
import { runRestore, verifyBackup } from './restore';
import { deleteBackup, targetFigures } from './target';
import { origin, treeDigest, until } from './testing';

let work: string;
let target: string;
let src: string;
const chunkBytes = 64 << 10;
beforeEach(async () => {
  work = await fs.mkdtemp(path.join(os.tmpdir(), 'stowage-mover-gc-'));
  target = path.join(work, 'target');
  src = path.join(work, 'src');
  await fs.mkdir(target);
  await fs.mkdir(src);
  // 24 files of 256 KiB random: 96 chunks.
  await Promise.all(Array.from({ length: 24 }, (_, i) => fs.writeFile(path.join(src, `f${i}`), randomBytes(256 << 10))));
});
afterEach(async () => {
  await releaseAndWarn(work);
});

const backup = (id: string, root = src, extra: Partial<Parameters<typeof runBackup>[0]> = {}) => runBackup({ targetRoot: target, backupId: id, source: { format: 'files', root }, origin, chunkBytes, ...extra });
async function chunksOf(id: string): Promise<Set<string>> {
  const m = manifestSchema.parse(JSON.parse(await fs.readFile(path.join(layout(target).backups, `${id}.json`), 'utf8')));
  return new Set(manifestChunkIds(m));
}
async function restoresAsSource(id: string): Promise<void> {
  expect(await verifyBackup({ targetRoot: target, backupId: id })).toMatchObject({ ok: true, chunks: 96 });
  const dest = path.join(work, `restore-${id}-${randomBytes(3).toString('hex')}`);
  await fs.mkdir(dest);
  await runRestore({ targetRoot: target, backupId: id, destination: { format: 'files', root: dest } });
  expect(await treeDigest(dest)).toEqual(await treeDigest(src));
}

describe('collectGarbage', () => {
  it('removes the chunks only a deleted backup referenced, and keeps shared ones and young ones', async () => {
    const other = path.join(work, 'other');
    await fs.mkdir(other);
    await fs.copyFile(path.join(src, 'f0'), path.join(other, 'shared'));
    await fs.writeFile(path.join(other, 'own'), randomBytes(128 << 10));
    await backup('a');
    await backup('b', other);
    const a = await chunksOf('a');
    const b = await chunksOf('b');
    await deleteBackup({ targetRoot: target, backupId: 'a' });
    // Within the grace period nothing goes.
    expect(await collectGarbage({ targetRoot: target })).toEqual({ removedChunks: 0, removedBytes: 0n });
    const r = await collectGarbage({ targetRoot: target, graceMs: 0 });
    const onlyA = [...a].filter((c) => !b.has(c));
    expect(r.removedChunks).toBe(onlyA.length);
    expect(r.removedBytes).toBe(BigInt(onlyA.length) * BigInt(chunkBytes + 1));
    for (const c of onlyA) await expect(fs.access(chunkPath(layout(target), c))).rejects.toThrow();
    expect(await verifyBackup({ targetRoot: target, backupId: 'b' })).toMatchObject({ ok: true, chunks: b.size });
    expect((await targetFigures(target)).storedBytes).toBe(BigInt(b.size) * BigInt(chunkBytes + 1));
    expect(await fs.readdir(layout(target).trash)).toEqual([]);
  });

  it('cleans temp files and stale leases left by a crash, and never a live lease', async () => {
    await backup('a');
    const l = layout(target);
    const stale = new Date(Date.now() - 3600_000);
    await fs.writeFile(path.join(l.running, 'dead.json'), JSON.stringify({ backupId: 'dead', pid: 1, host: 'h', startedAt: stale.toISOString(), renewedAt: stale.toISOString() }));
    await fs.utimes(path.join(l.running, 'dead.json'), stale, stale);
    await fs.writeFile(path.join(l.running, 'live.json'), JSON.stringify({ backupId: 'live', pid: 1, host: 'h', startedAt: new Date().toISOString(), renewedAt: new Date().toISOString() }));
    const tmp = path.join(l.chunks, 'ab', `ab${'0'.repeat(62)}.tmp-123`);
    await fs.mkdir(path.dirname(tmp), { recursive: true });
    await fs.writeFile(tmp, 'partial');
    await fs.utimes(tmp, stale, stale);
    await collectGarbage({ targetRoot: target, graceMs: 60_000 });
    expect((await fs.readdir(l.running)).sort()).toEqual(['live.json']);
    await expect(fs.access(tmp)).rejects.toThrow();
    expect(await verifyBackup({ targetRoot: target, backupId: 'a' })).toMatchObject({ ok: true });
  });

  it('stops without removing anything when a manifest cannot be read', async () => {
    await backup('a');
    await deleteBackup({ targetRoot: target, backupId: 'a' });
    await fs.writeFile(path.join(layout(target).backups, 'broken.json'), '{"kind":');
    await expect(collectGarbage({ targetRoot: target, graceMs: 0 })).rejects.toThrow(/broken/);
    expect((await targetFigures(target)).storedBytes).toBe(96n * BigInt(chunkBytes + 1));
  });
});

describe('collectGarbage beside a running backup', () => {
  // Backup "a" is deleted, so its chunks are garbage; backup "b" of the same data reuses them.
  beforeEach(async () => {
    await backup('a');
    await deleteBackup({ targetRoot: target, backupId: 'a' });
  });

  it('a GC that removes the reused chunks before the backup publishes: the backup rewrites them from its source', async () => {
    let gc: { removedChunks: number } | undefined;
    const r = await backup('b', src, {
      beforePublish: async () => {
        gc = await collectGarbage({ targetRoot: target, graceMs: 0 });
      },
    });
    expect(r.newChunks).toBe(0); // every chunk existed when it was read
    expect(gc?.removedChunks).toBe(96); // and the GC removed every one of them
    await restoresAsSource('b');
  });

  it('a GC paused after its trash move: the backup takes the chunks back and the GC then keeps them', async () => {
    let trashed!: () => void;
    const trashedP = new Promise<void>((r) => (trashed = r));
    let published!: () => void;
    const publishedP = new Promise<void>((r) => (published = r));
    let gcRun: Promise<{ removedChunks: number }> | undefined;
    const r = await backup('b', src, {
      beforePublish: async () => {
        gcRun = collectGarbage({
          targetRoot: target,
          graceMs: 0,
          afterTrash: async (ids) => {
            expect(ids.length).toBe(96);
            trashed();
            await publishedP;
          },
        });
        await trashedP;
      },
    });
    published();
    expect(r.newChunks).toBe(0);
    expect((await gcRun!).removedChunks).toBe(0);
    await restoresAsSource('b');
  });

  it('a GC that re-reads while the backup publishes keeps everything the pending manifest names', async () => {
    let gcRun: Promise<{ removedChunks: number }> | undefined;
    let release!: () => void;
    const hold = new Promise<void>((r) => (release = r));
    const b = backup('b', src, {
      beforePublish: async () => {
        // The GC moves everything to its trash and waits; the backup then writes its pending manifest.
        let moved = false;
        gcRun = collectGarbage({
          targetRoot: target,
          graceMs: 0,
          afterTrash: async () => {
            moved = true;
            await hold;
          },
        });
        await until('the GC trashed the chunks', () => moved);
      },
    });
    await until('the pending manifest is written', async () => (await fs.readdir(layout(target).running)).some((n) => n.endsWith('.manifest')) || (await fs.readdir(layout(target).backups)).includes('b.json'));
    release();
    await b;
    expect((await gcRun!).removedChunks).toBe(0);
    await restoresAsSource('b');
  });

  it('free-running: backups and GCs started together, five times, always leave complete backups', async () => {
    for (let i = 0; i < 5; i++) {
      const id = `b${i}`;
      const [r] = await Promise.all([backup(id), collectGarbage({ targetRoot: target, graceMs: 0 }).catch((e: Error) => (/another garbage collection/.test(e.message) ? undefined : Promise.reject(e)))]);
      expect(r.chunks).toBe(96);
      await restoresAsSource(id);
      await deleteBackup({ targetRoot: target, backupId: id });
    }
  });
});

// runRestore and verifyBackup. Every chunk is read, inflated and its SHA-256 checked before
// a byte of it is written; a damaged or missing chunk is a DamagedChunkError naming the
// backup and the chunk. A files restore creates only what the manifest names under the
// destination: every path is checked (no `..`, not absolute), a parent must be a directory
// this restore made, files are created with O_EXCL|O_NOFOLLOW, symlinks are made as links
// and never followed. Holes stay holes (the file is sized, the zero chunks not written).
import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ChunkStore, isAllZero } from './chunk-store';
import { DamagedChunkError, checkBackupId, chunkPath, layout, safeRelativePath, type FileEntry, type Manifest } from './format';
import { Hasher } from './hasher';
import { readManifest } from './manifests';
import type { BackupSource, MoverProgress } from './backup';
import { Flusher, Pipeline, abortError, throttle } from './pipeline';

export interface RestoreOptions {
  targetRoot: string;
  backupId: string;
  destination: BackupSource;
  onProgress?(p: MoverProgress): void;
  signal?: AbortSignal;
  /** Chunks read and verified ahead of the writes (default 8). */
  parallel?: number;
}

/** Reads, decodes and verifies stored chunks on worker threads; writes a verified one at its offset when asked. */
class Reader {
  constructor(readonly store: ChunkStore, readonly m: Manifest, readonly threads: Hasher) {}
  /** Verifies chunk `id`; with `to`, then writes it at `to.offset` of `to.fh` (it must be `to.len` bytes long). Answers its length. */
  async chunk(id: string, to?: { fh: fs.FileHandle; offset: number; len: number; path: string }): Promise<number> {
    const r = await this.threads.restoreChunk({ file: chunkPath(this.store.l, id), id, max: this.m.chunkBytes, ...(to ? { fd: to.fh.fd, offset: to.offset, len: to.len } : {}) });
    if (r.missing) throw new DamagedChunkError(this.m.backupId, id, 'is missing from the target');
    if (r.reason !== undefined) throw new DamagedChunkError(this.m.backupId, id, r.reason);
    if (r.wrongLength !== undefined) throw new DamagedChunkError(this.m.backupId, id, `holds ${r.wrongLength} bytes where ${to?.path} needs ${to?.len}`);
    return r.bytes!;
  }
}

export async function runRestore(o: RestoreOptions): Promise<{ totalBytes: bigint }> {
  const backupId = checkBackupId(o.backupId);
  const store = new ChunkStore(o.targetRoot);
  const m = await readManifest(store.l, backupId);
  if (m.format !== o.destination.format) throw new Error(`backup ${backupId} holds ${m.format === 'files' ? 'a directory tree' : 'an image'}; it cannot be restored into ${o.destination.format === 'files' ? 'a directory' : 'an image file'}`);
  const threads = new Hasher(restoreThreads());
  try {
    return await restoreWith(o, store, m, new Reader(store, m, threads));
  } finally {
    await threads.close();
  }
}

/** Threads that read and verify chunks: one per core and one more, so a read that waits on the disk leaves the cores busy. */
function restoreThreads(): number {
  return Math.min(5, os.availableParallelism() + 1);
}

async function restoreWith(o: RestoreOptions, store: ChunkStore, m: Manifest, reader: Reader): Promise<{ totalBytes: bigint }> {
  const files = m.format === 'image' ? [{ ...m.image!, type: 'file', path: 'image', mode: 0o600, uid: 0, gid: 0 } as FileEntry] : m.entries!.filter((e): e is FileEntry => e.type === 'file');
  const totalBytes = files.reduce((s, f) => s + BigInt(f.size), 0n);
  let doneBytes = 0n;
  const progress = throttle(o.onProgress);
  const figures = () => ({ doneBytes, totalBytes, newBytes: 0n });
  const pipe = new Pipeline(o.parallel ?? 8);
  const destDir = m.format === 'image' ? path.dirname((o.destination as { file: string }).file) : (o.destination as { root: string }).root;
  const flusher = new Flusher(() => syncFs(destDir));

  /** Writes a file's chunks at their offsets through `fh`; zero chunks are skipped unless `zeroHoles`. */
  const fill = async (fh: fs.FileHandle, e: FileEntry, zeroHoles: boolean) => {
    const size = Number(e.size);
    for (let i = 0; i < e.chunks.length; i++) {
      if (o.signal?.aborted) throw abortError(o.signal);
      const id = e.chunks[i];
      const offset = i * m.chunkBytes;
      const len = Math.min(m.chunkBytes, size - offset);
      await pipe.submit(async () => {
        if (id === null) {
          if (zeroHoles) await zeroRange(fh, offset, len);
        } else {
          flusher.wrote(await reader.chunk(id, { fh, offset, len, path: e.path }));
        }
        doneBytes += BigInt(len);
        progress.maybe(figures);
      });
    }
  };

  try {
    if (m.format === 'image') {
      checkChunkCount(m, files[0]);
      const dest = (o.destination as { file: string }).file;
      const before = await fs.lstat(dest).catch(() => undefined);
      if (before && !before.isFile()) throw new Error(`${dest} is not a regular file`);
      const fh = await fs.open(dest, before ? constants.O_RDWR | constants.O_NOFOLLOW : constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
      try {
        const size = Number(m.image!.size);
        // A fresh (sparse) image holds no data; an image with blocks may, so its holes are zeroed.
        const zeroHoles = !!before && before.blocks > 0;
        if (!before || before.size < size) await fh.truncate(size);
        await fill(fh, files[0], zeroHoles);
        await pipe.drain();
        await fh.sync();
      } finally {
        // Worker threads write through this descriptor's number: none may be in flight once
        // it is closed (the number could name another file next).
        await pipe.drain().catch(() => undefined);
        await fh.close();
      }
    } else {
      await restoreTree(o.destination as { root: string }, m, fill, pipe);
      await syncFs((o.destination as { root: string }).root);
    }
  } catch (e) {
    await pipe.drain().catch(() => undefined);
    throw e;
  } finally {
    await flusher.settle();
  }
  progress.flush(figures);
  return { totalBytes };
}

/** A file's chunk list must cover its size exactly (checked before anything is made). */
function checkChunkCount(m: Manifest, e: FileEntry): void {
  const size = Number(e.size);
  if (!Number.isSafeInteger(size) || e.chunks.length !== Math.ceil(size / m.chunkBytes)) throw new Error(`manifest entry ${e.path} has ${e.chunks.length} chunks for ${e.size} bytes`);
}

/** One syncfs of the destination's filesystem (`sync -f`) rather than an fsync per file. */
async function syncFs(dir: string): Promise<void> {
  await promisify(execFile)('sync', ['-f', dir]);
}

async function zeroRange(fh: fs.FileHandle, offset: number, len: number): Promise<void> {
  const have = Buffer.alloc(len);
  await fh.read(have, 0, len, offset);
  if (!isAllZero(have)) await fh.write(Buffer.alloc(len), 0, len, offset);
}

async function restoreTree(dest: { root: string }, m: Manifest, fill: (fh: fs.FileHandle, e: FileEntry, zeroHoles: boolean) => Promise<void>, pipe: Pipeline): Promise<void> {
  const root = dest.root;
  const rootSt = await fs.lstat(root);
  if (!rootSt.isDirectory()) throw new Error(`${root} is not a directory`);
  const entries = m.entries!;
  // Check every path first: nothing is made from a manifest that could escape.
  const dirs = new Set<string>(['']);
  const seen = new Set<string>();
  for (const e of entries) {
    const parts = safeRelativePath(e.path);
    const parent = parts.slice(0, -1).join('/');
    if (!dirs.has(parent)) throw new Error(`manifest entry ${e.path} comes before its directory (or its parent is not a directory)`);
    if (seen.has(e.path)) throw new Error(`manifest names ${e.path} twice`);
    seen.add(e.path);
    if (e.type === 'dir') dirs.add(e.path);
    if (e.type === 'file') checkChunkCount(m, e);
  }
  const chown = process.getuid?.() === 0;
  const owners: Promise<void>[] = [];
  try {
    await makeEntries();
  } catch (e) {
    await pipe.drain().catch(() => undefined);
    await Promise.allSettled(owners);
    throw e;
  }
  // Directories last, deepest first: their mtimes are not disturbed by the restore itself.
  for (const e of [...entries].reverse()) {
    if (e.type !== 'dir') continue;
    await setMeta(path.join(root, e.path), e, chown);
  }
  if (m.root) await setMeta(root, m.root, chown);

  async function makeEntries(): Promise<void> {
    for (const e of entries) {
      const abs = path.join(root, e.path);
      if (e.type === 'dir') {
        await fs.mkdir(abs, { mode: 0o700 });
      } else if (e.type === 'symlink') {
        await fs.symlink(e.target, abs);
        if (chown) await fs.lchown(abs, e.uid, e.gid);
        const t = Number(BigInt(e.mtimeNs) / 1000n) / 1e6;
        await fs.lutimes(abs, t, t);
      } else {
        const fh = await fs.open(abs, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
        let handedOver = false;
        try {
          await fh.truncate(Number(e.size));
          await fill(fh, e, false);
          handedOver = true;
          // Closing (and the file's metadata) waits for its chunks; reading goes on meanwhile.
          owners.push(
            (async () => {
              await pipe.drain().catch(() => undefined);
              await finishFile(fh, e, chown);
            })(),
          );
        } finally {
          if (!handedOver) {
            await pipe.drain().catch(() => undefined); // no thread still writing through its descriptor
            await fh.close();
          }
        }
        if (owners.length >= 64) {
          await Promise.all(owners.splice(0));
          await pipe.drain();
        }
      }
    }
    await pipe.drain();
    await Promise.all(owners);
  }
}

async function finishFile(fh: fs.FileHandle, e: FileEntry, chown: boolean): Promise<void> {
  try {
    if (chown) await fh.chown(e.uid, e.gid);
    await fh.chmod(e.mode);
    const t = Number(BigInt(e.mtimeNs) / 1000n) / 1e6;
    await fh.utimes(t, t);
  } finally {
    await fh.close();
  }
}

async function setMeta(abs: string, e: { mode: number; uid: number; gid: number; mtimeNs: string }, chown: boolean): Promise<void> {
  if (chown) await fs.lchown(abs, e.uid, e.gid);
  await fs.chmod(abs, e.mode);
  const t = Number(BigInt(e.mtimeNs) / 1000n) / 1e6;
  await fs.utimes(abs, t, t);
}

/** Reads every chunk the backup references and checks it; the first damaged one is named. */
export async function verifyBackup(o: { targetRoot: string; backupId: string; onProgress?(p: MoverProgress): void; parallel?: number }): Promise<{ ok: true; chunks: number; bytes: bigint } | { ok: false; chunk: string; reason: string }> {
  const backupId = checkBackupId(o.backupId);
  const store = new ChunkStore(o.targetRoot);
  const m = await readManifest(layout(o.targetRoot), backupId);
  const threads = new Hasher(restoreThreads());
  const reader = new Reader(store, m, threads);
  const ids = new Set<string>();
  const add = (cs: (string | null)[]) => cs.forEach((c) => c && ids.add(c));
  if (m.image) add(m.image.chunks);
  for (const e of m.entries ?? []) if (e.type === 'file') add(e.chunks);
  let bytes = 0n;
  /** Progress counts verified bytes against an upper bound (every chunk full-sized). */
  const totalBytes = BigInt(ids.size) * BigInt(m.chunkBytes);
  const progress = throttle(o.onProgress);
  const figures = () => ({ doneBytes: bytes, totalBytes, newBytes: 0n });
  const pipe = new Pipeline(o.parallel ?? 6);
  try {
    for (const id of ids) {
      await pipe.submit(async () => {
        const n = await reader.chunk(id);
        bytes += BigInt(n);
        progress.maybe(figures);
      });
    }
    await pipe.drain();
  } catch (e) {
    await pipe.drain().catch(() => undefined);
    if (e instanceof DamagedChunkError) return { ok: false, chunk: e.chunk, reason: e.reason };
    throw e;
  } finally {
    await threads.close();
  }
  progress.flush(figures);
  return { ok: true, chunks: ids.size, bytes };
}

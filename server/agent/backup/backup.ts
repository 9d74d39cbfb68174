// runBackup: reads a directory tree or an image file in fixed-size chunks, stores the chunks
// the target does not hold yet, and writes the manifest last. Order (a crash anywhere
// leaves no manifest or a whole one):
//   lease running/<id>.json (renewed) -> chunks (temp + rename) -> sync -f of the target
//   -> pending manifest running/<id>.manifest -> every referenced chunk checked present
//   (taken back from a GC's trash, or read again from the source and rewritten; then
//   sync -f again) -> rename to backups/<id>.json -> fsync of backups/ -> lease removed.
// A GC run either sees the pending or final manifest (it reads running/ before backups/),
// or finished its trash moves before the check above, which then repairs what it moved.
// Incremental: with a parent backup, a file whose size+mtime+inode are unchanged reuses
// the parent's chunk ids unread; with the parent's read-only btrfs snapshot as well, only
// the ranges `btrfs send --no-data` names are read (any doubt: read everything).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { BackupOrigin } from '../../contracts/data-jobs';
import { btrfsChanges, overlaps, readOnlySubvolumeUuid, underFresh, type BtrfsChanges } from './btrfs-changes';
import { ChunkStore, fsyncDir, sha256Hex, writeFileAtomic } from './chunk-store';
import { DEFAULT_CHUNK_BYTES, MAX_CHUNK_BYTES, checkBackupId, leasePath, manifestPath, pendingPath, type Entry, type FileEntry, type Lease, type Manifest } from './format';
import { Hasher, SlabPool } from './hasher';
import { readManifest } from './manifests';
import { Flusher, Pipeline, abortError, throttle } from './pipeline';

export interface MoverProgress {
  doneBytes: bigint;
  totalBytes: bigint;
  newBytes: bigint;
}
export type BackupSource = { format: 'files'; root: string } | { format: 'image'; file: string };

export interface BackupOptions {
  targetRoot: string;
  backupId: string;
  source: BackupSource;
  origin: BackupOrigin;
  /** Previous backup of the same volume: its chunks are reused for files whose size+mtime(+ino) are unchanged. */
  parentBackupId?: string;
  /** btrfs: the previous backup's read-only snapshot; only the ranges changed since it are read. */
  parentSourcePath?: string;
  onProgress?(p: MoverProgress): void;
  signal?: AbortSignal;
  chunkBytes?: number;
  /** Chunks hashed/compressed/written at once (default 8). */
  parallel?: number;
  /** How often the lease is renewed (default 10 s). */
  leaseRenewMs?: number;
  /** Called after the chunks are synced, before the pending manifest is written (tests run a GC there). */
  beforePublish?(): Promise<void>;
}
export interface BackupResult {
  totalBytes: bigint;
  newBytes: bigint;
  chunks: number;
  newChunks: number;
  /** How the data was read: `full`, `parent` (size+mtime+inode), `btrfs` (changed ranges). */
  mode: 'full' | 'parent' | 'btrfs';
  /** Bytes actually read from the source. */
  readBytes: bigint;
}

/** Reads run this many ahead of the chunks being hashed and written. */
const READ_AHEAD = 2;
/** Bytes read at once (several chunks), into reused shared buffers. */
const READ_BYTES = 4 << 20;
/** Below this many bytes to read, chunks are hashed on the libuv pool, without worker threads. */
const THREADS_FROM_BYTES = 64 << 20;

interface Planned {
  entry: FileEntry;
  abs: string;
  size: number;
  /** Per chunk: an id (or null for a hole) reused from the parent, or undefined (read it). */
  reuse: (string | null | undefined)[];
}

export async function runBackup(o: BackupOptions): Promise<BackupResult> {
  const backupId = checkBackupId(o.backupId);
  const chunkBytes = o.chunkBytes ?? DEFAULT_CHUNK_BYTES;
  if (!Number.isInteger(chunkBytes) || chunkBytes < 4096 || chunkBytes > MAX_CHUNK_BYTES) throw new Error(`chunkBytes must be 4096..${MAX_CHUNK_BYTES}`);
  if (o.signal?.aborted) throw abortError(o.signal);
  const store = new ChunkStore(o.targetRoot);
  await store.open();
  const l = store.l;
  const existing = await readManifest(l, backupId).catch(() => undefined);
  if (existing) {
    // A retry after the manifest was written: the backup is complete.
    const t = existing.totals;
    return { totalBytes: BigInt(t.totalBytes), newBytes: 0n, chunks: t.chunks, newChunks: 0, mode: 'full', readBytes: 0n };
  }

  const startedAt = new Date().toISOString();
  const lease: Lease = { backupId, pid: process.pid, host: os.hostname(), startedAt, renewedAt: startedAt };
  await writeFileAtomic(leasePath(l, backupId), JSON.stringify(lease));
  const renew = setInterval(() => {
    void writeFileAtomic(leasePath(l, backupId), JSON.stringify({ ...lease, renewedAt: new Date().toISOString() })).catch(() => undefined);
  }, o.leaseRenewMs ?? 10_000);
  renew.unref();
  try {
    return await backupUnderLease(o, store, backupId, chunkBytes, startedAt);
  } finally {
    clearInterval(renew);
    await fs.rm(pendingPath(l, backupId), { force: true }).catch(() => undefined);
    await fs.rm(leasePath(l, backupId), { force: true }).catch(() => undefined);
  }
}

async function backupUnderLease(o: BackupOptions, store: ChunkStore, backupId: string, chunkBytes: number, createdAt: string): Promise<BackupResult> {
  const l = store.l;
  const parent = o.parentBackupId ? await readManifest(l, checkBackupId(o.parentBackupId)).catch(() => undefined) : undefined;
  const usableParent = parent && parent.chunkBytes === chunkBytes && parent.format === o.source.format ? parent : undefined;

  // What to read.
  let planned: Planned[];
  let entries: Entry[] | undefined;
  let rootMeta: Manifest['root'];
  let sourceBtrfsUuid: string | undefined;
  let mode: BackupResult['mode'] = usableParent ? 'parent' : 'full';
  if (o.source.format === 'files') {
    const root = o.source.root;
    sourceBtrfsUuid = await readOnlySubvolumeUuid(root);
    let changes: BtrfsChanges | undefined;
    if (usableParent && o.parentSourcePath && sourceBtrfsUuid && usableParent.sourceBtrfsUuid) {
      const parentUuid = await readOnlySubvolumeUuid(o.parentSourcePath);
      if (parentUuid && parentUuid === usableParent.sourceBtrfsUuid) {
        const c = await btrfsChanges(o.parentSourcePath, root, o.signal);
        if (c && c.parentUuid === parentUuid) changes = c;
      }
    }
    if (changes) mode = 'btrfs';
    const walked = await walkTree(root, o.signal);
    entries = walked.entries;
    rootMeta = walked.root;
    const parentFiles = new Map<string, FileEntry>();
    for (const e of usableParent?.entries ?? []) if (e.type === 'file') parentFiles.set(e.path, e);
    planned = entries
      .filter((e): e is FileEntry => e.type === 'file')
      .map((e) => plan(e, path.join(root, e.path), parentFiles.get(e.path), chunkBytes, changes));
  } else {
    const st = await fs.lstat(o.source.file, { bigint: true });
    if (!st.isFile()) throw new Error(`${o.source.file} is not a regular file`);
    const entry: FileEntry = { type: 'file', path: 'image', mode: Number(st.mode & 0o7777n), uid: Number(st.uid), gid: Number(st.gid), mtimeNs: String(st.mtimeNs), ino: String(st.ino), size: String(st.size), chunks: [] };
    const pe = usableParent?.image ? ({ ...entry, size: usableParent.image.size, mtimeNs: usableParent.image.mtimeNs, ino: usableParent.image.ino, chunks: usableParent.image.chunks } as FileEntry) : undefined;
    planned = [plan(entry, o.source.file, pe, chunkBytes, undefined)];
  }

  // Read, hash, store.
  const totalBytes = planned.reduce((s, p) => s + BigInt(p.size), 0n);
  let doneBytes = 0n;
  let newBytes = 0n;
  let readBytes = 0n;
  let newChunks = 0;
  const referenced = new Set<string>();
  /** Where each chunk's data can be read again (for the final presence check). */
  const locations = new Map<string, { abs: string; offset: number; len: number }>();
  const storing = new Map<string, Promise<void>>();
  const progress = throttle(o.onProgress);
  const figures = () => ({ doneBytes, totalBytes, newBytes });
  const pipe = new Pipeline(o.parallel ?? 8);
  const flusher = new Flusher(() => store.syncTarget());

  /** Ids counted as new in this run (two tasks may both have stored one; it counts once). */
  const counted = new Set<string>();
  const countNew = (id: string, written: number) => {
    if (written === 0 || counted.has(id)) return;
    counted.add(id);
    newBytes += BigInt(written);
    newChunks++;
  };
  /** Stores a compressible chunk (deflated here) unless the target holds it. */
  const store1 = async (id: string, data: Buffer, compressible: boolean) => {
    if (await store.has(id)) return;
    countNew(id, await store.put(id, data, compressible));
    flusher.wrote(data.length);
  };

  // Reads of up to READ_BYTES (several chunks) into reused shared buffers, READ_AHEAD reads
  // ahead of the chunks being scanned (worker threads) and written (libuv pool).
  const parallel = o.parallel ?? 8;
  const group = Math.max(1, Math.floor(READ_BYTES / chunkBytes));
  // Threads pay off for a large read; a small one (an incremental backup) does without their start-up.
  let toRead = 0;
  for (const p of planned) for (let i = 0; i < p.reuse.length; i++) if (p.reuse[i] === undefined) toRead += Math.min(chunkBytes, p.size - i * chunkBytes);
  const threaded = toRead >= THREADS_FROM_BYTES;
  const slabs = new SlabPool(group * chunkBytes, READ_AHEAD + Math.ceil(parallel / group) + 2, threaded);
  const hasher = new Hasher(threaded ? undefined : 0);
  try {
    for (const p of planned) {
      const nChunks = Math.ceil(p.size / chunkBytes);
      p.entry.chunks = new Array<string | null>(nChunks).fill(null);
      /** Runs of consecutive chunks to read: [first chunk, count <= group]. */
      const runs: [number, number][] = [];
      for (let i = 0; i < nChunks; ) {
        const reused = p.reuse[i];
        if (reused !== undefined) {
          const len = Math.min(chunkBytes, p.size - i * chunkBytes);
          p.entry.chunks[i] = reused;
          if (reused) {
            referenced.add(reused);
            if (!locations.has(reused)) locations.set(reused, { abs: p.abs, offset: i * chunkBytes, len });
          }
          doneBytes += BigInt(len);
          progress.maybe(figures);
          i++;
          continue;
        }
        let j = i;
        while (j < nChunks && j - i < group && p.reuse[j] === undefined) j++;
        runs.push([i, j - i]);
        i = j;
      }
      if (runs.length === 0) continue;
      const fh = await fs.open(p.abs, 'r');
      const ahead = new Map<number, Promise<Buffer>>();
      const readRun = async ([first, count]: [number, number]): Promise<Buffer> => {
        const slab = await slabs.take();
        try {
          const offset = first * chunkBytes;
          const len = Math.min(count * chunkBytes, p.size - offset);
          for (let at = 0; at < len; ) {
            const { bytesRead } = await fh.read(slab, at, len - at, offset + at);
            if (bytesRead === 0) throw new Error(`${p.abs} changed while it was read (short read at ${offset + at})`);
            at += bytesRead;
          }
          return slab;
        } catch (e) {
          slabs.give(slab);
          throw e;
        }
      };
      const want = (from: number) => {
        for (let r = from; r < runs.length && r < from + READ_AHEAD; r++) {
          if (ahead.has(r)) continue;
          const pr = readRun(runs[r]);
          pr.catch(() => undefined); // awaited below; a failure after an abort is not unhandled
          ahead.set(r, pr);
        }
      };
      try {
        for (let r = 0; r < runs.length; r++) {
          if (o.signal?.aborted) throw abortError(o.signal);
          want(r);
          const pr = ahead.get(r)!;
          ahead.delete(r);
          const slab = await pr;
          const [first, count] = runs[r];
          let lent = count;
          const release = () => {
            if (--lent === 0) slabs.give(slab);
          };
          for (let k = 0; k < count; k++) {
            const i = first + k;
            const offset = i * chunkBytes;
            const len = Math.min(chunkBytes, p.size - offset);
            const view = slab.subarray(k * chunkBytes, k * chunkBytes + len);
            readBytes += BigInt(len);
            const entry = p.entry;
            try {
              await pipe.submit(async () => {
                try {
                  const scan = await hasher.scan(view, store.l.chunks);
                  if (scan.zero) {
                    entry.chunks[i] = null;
                  } else {
                    const id = scan.id;
                    entry.chunks[i] = id;
                    const first = !referenced.has(id);
                    if (first) {
                      referenced.add(id);
                      locations.set(id, { abs: p.abs, offset, len });
                    }
                    if (scan.written !== undefined) {
                      countNew(id, scan.written);
                      flusher.wrote(scan.written);
                    } else if (first) {
                      const s = store1(id, view, scan.compressible);
                      storing.set(id, s);
                      await s;
                    } else await storing.get(id);
                  }
                  doneBytes += BigInt(len);
                  progress.maybe(figures);
                } finally {
                  release();
                }
              });
            } catch (e) {
              for (; k < count; k++) release(); // this chunk's task and the rest never started
              throw e;
            }
          }
        }
      } catch (e) {
        await pipe.drain().catch(() => undefined);
        throw e;
      } finally {
        await Promise.allSettled(ahead.values());
        await fh.close();
      }
    }
    await pipe.drain();
  } finally {
    await pipe.drain().catch(() => undefined);
    await hasher.close();
    await flusher.settle();
  }
  if (o.signal?.aborted) throw abortError(o.signal);
  await flusher.settle();
  await store.syncTarget();
  await o.beforePublish?.();

  // The manifest: pending first, then every chunk checked present, then published.
  const totals = { totalBytes: String(totalBytes), newBytes: String(newBytes), chunks: referenced.size, newChunks };
  const manifest: Manifest = {
    kind: 'stowage-backup-manifest',
    version: 1,
    backupId,
    origin: o.origin,
    format: o.source.format,
    chunkBytes,
    createdAt,
    // When every chunk was stored and synced (the presence check after it changes no data,
    // so the pending manifest is written once, not again with a later time).
    completedAt: new Date().toISOString(),
    ...(o.parentBackupId ? { parentBackupId: o.parentBackupId } : {}),
    ...(sourceBtrfsUuid ? { sourceBtrfsUuid } : {}),
    totals,
    ...(o.source.format === 'files' ? { root: rootMeta, entries } : { image: imageOf(planned[0].entry) }),
  };
  const pending = pendingPath(l, backupId);
  await writeFileAtomic(pending, JSON.stringify(manifest));
  const repaired = await ensurePresent(store, referenced, locations, o.signal);
  if (repaired.rewritten > 0 || repaired.untrashed > 0) await store.syncTarget();
  if (o.signal?.aborted) throw abortError(o.signal);
  await fs.rename(pending, manifestPath(l, backupId));
  await fsyncDir(l.backups);
  progress.flush(figures);
  return { totalBytes, newBytes, chunks: referenced.size, newChunks, mode, readBytes };
}

function imageOf(e: FileEntry): NonNullable<Manifest['image']> {
  return { size: e.size, mtimeNs: e.mtimeNs, ...(e.ino ? { ino: e.ino } : {}), chunks: e.chunks };
}

/** Which chunks of a file can be taken from the parent's entry unread. */
function plan(entry: FileEntry, abs: string, pe: FileEntry | undefined, chunkBytes: number, changes: BtrfsChanges | undefined): Planned {
  const size = Number(entry.size);
  const n = Math.ceil(size / chunkBytes);
  const reuse: (string | null | undefined)[] = new Array(n).fill(undefined);
  if (!pe || pe.chunks.length !== Math.ceil(Number(pe.size) / chunkBytes)) return { entry, abs, size, reuse };
  if (changes) {
    if (underFresh(changes.fresh, entry.path)) return { entry, abs, size, reuse };
    const ranges = changes.ranges.get(entry.path);
    const psize = Number(pe.size);
    for (let i = 0; i < n && i < pe.chunks.length; i++) {
      const start = i * chunkBytes;
      const end = Math.min(start + chunkBytes, size);
      if (Math.min(start + chunkBytes, psize) !== end) continue;
      if (overlaps(ranges, start, end)) continue;
      reuse[i] = pe.chunks[i];
    }
  } else if (pe.size === entry.size && pe.mtimeNs === entry.mtimeNs && pe.ino !== undefined && pe.ino === entry.ino) {
    for (let i = 0; i < n; i++) reuse[i] = pe.chunks[i];
  }
  return { entry, abs, size, reuse };
}

/** Every referenced chunk present: taken back from a GC's trash, or read again and rewritten. */
async function ensurePresent(store: ChunkStore, ids: Set<string>, locations: Map<string, { abs: string; offset: number; len: number }>, signal?: AbortSignal) {
  let rewritten = 0;
  let untrashed = 0;
  const pipe = new Pipeline(16);
  for (const id of ids) {
    await pipe.submit(async () => {
      if (await store.has(id)) return;
      if (await store.takeBackFromTrash(id)) {
        untrashed++;
        return;
      }
      if (signal?.aborted) throw abortError(signal);
      const at = locations.get(id);
      if (!at) throw new Error(`chunk ${id} is missing from the target and its data is unknown`);
      const buf = Buffer.allocUnsafe(at.len);
      const fh = await fs.open(at.abs, 'r');
      try {
        await fh.read(buf, 0, at.len, at.offset);
      } finally {
        await fh.close();
      }
      if ((await sha256Hex(buf)) !== id) throw new Error(`chunk ${id} is missing from the target and ${at.abs} at ${at.offset} no longer holds it`);
      await store.put(id, buf);
      rewritten++;
    });
  }
  await pipe.drain();
  return { rewritten, untrashed };
}

/** The tree under `root`, parents before children, in name order; sockets, fifos and devices are skipped. */
async function walkTree(root: string, signal?: AbortSignal): Promise<{ root: Manifest['root']; entries: Entry[] }> {
  const entries: Entry[] = [];
  const meta = (st: import('node:fs').BigIntStats) => ({ mode: Number(st.mode & 0o7777n), uid: Number(st.uid), gid: Number(st.gid), mtimeNs: String(st.mtimeNs), ino: String(st.ino) });
  const rootSt = await fs.lstat(root, { bigint: true });
  if (!rootSt.isDirectory()) throw new Error(`${root} is not a directory`);
  const walk = async (rel: string) => {
    if (signal?.aborted) throw abortError(signal);
    const names = (await fs.readdir(path.join(root, rel))).sort();
    const stats = await Promise.all(names.map((n) => fs.lstat(path.join(root, rel, n), { bigint: true })));
    for (let i = 0; i < names.length; i++) {
      const p = rel ? `${rel}/${names[i]}` : names[i];
      const st = stats[i];
      if (st.isDirectory()) {
        entries.push({ type: 'dir', path: p, ...meta(st) });
        await walk(p);
      } else if (st.isFile()) entries.push({ type: 'file', path: p, ...meta(st), size: String(st.size), chunks: [] });
      else if (st.isSymbolicLink()) entries.push({ type: 'symlink', path: p, ...meta(st), target: await fs.readlink(path.join(root, p)) });
    }
  };
  await walk('');
  return { root: meta(rootSt), entries };
}

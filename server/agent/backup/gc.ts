// Garbage collection of a target's chunks, safe beside running backups:
//   1. one GC at a time (gc.lock, taken over when older than an hour);
//   2. a crashed GC's trash is put back (a chunk absent from chunks/ is renamed back);
//   3. temp files older than the grace (and 10 minutes) and stale leases (with their pending manifests) go;
//   4. candidates: chunk files older than the grace that no manifest references (pending
//      manifests in running/ are read BEFORE backups/, so a manifest being published is seen
//      in one place or the other); any unreadable manifest stops the run (nothing removed);
//   5. candidates are moved to trash/<run>/;
//   6. running/ and backups/ are read again and every now-referenced candidate is put back;
//   7. the rest are removed.
// A backup reusing a chunk this run trashed checks, after writing its pending manifest,
// that every chunk it references exists, and takes it back from the trash or rewrites it
// (server/agent/backup/backup.ts), so no manifest is left pointing at a removed chunk.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chunkIdPattern, chunkPath, layout, leaseSchema, manifestChunkIds, type Layout } from './format';
import { manifestIds, readManifest, readManifestFile } from './manifests';

export interface GcOptions {
  targetRoot: string;
  /** Chunks and temp files younger than this are kept (default 15 minutes). */
  graceMs?: number;
  /** A lease not renewed for this long belongs to a dead backup (default 5 minutes). */
  leaseStaleMs?: number;
  /** Called between the trash move and the re-read (tests widen the race window with it). */
  afterTrash?(trashed: string[]): Promise<void>;
}

const LOCK_STALE_MS = 60 * 60 * 1000;
const TEMP_MIN_AGE_MS = 10 * 60 * 1000;

export async function collectGarbage(o: GcOptions): Promise<{ removedChunks: number; removedBytes: bigint }> {
  const l = layout(o.targetRoot);
  const graceMs = o.graceMs ?? 15 * 60 * 1000;
  const leaseStaleMs = o.leaseStaleMs ?? 5 * 60 * 1000;
  try {
    await fs.access(l.chunks);
  } catch {
    return { removedChunks: 0, removedBytes: 0n };
  }
  await takeLock(l);
  try {
    await putBackOldTrash(l);
    const now = Date.now();
    // A temp file is being written for at most seconds; one older than both the grace and
    // TEMP_MIN_AGE_MS was left by a crash (a younger one may be a running backup's).
    await removeOldTemps(l, now - Math.max(graceMs, TEMP_MIN_AGE_MS));
    await removeStaleLeases(l, now - leaseStaleMs);
    const referenced = await referencedChunks(l);
    const candidates = await unreferenced(l, referenced, now - graceMs);
    if (candidates.length === 0) return { removedChunks: 0, removedBytes: 0n };
    const run = path.join(l.trash, `${Date.now()}-${randomBytes(4).toString('hex')}`);
    await fs.mkdir(run, { recursive: true });
    const trashed: { id: string; size: number }[] = [];
    for (const c of candidates) {
      try {
        await fs.rename(chunkPath(l, c.id), path.join(run, c.id));
        trashed.push(c);
      } catch {
        // gone meanwhile
      }
    }
    await o.afterTrash?.(trashed.map((t) => t.id));
    let again: Set<string>;
    try {
      again = await referencedChunks(l);
    } catch (e) {
      await putBack(l, run, trashed.map((t) => t.id));
      throw e;
    }
    let removedChunks = 0;
    let removedBytes = 0n;
    for (const t of trashed) {
      if (again.has(t.id)) {
        await putBack(l, run, [t.id]);
        continue;
      }
      try {
        await fs.rm(path.join(run, t.id));
        removedChunks++;
        removedBytes += BigInt(t.size);
      } catch {
        // taken back by a backup meanwhile
      }
    }
    await fs.rm(run, { recursive: true, force: true });
    return { removedChunks, removedBytes };
  } finally {
    await fs.rm(l.gcLock, { force: true }).catch(() => undefined);
  }
}

async function takeLock(l: Layout): Promise<void> {
  const content = JSON.stringify({ pid: process.pid, host: os.hostname(), at: new Date().toISOString() });
  try {
    await fs.writeFile(l.gcLock, content, { flag: 'wx' });
    return;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  const st = await fs.stat(l.gcLock).catch(() => undefined);
  if (st && Date.now() - st.mtimeMs < LOCK_STALE_MS) throw new Error('another garbage collection is running on this target');
  await fs.rm(l.gcLock, { force: true });
  await fs.writeFile(l.gcLock, content, { flag: 'wx' });
}

async function putBack(l: Layout, run: string, ids: string[]): Promise<void> {
  for (const id of ids) {
    try {
      await fs.mkdir(path.dirname(chunkPath(l, id)), { recursive: true });
      await fs.link(path.join(run, id), chunkPath(l, id));
    } catch {
      // already present again (rewritten or taken back by a backup)
    }
    await fs.rm(path.join(run, id), { force: true });
  }
}

async function putBackOldTrash(l: Layout): Promise<void> {
  for (const run of await fs.readdir(l.trash).catch(() => [] as string[])) {
    const dir = path.join(l.trash, run);
    const ids = (await fs.readdir(dir).catch(() => [] as string[])).filter((n) => chunkIdPattern.test(n));
    await putBack(l, dir, ids);
    await fs.rm(dir, { recursive: true, force: true });
  }
}

async function removeOldTemps(l: Layout, before: number): Promise<void> {
  const dirs = [l.backups, l.running, l.base, ...(await fs.readdir(l.chunks).catch(() => [] as string[])).map((p) => path.join(l.chunks, p))];
  for (const dir of dirs) {
    for (const n of await fs.readdir(dir).catch(() => [] as string[])) {
      if (!n.includes('.tmp-')) continue;
      const f = path.join(dir, n);
      const st = await fs.stat(f).catch(() => undefined);
      if (st && st.mtimeMs < before) await fs.rm(f, { force: true });
    }
  }
}

async function removeStaleLeases(l: Layout, before: number): Promise<void> {
  for (const n of await fs.readdir(l.running).catch(() => [] as string[])) {
    if (!n.endsWith('.json') || n.includes('.tmp-')) continue;
    const f = path.join(l.running, n);
    const st = await fs.stat(f).catch(() => undefined);
    if (!st || st.mtimeMs >= before) continue;
    let renewed = st.mtimeMs;
    try {
      const lease = leaseSchema.parse(JSON.parse(await fs.readFile(f, 'utf8')));
      renewed = Math.max(renewed, Date.parse(lease.renewedAt) || 0);
    } catch {
      // unreadable lease: its file's time decides
    }
    if (renewed >= before) continue;
    const id = n.slice(0, -'.json'.length);
    await fs.rm(path.join(l.running, `${id}.manifest`), { force: true });
    await fs.rm(f, { force: true });
  }
}

/** Chunks referenced by pending manifests (read first) and published ones; throws on any unreadable one. */
async function referencedChunks(l: Layout): Promise<Set<string>> {
  const out = new Set<string>();
  const add = (ids: Iterable<string>) => {
    for (const id of ids) out.add(id);
  };
  for (const n of await fs.readdir(l.running).catch(() => [] as string[])) {
    if (!n.endsWith('.manifest')) continue;
    const id = n.slice(0, -'.manifest'.length);
    try {
      add(manifestChunkIds(await readManifestFile(path.join(l.running, n), id)));
    } catch (e) {
      if (await exists(path.join(l.running, n))) throw new Error(`garbage collection stopped: pending manifest ${id} cannot be read (${(e as Error).message})`, { cause: e });
      // published meanwhile: read below from backups/
    }
  }
  for (const id of await manifestIds(l)) {
    try {
      add(manifestChunkIds(await readManifest(l, id)));
    } catch (e) {
      if (await exists(path.join(l.backups, `${id}.json`))) throw new Error(`garbage collection stopped: manifest ${id} cannot be read (${(e as Error).message})`, { cause: e });
    }
  }
  return out;
}

async function exists(f: string): Promise<boolean> {
  return fs.access(f).then(
    () => true,
    () => false,
  );
}

async function unreferenced(l: Layout, referenced: Set<string>, before: number): Promise<{ id: string; size: number }[]> {
  const out: { id: string; size: number }[] = [];
  for (const p of await fs.readdir(l.chunks).catch(() => [] as string[])) {
    const dir = path.join(l.chunks, p);
    for (const n of await fs.readdir(dir).catch(() => [] as string[])) {
      if (!chunkIdPattern.test(n) || referenced.has(n)) continue;
      const st = await fs.stat(path.join(dir, n)).catch(() => undefined);
      if (st && st.mtimeMs < before) out.push({ id: n, size: st.size });
    }
  }
  return out;
}

// A target as a whole: the probe an agent reports (reachable, writable, space), the list
// of backups its manifests describe, its figures (stored vs logical bytes), and deleting a
// backup's manifest.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { BackupSummary } from '../../contracts/data-jobs';
import { fsyncDir } from './chunk-store';
import { checkBackupId, layout, manifestPath, type Manifest } from './format';
import { manifestIds, readManifest } from './manifests';

export interface TargetProbe {
  reachable: boolean;
  writable: boolean;
  freeBytes?: bigint;
  totalBytes?: bigint;
  /** Why not reachable or writable, in words (no stack). */
  reason?: string;
}

const PROBE_TIMEOUT_MS = 10_000;

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms / 1000} s`)), ms);
  });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

function words(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  const known: Record<string, string> = {
    ENOENT: 'does not exist',
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
    EROFS: 'is on a read-only filesystem',
    ENOSPC: 'has no space left',
    EDQUOT: 'is over its quota',
    ENOTDIR: 'is not a directory',
    EIO: 'input/output error',
    ESTALE: 'stale file handle (the mount went away)',
    ENOTCONN: 'not connected (the mount went away)',
  };
  return (err.code && known[err.code]) ?? err.message ?? String(e);
}

/** Reachable (a directory), writable (a probe file written, fsynced, removed), and space (statfs). */
export async function probeTarget(targetRoot: string): Promise<TargetProbe> {
  if (!path.isAbsolute(targetRoot)) return { reachable: false, writable: false, reason: `${targetRoot} is not an absolute path` };
  let st;
  try {
    st = await withTimeout(fs.stat(targetRoot), PROBE_TIMEOUT_MS, targetRoot);
  } catch (e) {
    return { reachable: false, writable: false, reason: `${targetRoot} ${words(e)}` };
  }
  if (!st.isDirectory()) return { reachable: false, writable: false, reason: `${targetRoot} is not a directory` };
  let space: { freeBytes?: bigint; totalBytes?: bigint } = {};
  try {
    const s = await withTimeout(fs.statfs(targetRoot, { bigint: true }), PROBE_TIMEOUT_MS, targetRoot);
    space = { freeBytes: s.bavail * s.bsize, totalBytes: s.blocks * s.bsize };
  } catch {
    // space unknown; reachability and writability still say something
  }
  const probe = path.join(targetRoot, `.stowage-probe-${randomBytes(6).toString('hex')}`);
  try {
    await withTimeout(
      (async () => {
        const fh = await fs.open(probe, 'wx');
        try {
          await fh.writeFile('stowage probe\n');
          await fh.sync();
        } finally {
          await fh.close();
        }
        await fs.rm(probe);
      })(),
      PROBE_TIMEOUT_MS,
      targetRoot,
    );
  } catch (e) {
    await fs.rm(probe, { force: true }).catch(() => undefined);
    return { reachable: true, writable: false, ...space, reason: `cannot write in ${targetRoot}: ${words(e)}` };
  }
  return { reachable: true, writable: true, ...space };
}

/** Every readable manifest of the target, as the contract's summary; unreadable ones are skipped. */
export async function listBackups(targetRoot: string): Promise<BackupSummary[]> {
  return (await readAll(targetRoot)).map((m) => ({
    backupId: m.backupId,
    origin: m.origin,
    format: m.format,
    totalBytes: m.totals.totalBytes,
    createdAt: m.createdAt,
    completedAt: m.completedAt,
  }));
}

async function readAll(targetRoot: string): Promise<Manifest[]> {
  const l = layout(targetRoot);
  const out: Manifest[] = [];
  for (const id of await manifestIds(l)) {
    try {
      checkBackupId(id);
      out.push(await readManifest(l, id));
    } catch {
      // unreadable, invalid or foreign: not listed
    }
  }
  return out;
}

/** Bytes of chunk files (after dedupe and compression), bytes the manifests describe, and how many backups. */
export async function targetFigures(targetRoot: string): Promise<{ storedBytes: bigint; logicalBytes: bigint; backups: number }> {
  const manifests = await readAll(targetRoot);
  const l = layout(targetRoot);
  let storedBytes = 0n;
  const prefixes = await fs.readdir(l.chunks).catch(() => [] as string[]);
  for (const p of prefixes) {
    const dir = path.join(l.chunks, p);
    const names = (await fs.readdir(dir).catch(() => [] as string[])).filter((n) => !n.includes('.tmp-'));
    const sizes = await Promise.all(names.map((n) => fs.stat(path.join(dir, n)).then((s) => BigInt(s.size), () => 0n)));
    for (const s of sizes) storedBytes += s;
  }
  return { storedBytes, logicalBytes: manifests.reduce((s, m) => s + BigInt(m.totals.totalBytes), 0n), backups: manifests.length };
}

/** Removes a backup's manifest (idempotent); its chunks go with the next garbage collection. */
export async function deleteBackup(o: { targetRoot: string; backupId: string }): Promise<void> {
  const l = layout(o.targetRoot);
  const file = manifestPath(l, checkBackupId(o.backupId));
  try {
    await fs.rm(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
  await fsyncDir(l.backups);
}

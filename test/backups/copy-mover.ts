// A tiny real data mover for tests of the runner and the restore path: it copies a
// directory (or an image file) into `<target>/copy-backups/<backupId>/` and back, on the
// real filesystem, and reports progress file by file. `hold` makes each file wait for a
// promise (a long job a test can catch running); the abort signal stops it.
import { createHash } from 'node:crypto';
import { constants, promises as fs } from 'node:fs';
import path from 'node:path';
import type { BackupSummary } from '../../server/contracts/data-jobs';
import type { DataMover, MoverProgress } from '../../server/agent/data-job-runner';

const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,252}$/;

export class DamagedChunkError extends Error {
  override name = 'DamagedChunkError';
  constructor(
    readonly backupId: string,
    readonly chunk: string,
    readonly reason: string,
  ) {
    super(`backup ${backupId}: chunk ${chunk} ${reason}`);
  }
}
export class MissingBackupError extends Error {
  override name = 'MissingBackupError';
}

async function filesOf(root: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await fs.readdir(root, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) out.push(path.relative(root, path.join(e.parentPath, e.name)));
  }
  return out.sort();
}

export interface CopyMoverOptions {
  /** Awaited before each file is copied (a test holds a job running with it). */
  hold?: () => Promise<void>;
}

export function copyMover(o: CopyMoverOptions = {}): DataMover {
  const dir = (targetRoot: string, id: string) => {
    if (!SAFE_ID.test(id)) throw new Error(`backup id ${JSON.stringify(id)} is not safe`);
    return path.join(targetRoot, 'copy-backups', id);
  };
  async function copyTree(from: string, to: string, onProgress?: (p: MoverProgress) => void, signal?: AbortSignal): Promise<bigint> {
    const files = await filesOf(from);
    let total = 0n;
    for (const f of files) total += BigInt((await fs.stat(path.join(from, f))).size);
    let done = 0n;
    onProgress?.({ doneBytes: 0n, totalBytes: total, newBytes: 0n });
    for (const f of files) {
      await o.hold?.();
      signal?.throwIfAborted();
      await fs.mkdir(path.dirname(path.join(to, f)), { recursive: true });
      await fs.copyFile(path.join(from, f), path.join(to, f), constants.COPYFILE_FICLONE);
      done += BigInt((await fs.stat(path.join(from, f))).size);
      onProgress?.({ doneBytes: done, totalBytes: total, newBytes: done });
    }
    return total;
  }
  const sums = async (root: string) => {
    const m: Record<string, string> = {};
    for (const f of await filesOf(root)) m[f] = createHash('sha256').update(await fs.readFile(path.join(root, f))).digest('hex');
    return m;
  };
  return {
    async runBackup(b) {
      const to = dir(b.targetRoot, b.backupId);
      const tmp = `${to}.tmp`;
      await fs.rm(tmp, { recursive: true, force: true });
      const from = b.source.format === 'files' ? b.source.root : path.dirname(b.source.file);
      const total = await copyTree(from, path.join(tmp, 'data'), b.onProgress, b.signal);
      const meta = { origin: b.origin, format: b.source.format, totalBytes: total.toString(), sums: await sums(path.join(tmp, 'data')), at: new Date().toISOString() };
      await fs.writeFile(path.join(tmp, 'meta.json'), JSON.stringify(meta));
      await fs.rename(tmp, to);
      return { totalBytes: total, newBytes: total, chunks: Object.keys(meta.sums).length, newChunks: Object.keys(meta.sums).length };
    },
    async runRestore(r) {
      const from = dir(r.targetRoot, r.backupId);
      let meta: { sums: Record<string, string> };
      try {
        meta = JSON.parse(await fs.readFile(path.join(from, 'meta.json'), 'utf8'));
      } catch {
        throw new MissingBackupError(`backup ${r.backupId} has no manifest`);
      }
      const now = await sums(path.join(from, 'data'));
      for (const [f, sum] of Object.entries(meta.sums)) if (now[f] !== sum) throw new DamagedChunkError(r.backupId, sum, 'does not match its checksum');
      const to = (r.destination).format === 'files' ? (r.destination as { root: string }).root : path.dirname((r.destination as { file: string }).file);
      return { totalBytes: await copyTree(path.join(from, 'data'), to, r.onProgress, r.signal) };
    },
    async verifyBackup(v) {
      const from = dir(v.targetRoot, v.backupId);
      const meta = JSON.parse(await fs.readFile(path.join(from, 'meta.json'), 'utf8')) as { sums: Record<string, string>; totalBytes: string };
      const now = await sums(path.join(from, 'data'));
      for (const [f, sum] of Object.entries(meta.sums)) if (now[f] !== sum) return { ok: false, chunk: sum, reason: `${f} changed` };
      return { ok: true, chunks: Object.keys(meta.sums).length, bytes: BigInt(meta.totalBytes) };
    },
    async deleteBackup(d) {
      await fs.rm(dir(d.targetRoot, d.backupId), { recursive: true, force: true });
    },
    async collectGarbage() {
      return { removedChunks: 0, removedBytes: 0n };
    },
    async probeTarget(root) {
      try {
        const st = await fs.statfs(root);
        const probe = path.join(root, `.probe-${process.pid}`);
        try {
          await fs.writeFile(probe, 'x');
          await fs.rm(probe);
        } catch (e) {
          return { reachable: true, writable: false, reason: `cannot write: ${(e as Error).message}` };
        }
        return { reachable: true, writable: true, freeBytes: BigInt(st.bavail) * BigInt(st.bsize), totalBytes: BigInt(st.blocks) * BigInt(st.bsize) };
      } catch (e) {
        return { reachable: false, writable: false, reason: (e as Error).message };
      }
    },
    async listBackups(root) {
      const out: BackupSummary[] = [];
      let ids: string[];
      try {
        ids = await fs.readdir(path.join(root, 'copy-backups'));
      } catch {
        return [];
      }
      for (const id of ids.filter((i) => SAFE_ID.test(i) && !i.endsWith('.tmp'))) {
        try {
          const m = JSON.parse(await fs.readFile(path.join(root, 'copy-backups', id, 'meta.json'), 'utf8'));
          out.push({ backupId: id, origin: m.origin, format: m.format, totalBytes: m.totalBytes, createdAt: m.at, completedAt: m.at });
        } catch {
          // an unreadable backup is skipped
        }
      }
      return out;
    },
    async targetFigures(root) {
      const list = await this.listBackups(root);
      const logical = list.reduce((a, b) => a + BigInt(b.totalBytes), 0n);
      return { storedBytes: logical, logicalBytes: logical, backups: list.length };
    },
  };
}

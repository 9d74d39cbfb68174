// Test helpers for the data mover: an origin, trees of real files, and a comparable digest
// of a tree (type, mode, size, mtime to the millisecond, symlink target, content hash).
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { BackupOrigin } from '../../contracts/data-jobs';

export const origin: BackupOrigin = { namespace: 'team-a', claimName: 'data', volumeBackupName: 'b1', sizeBytes: '1073741824', installation: 'test' };

/** A tree with dirs, symlinks, modes, an empty file, a sparse file, a 5 MiB random file and a compressible one. */
export async function writeSampleTree(root: string): Promise<void> {
  await fs.mkdir(path.join(root, 'dir/sub'), { recursive: true });
  await fs.mkdir(path.join(root, 'private'), { mode: 0o700 });
  await fs.writeFile(path.join(root, 'big.bin'), randomBytes(5 << 20));
  await fs.writeFile(path.join(root, 'dir/text.txt'), 'hello backups\n'.repeat(100_000));
  await fs.writeFile(path.join(root, 'dir/empty'), '');
  await fs.writeFile(path.join(root, 'private/secret'), 'x', { mode: 0o600 });
  await fs.chmod(path.join(root, 'private/secret'), 0o640);
  await fs.writeFile(path.join(root, 'dir/sub/script.sh'), '#!/bin/sh\necho hi\n');
  await fs.chmod(path.join(root, 'dir/sub/script.sh'), 0o755);
  const sparse = path.join(root, 'sparse.img');
  await fs.writeFile(sparse, '');
  await fs.truncate(sparse, 12 << 20);
  const fh = await fs.open(sparse, 'r+');
  await fh.write(randomBytes(4096), 0, 4096, 6 << 20);
  await fh.close();
  await fs.symlink('../big.bin', path.join(root, 'dir/link-relative'));
  await fs.symlink('/nonexistent/target', path.join(root, 'dir/link-dangling'));
  await fs.utimes(path.join(root, 'dir/sub'), new Date('2024-01-02T03:04:05Z'), new Date('2024-01-02T03:04:05Z'));
}

export async function treeDigest(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (rel: string) => {
    for (const n of (await fs.readdir(path.join(root, rel))).sort()) {
      const p = rel ? `${rel}/${n}` : n;
      const abs = path.join(root, p);
      const st = await fs.lstat(abs);
      const m = (st.mode & 0o7777).toString(8);
      if (st.isDirectory()) {
        out[p] = `dir ${m} ${Math.floor(st.mtimeMs)}`;
        await walk(p);
      } else if (st.isSymbolicLink()) out[p] = `symlink -> ${await fs.readlink(abs)}`;
      else out[p] = `file ${m} ${st.size} ${Math.floor(st.mtimeMs)} ${createHash('sha256').update(await fs.readFile(abs)).digest('hex')}`;
    }
  };
  await walk('');
  return out;
}

export async function fileHash(file: string): Promise<string> {
  return createHash('sha256').update(await fs.readFile(file)).digest('hex');
}

/** Polls `check` until true or the deadline passes. */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

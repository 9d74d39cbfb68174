// Files only their owner may read (tokens, kubeconfigs, backups): written to a new file of
// mode 0600 beside the target, then renamed over it. An existing file's mode is never kept
// and a symlink at the target (or at the temporary name) is never followed: the rename
// replaces the link itself, and the temporary file is created exclusively.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { closeSync, createWriteStream, fchmodSync, fsyncSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Writable } from 'node:stream';

export const PRIVATE_FILE_MODE = 0o600;

/** Writes `target` through `write`, which gets a stream on the new file (ending it is optional). */
export async function writePrivateStream<T>(target: string, write: (out: Writable) => Promise<T>): Promise<T> {
  const file = path.resolve(target);
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  // 'wx': O_CREAT | O_EXCL, which fails on anything already there, a symlink included.
  const out = createWriteStream(tmp, { flags: 'wx', mode: PRIVATE_FILE_MODE, autoClose: false });
  let fd: number | undefined;
  try {
    [fd] = (await once(out, 'open')) as [number];
    fchmodSync(fd, PRIVATE_FILE_MODE); // whatever the umask
    const result = await write(out);
    if (!out.writableEnded) out.end();
    if (!out.writableFinished) await once(out, 'finish');
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(tmp, file);
    return result;
  } catch (e) {
    // Only a file this call created is removed (a failed exclusive open created none).
    if (fd !== undefined) {
      if (!out.writableFinished && !out.destroyed) await new Promise((settle) => out.end(settle));
      closeSync(fd);
      rmSync(tmp, { force: true });
    }
    throw e;
  }
}

export async function writePrivateFile(target: string, content: string): Promise<void> {
  await writePrivateStream(target, async (out) => {
    out.end(content);
  });
}

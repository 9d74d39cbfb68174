// Files only their owner may read (tokens, kubeconfigs, backups): written to a new file of
// mode 0600 beside the target, then renamed over it. An existing file's mode is never kept
// and a symlink at the target (or at the temporary name) is never followed: the rename
// replaces the link itself, and the temporary file is created exclusively.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { accessSync, closeSync, constants, createWriteStream, fchmodSync, fsyncSync, lstatSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Writable } from 'node:stream';

export const PRIVATE_FILE_MODE = 0o600;

const codeOf = (e: unknown) => (e as NodeJS.ErrnoException | undefined)?.code;

/**
 * Why `target` cannot be written as a private file (its directory is missing, not a
 * directory or not writable; the target is a directory), or undefined when it can.
 */
export function privateFileTargetProblem(target: string): string | undefined {
  const file = path.resolve(target);
  const dir = path.dirname(file);
  try {
    if (!statSync(dir).isDirectory()) return `${dir} is not a directory`;
  } catch (e) {
    if (codeOf(e) === 'ENOENT') return `the directory ${dir} does not exist`;
    if (codeOf(e) === 'ENOTDIR') return `${dir} is not a directory`;
    return `cannot reach the directory ${dir} (${codeOf(e) ?? String(e)})`;
  }
  try {
    if (lstatSync(file).isDirectory()) return `${file} is a directory`;
  } catch {
    // nothing there yet: the usual case
  }
  try {
    accessSync(dir, constants.W_OK);
  } catch (e) {
    return `the directory ${dir} is not writable (${codeOf(e) ?? String(e)})`;
  }
  return undefined;
}

/** An error that names the target and what is wrong with it, instead of a bare errno on a temporary name. */
function targetError(file: string, e: unknown): Error {
  const problem = privateFileTargetProblem(file);
  return new Error(`cannot write ${file}: ${problem ?? (e as Error)?.message ?? String(e)}`);
}

/** Writes `target` through `write`, which gets a stream on the new file (ending it is optional). */
export async function writePrivateStream<T>(target: string, write: (out: Writable) => Promise<T>): Promise<T> {
  const file = path.resolve(target);
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  // 'wx': O_CREAT | O_EXCL, which fails on anything already there, a symlink included.
  const out = createWriteStream(tmp, { flags: 'wx', mode: PRIVATE_FILE_MODE, autoClose: false });
  let fd: number | undefined;
  try {
    [fd] = (await once(out, 'open').catch((e: unknown) => Promise.reject(targetError(file, e)))) as [number];
    fchmodSync(fd, PRIVATE_FILE_MODE); // whatever the umask
    const result = await write(out);
    if (!out.writableEnded) out.end();
    if (!out.writableFinished) await once(out, 'finish');
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    try {
      renameSync(tmp, file);
    } catch (e) {
      rmSync(tmp, { force: true }); // e.g. the target is a directory: no temporary file stays behind
      throw targetError(file, e);
    }
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

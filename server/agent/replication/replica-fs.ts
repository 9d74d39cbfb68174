// The replication jobs' access to the pool: snapshot folders, read-only snapshots, and
// their removal (PoolOs.deleteSubvolume: delete, wait for the cleaner, destroy the qgroup).
// Short btrfs commands go through the agent's command helper (command-runner.ts).
import fs from 'node:fs/promises';
import path from 'node:path';
import { commandErrorText, commands } from '../command-runner';
import { realPoolOs } from '../pool-os';
import { parseSubvolumeShow, snapshotsToRemove } from './rules';

export async function btrfs(args: string[]): Promise<string> {
  try {
    return (await commands.run('btrfs', args, { maxBuffer: 4 * 1024 * 1024 })).stdout;
  } catch (e) {
    throw new Error(`btrfs ${args.join(' ')}: ${commandErrorText(e)}`, { cause: e });
  }
}

/** The pool's root is a directory of a btrfs filesystem (else the job cannot run here). */
export async function checkPool(poolAt: string): Promise<void> {
  const seen = await realPoolOs.look(poolAt);
  if (!seen.exists || !seen.isDirectory || seen.fsType !== 'btrfs') throw new Error(`pool ${poolAt} is not a btrfs directory on this node`);
}

/** `<pool>/.stowage-replicas/<pv>`, made (its owner's only) when missing. */
export async function ensureFolder(dirAt: string): Promise<void> {
  await fs.mkdir(path.dirname(dirAt), { recursive: true, mode: 0o700 });
  await fs.mkdir(dirAt, { mode: 0o700 }).catch((e: NodeJS.ErrnoException) => {
    if (e.code !== 'EEXIST') throw e;
  });
}

/** What is at a snapshot path: nothing, or a subvolume and whether it is read-only and received. */
export async function snapshotState(p: string): Promise<{ exists: false } | { exists: true; readOnly: boolean; received: boolean }> {
  if (!(await realPoolOs.isSubvolume(p))) return { exists: false };
  return { exists: true, ...parseSubvolumeShow(await btrfs(['subvolume', 'show', p])) };
}

/** Deletes the subvolume p of the pool (nothing there: nothing to do). */
export async function deleteSnapshot(poolAt: string, p: string): Promise<void> {
  const id = await realPoolOs.subvolumeId(p);
  if (id !== undefined) await realPoolOs.deleteSubvolume(poolAt, p, id);
}

/** Removes the folder's snapshots not in `keep` (host paths, mapped with `at`). Returns the base names removed. */
export async function pruneFolder(poolAt: string, dirAt: string, dirLogical: string, keep: readonly string[]): Promise<string[]> {
  let names: string[];
  try {
    names = await fs.readdir(dirAt);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const gone = snapshotsToRemove(dirLogical, names, keep);
  for (const n of gone) await deleteSnapshot(poolAt, path.join(dirAt, n));
  return gone;
}

/** The referenced bytes of the pool's subvolume named `name` (an estimate of a full send), or undefined. */
export async function referencedBytes(poolAt: string, name: string): Promise<bigint | undefined> {
  try {
    return (await realPoolOs.qgroups(poolAt)).find((r) => r.path?.split('/').pop() === name)?.referencedBytes;
  } catch {
    return undefined;
  }
}

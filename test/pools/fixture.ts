// btrfs pools on file-backed loop devices for the pool and snapshot tests: made with the
// same code as `stowage pool create`, released (unmounted, detached, removed) by
// `releaseEverythingUnder` whatever state a failed test left behind; whether this machine
// can make one at all; a local harness with a directory for its pools; a btrfs class.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createPool, poolSupport } from '../../server/agent/pool-setup';
import { parseQgroupShow, type QgroupRow } from '../../server/domain/btrfs-pool';
import { btrfsProvisioner } from '../../server/domain/well-known/provisioners';
import { releaseAndWarn, testClass } from '../../server/provisioners/testing';
import type { Pod } from '../../server/resources/pod/schema';
import type { StorageClass } from '../../server/resources/storage-class/schema';
import { openLocalHarness, type LocalHarness } from '../local-volumes/harness';

const run = promisify(execFile);

export const support = await poolSupport();

/** True where this machine cannot make a btrfs pool from a file; then says so, as `[skip] <what>: <why>`. */
export function skipWithoutPools(what: string): boolean {
  if (!support.ok) console.log(`[skip] ${what}: ${support.reason}`);
  return !support.ok;
}

/** A local harness and a directory of its own for pools (mkdtemp `<prefix>…`); `closePoolHarness` releases both. */
export async function openPoolHarness(prefix: string): Promise<{ h: LocalHarness; dir: string }> {
  const h = await openLocalHarness();
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  return { h, dir };
}

/** Closes the harness, then unmounts, detaches and removes the pools' directory even when closing failed. */
export async function closePoolHarness(h: LocalHarness | undefined, dir: string | undefined): Promise<void> {
  try {
    await h?.close();
  } finally {
    if (dir) await releaseAndWarn(dir);
  }
}

/** A stowage.io/btrfs class on `pool` (reclaim Delete, Immediate unless `extra` says otherwise). */
export function btrfsClass(name: string, pool: string, extra: Partial<StorageClass> = {}): StorageClass {
  return testClass(btrfsProvisioner, { pool }, { metadata: { name }, ...extra });
}

/** A pool of `sizeMi` MiB mounted at <dir>/<name> (backing file <dir>/<name>.img). */
export async function makePool(dir: string, name: string, sizeMi = 512): Promise<string> {
  const mount = path.join(dir, name);
  await createPool({ source: path.join(dir, `${name}.img`), mount, sizeBytes: BigInt(sizeMi) << 20n });
  return mount;
}

/** The pool's subvolumes (btrfs subvolume list -o: the names, relative to the pool). */
export async function subvolumes(pool: string): Promise<string[]> {
  const { stdout } = await run('btrfs', ['subvolume', 'list', '-o', pool]);
  return stdout
    .split('\n')
    .map((l) => /path (.*)$/.exec(l.trim())?.[1])
    .filter((p): p is string => !!p)
    .map((p) => p.split('/').pop()!);
}

export async function qgroups(pool: string): Promise<QgroupRow[]> {
  const { stdout } = await run('btrfs', ['qgroup', 'show', '-re', '--raw', pool]);
  return parseQgroupShow(stdout);
}

/**
 * Writes 1 MiB blocks into a new file until `bytes` are written or a write fails; returns
 * what was written and the error code of the failing write (EDQUOT: "Disk quota exceeded").
 */
export async function writeUntil(file: string, bytes: number): Promise<{ written: number; code?: string; message?: string }> {
  const h = await fs.open(file, 'w');
  const block = Buffer.alloc(1 << 20, 7);
  let written = 0;
  try {
    while (written < bytes) {
      const n = Math.min(block.length, bytes - written);
      await h.write(block, 0, n);
      written += n;
    }
    await h.sync();
    return { written };
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    // Node names no code for EDQUOT ("Unknown system error -122"): name it from the number.
    const code = err.errno === -os.constants.errno.EDQUOT ? 'EDQUOT' : err.code;
    return { written, code, message: err.message };
  } finally {
    await h.close().catch(() => {});
  }
}

/** SHA-256 of every regular file under `dir`, by its path relative to `dir`. */
export async function checksums(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await fs.readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const full = path.join(e.parentPath, e.name);
    out[path.relative(dir, full)] = createHash('sha256').update(await fs.readFile(full)).digest('hex');
  }
  return out;
}

/** A pod of `namespace` using `claim` (as volume "data"), pinned to `node` when given. */
export function podUsing(name: string, namespace: string, claim: string, node?: string): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace },
    spec: {
      ...(node ? { nodeSelector: { 'kubernetes.io/hostname': node } } : {}),
      containers: [{ name: 'app', image: 'app:1' }],
      volumes: [{ name: 'data', persistentVolumeClaim: { claimName: claim } }],
    },
  };
}

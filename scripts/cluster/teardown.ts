// Removing what a topology left: its namespaces, loop devices, pool mounts and Postgres data.
import { existsSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { deleteBridge, deleteLink, nodeLink } from './netns';
import { stopPg } from './postgres';
import { run } from './processes';
import { addressing } from './settings';
import type { TopologyOptions } from './options';

/** Removes the namespaces, loop devices and Postgres data a topology in `o.dir` left (idempotent). */
export async function teardown(o: Pick<TopologyOptions, 'dir' | 'kind' | 'portBase' | 'agents'>): Promise<void> {
  const a = addressing(o.kind, o.portBase);
  // Only this cluster's own namespaces (named by its kind and port base).
  for (let i = 1; i <= Math.max(o.agents, 9); i++) await deleteLink(nodeLink(a, i));
  const nodesDir = path.join(o.dir, 'nodes');
  // Pools (with `pools`) are unmounted before their loop devices go.
  for (let i = 1; i <= Math.max(o.agents, 9); i++) {
    const mount = path.join(nodesDir, `n${i}`, 'pool');
    if (existsSync(path.join(nodesDir, `n${i}`, 'pool.img'))) await run('umount', ['-l', mount], { allowFail: true });
  }
  if (existsSync(nodesDir)) {
    const list = execFileSync('losetup', ['-a'], { encoding: 'utf8' });
    for (const line of list.split('\n')) {
      const m = /^(\/dev\/loop\d+):.*\((.*)\)/.exec(line);
      if (m && m[2].startsWith(nodesDir)) await run('losetup', ['-d', m[1]], { allowFail: true });
    }
  }
  const pgRoot = pgRootOf(a.tag);
  for (const d of ['pg2', 'pg1']) {
    const dataDir = path.join(pgRoot, d);
    if (existsSync(path.join(dataDir, 'postmaster.pid'))) await stopPg({ name: d, dataDir, port: 0 }, 'immediate').catch(() => {});
  }
  for (const i of [1, 2]) await deleteLink({ ns: a.pgNamespace(i), hostIf: a.pgHostIf(i), nodeIf: a.pgNodeIf(i), hostAddress: '', nodeAddress: '' });
  await deleteBridge(a.pgBridge);
  rmSync(pgRoot, { recursive: true, force: true });
}

/** Where a cluster's Postgres data lives (a directory the postgres user owns). */
export function pgRootOf(tag: string): string {
  return path.join(os.tmpdir(), `stowage-pg-${tag}`);
}


// Crash safety of local-volume cleanup (seed 003: "Restart of the provisioner during
// cleaning operations, and validate that the PV is not recreated by the provisioner until
// cleaning has occurred"). 20 disks (real directories) are released at once and wiped in
// parallel by a `stowage agent` child process, with a `stowage controllers` child as the
// manager; both are killed with SIGKILL mid-way and started again. Checked at every moment
// a PV is offered: the disk has no unfinished cleanup and reads back empty. Jobs held by
// the dead agent are taken again only after its lease ran out, so one disk is never wiped
// by two runs at once.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localPvName } from '../../server/domain/local-pv-name';
import { rawQuery } from '../db';
import { waitFor } from '../controllers/fixtures';
import { CLASS, claimFor, openLocalHarness, type LocalHarness } from './harness';

const NODE = 'node-r';
const DISKS = 20;
const FILES = 3000;
const root = path.resolve(import.meta.dirname, '../..');

let h: LocalHarness;
let tokenFile: string;
let caFile: string;
const children = new Set<ChildProcess>();

function start(args: string[]): ChildProcess {
  const child = spawn(process.execPath, [path.join(root, 'bin/stowage.mjs'), ...args], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: h.url, STOWAGE_DATA_DIR: path.join(h.dir, 'data'), STOWAGE_LOG_LEVEL: 'warn', NODE_ENV: 'production', STOWAGE_HEALTH_PORT: '0' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

const startManager = () => start(['controllers']);
const startAgent = () =>
  start(['agent', '--server', h.api.url, '--token-file', tokenFile, '--ca-file', caFile, '--max-parallel', '20', '--pods-dir', path.join(h.dir, 'pods'), '--state-dir', path.join(h.dir, 'agent-state')]);

function kill9(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

const entries = Array.from({ length: DISKS }, (_, i) => `disk-${String(i).padStart(2, '0')}`);
const pvName = (e: string) => localPvName(NODE, CLASS, e);

beforeAll(async () => {
  h = await openLocalHarness({ agent: { leaseMs: 3_000 } });
  tokenFile = path.join(h.dir, 'node.token');
  caFile = path.join(h.dir, 'ca.crt');
  writeFileSync(tokenFile, await h.tokenFor(NODE));
  writeFileSync(caFile, h.api.caPem);
  for (const e of entries) await fs.mkdir(path.join(h.disks, e));
});

afterAll(async () => {
  for (const c of [...children]) await kill9(c);
  await h?.close();
});

describe('restart during 20 parallel cleanups', () => {
  it('never re-offers a disk before its wipe finished; every re-offered disk is clean', async () => {
    const violations: string[] = [];
    const offered = new Map<string, string>(); // pv name -> uid of the re-offered PV
    const released = new Map<string, string>(); // pv name -> uid of the released PV
    const abort = new AbortController();
    const guard = (async () => {
      for await (const e of h.app.store.watch({ kinds: ['PersistentVolume'], resourceVersion: '0', signal: abort.signal })) {
        if (e.type !== 'ADDED' || !released.has(e.name)) continue;
        const entry = entries.find((x) => pvName(x) === e.name)!;
        const open = await h.app.nodeAgent.jobs.openForDisk(NODE, path.join(h.disks, entry));
        if (open) violations.push(`${e.name} offered while its cleanup is ${open.state}`);
        const left = await fs.readdir(path.join(h.disks, entry));
        if (left.length) violations.push(`${e.name} offered with ${left.length} entries left`);
        offered.set(e.name, e.object.metadata.uid!);
      }
    })().catch(() => {});

    let manager = startManager();
    let agent = startAgent();
    await waitFor('20 Available local PVs', async () => {
      for (const e of entries) if ((await h.app.store.tryGet('PersistentVolume', undefined, pvName(e)))?.status?.phase !== 'Available') return false;
      return true;
    }, 90_000);
    for (const e of entries) await h.app.store.create(claimFor(`c-${e}`, pvName(e)));
    await waitFor('20 Bound', async () => {
      for (const e of entries) if ((await h.app.store.tryGet('PersistentVolume', undefined, pvName(e)))?.status?.phase !== 'Bound') return false;
      return true;
    }, 60_000);
    for (const e of entries) {
      const dir = path.join(h.disks, e);
      for (let i = 0; i < FILES; i += 500) {
        await Promise.all(Array.from({ length: Math.min(500, FILES - i) }, (_, k) => fs.writeFile(path.join(dir, `f${i + k}`), 'tenant data')));
      }
      released.set(pvName(e), (await h.app.store.get('PersistentVolume', undefined, pvName(e))).metadata.uid!);
    }
    for (const e of entries) await h.app.store.delete('PersistentVolumeClaim', 'apps', `c-${e}`);

    // Kill both while wipes are running.
    await waitFor('wipes running', async () => {
      const rows = await rawQuery<{ n: string }>(h.url, `SELECT count(*) AS n FROM cleanup_jobs WHERE node_name = $1 AND state = 'running'`, [NODE]);
      return Number(rows[0].n) >= 2;
    }, 60_000);
    await Promise.all([kill9(agent), kill9(manager)]);
    const atKill = await rawQuery<{ id: string; state: string; lease_until: Date | null; agent_instance: string | null }>(
      h.url,
      'SELECT id, state, lease_until, agent_instance FROM cleanup_jobs WHERE node_name = $1',
      [NODE],
    );
    const unfinished = atKill.filter((j) => j.state !== 'succeeded');
    expect(unfinished.length).toBeGreaterThan(0);
    // While nothing runs, no disk with an unfinished job has a PV offered.
    for (const j of unfinished) {
      const pvs = await rawQuery<{ name: string }>(h.url, `SELECT pv_name AS name FROM cleanup_jobs WHERE id = $1`, [j.id]);
      const pv = await h.app.store.tryGet('PersistentVolume', undefined, pvs[0].name);
      expect(pv?.status?.phase === 'Available' && pv.metadata.uid !== released.get(pvs[0].name)).toBe(false);
    }

    manager = startManager();
    agent = startAgent();
    await waitFor('all 20 re-created Available', async () => {
      for (const e of entries) {
        const pv = await h.app.store.tryGet('PersistentVolume', undefined, pvName(e));
        if (pv?.status?.phase !== 'Available' || pv.metadata.uid === released.get(pvName(e))) return false;
      }
      return true;
    }, 120_000);
    abort.abort();
    await guard;

    expect(violations).toEqual([]);
    for (const e of entries) expect(await fs.readdir(path.join(h.disks, e))).toEqual([]);
    expect(offered.size).toBe(DISKS);
    // Jobs the dead agent held were taken again only after their lease ran out.
    const after = await rawQuery<{ id: string; state: string; started_at: Date; agent_instance: string }>(
      h.url,
      'SELECT id, state, started_at, agent_instance FROM cleanup_jobs WHERE node_name = $1',
      [NODE],
    );
    for (const j of atKill.filter((x) => x.state === 'running')) {
      const now = after.find((a) => a.id === j.id)!;
      expect(now.state).toBe('succeeded');
      if (now.agent_instance !== j.agent_instance) expect(new Date(now.started_at).getTime()).toBeGreaterThanOrEqual(new Date(j.lease_until!).getTime());
    }
    expect(after.every((j) => j.state === 'succeeded')).toBe(true);
    await Promise.all([kill9(agent), kill9(manager)]);
  });
});

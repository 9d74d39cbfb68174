// Every subvolume the agent makes for a volume is its owner's only (0700), whatever btrfs
// gives a new subvolume (0755) and whatever mode its source has: a new volume, a read-only
// snapshot, a restore; and one made part way before (a step cut short, or an older agent)
// is put right when it is settled again, staying read-only.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PoolVolumeWork, PoolWork } from '../../server/contracts/agent';
import { commands } from '../../server/agent/command-runner';
import { realPoolOs } from '../../server/agent/pool-os';
import { PoolKeeper, type PoolApi } from '../../server/agent/pools';
import { releaseAndWarn } from '../../server/provisioners/testing';
import { makePool, skipWithoutPools } from './fixture';

const run = promisify(execFile);
const skip = skipWithoutPools('modes of pool volumes');

const uid = (n: number) => `${String(n).repeat(8)}-${String(n).repeat(4)}-${String(n).repeat(4)}-${String(n).repeat(4)}-${String(n).repeat(12)}`;
const modeOf = async (p: string) => (await fs.stat(p)).mode & 0o777;
const readOnly = async (p: string) => (await run('btrfs', ['property', 'get', '-ts', p, 'ro'])).stdout.trim() === 'ro=true';

const noApi: PoolApi = { poolWork: async () => ({ pools: [], volumes: [] }), poolVolumeDone: async () => ({}), poolVolumesDone: async () => ({}), poolReport: async () => ({}) };

describe.skipIf(skip)('pool volumes on a real pool are their owner\'s only', () => {
  let dir: string;
  let pool: string;
  let keeper: PoolKeeper;
  let work: PoolWork;
  const volume = (name: string, over: Partial<PoolVolumeWork> = {}): PoolVolumeWork => ({ pvName: name, pool, path: path.join(pool, name), want: 'present', limitBytes: String(8 << 20), ...over });

  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'stowage-pool-modes-'));
    pool = await makePool(dir, 'pool', 256);
    keeper = new PoolKeeper(realPoolOs, noApi, 'node-a', pino({ level: 'silent' }));
    work = { pools: [{ className: 'pooled', path: pool }], volumes: [] };
  });
  afterAll(async () => {
    commands.close();
    if (dir) await releaseAndWarn(dir);
  });

  it('a new volume, its read-only snapshot and a restore of it: 0700 each, the snapshot read-only', async () => {
    const pv = `pvc-${uid(1)}`;
    const snap = `snapcontent-${uid(2)}`;
    const restore = `pvc-${uid(3)}`;
    await keeper.settle(work, volume(pv));
    await keeper.settle(work, volume(snap, { from: path.join(pool, pv), readOnly: true, limitBytes: '0' }));
    await keeper.settle(work, volume(restore, { from: path.join(pool, snap) }));
    expect(await modeOf(path.join(pool, pv))).toBe(0o700);
    expect(await modeOf(path.join(pool, snap))).toBe(0o700);
    expect(await readOnly(path.join(pool, snap))).toBe(true);
    expect(await modeOf(path.join(pool, restore))).toBe(0o700);
    expect(await readOnly(path.join(pool, restore))).toBe(false);
  });

  it('a volume made one step at a time (no batches) is 0700 too', async () => {
    const pv = `pvc-${uid(4)}`;
    await realPoolOs.createSubvolume(path.join(pool, pv));
    expect(await modeOf(path.join(pool, pv))).toBe(0o700);
  });

  it('a snapshot of a volume left 0755 (made before this rule) is 0700; settling that volume again puts it right', async () => {
    const pv = `pvc-${uid(5)}`;
    const snap = `snapcontent-${uid(6)}`;
    await run('btrfs', ['subvolume', 'create', path.join(pool, pv)]);
    expect(await modeOf(path.join(pool, pv))).toBe(0o755);
    await keeper.settle(work, volume(snap, { from: path.join(pool, pv), readOnly: true, limitBytes: '0' }));
    expect(await modeOf(path.join(pool, snap))).toBe(0o700);
    expect(await readOnly(path.join(pool, snap))).toBe(true);
    await keeper.settle(work, volume(pv));
    expect(await modeOf(path.join(pool, pv))).toBe(0o700);
  });

  it('a read-only snapshot found 0755 (a step cut short) is made 0700 and stays read-only', async () => {
    const pv = `pvc-${uid(7)}`;
    const snap = `snapcontent-${uid(8)}`;
    await run('btrfs', ['subvolume', 'create', path.join(pool, pv)]);
    await run('btrfs', ['subvolume', 'snapshot', '-r', path.join(pool, pv), path.join(pool, snap)]);
    expect(await modeOf(path.join(pool, snap))).toBe(0o755);
    await keeper.settle(work, volume(snap, { from: path.join(pool, pv), readOnly: true, limitBytes: '0' }));
    expect(await modeOf(path.join(pool, snap))).toBe(0o700);
    expect(await readOnly(path.join(pool, snap))).toBe(true);
  });
});

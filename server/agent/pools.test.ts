// The pool keeper's guards and steps over a strict fake of its OS interface: what it
// refuses without touching anything, and that every step is idempotent.
import { describe, expect, test, vi } from 'vitest';
import pino from 'pino';
import type { PoolVolumeWork, PoolWork } from '../contracts/agent';
import { LOOK_EVERY_MS, PoolKeeper, type PoolApi } from './pools';
import type { PathSeen, PoolOs } from './pool-os';

const UID = '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';
const PV = `pvc-${UID}`;

/** Pools and subvolumes in memory; every call that changes something is logged. */
class FakePoolOs implements PoolOs {
  calls: string[] = [];
  subvolumes = new Map<string, { id: string; limit?: bigint }>();
  paths = new Map<string, PathSeen>();
  quotasOff = new Set<string>();
  private next = 256;
  async look(p: string) {
    return this.paths.get(p) ?? (this.subvolumes.has(p) ? { exists: true, isDirectory: true, fsType: 'btrfs' } : { exists: false });
  }
  async statfs() {
    return { totalBytes: 1000n, availableBytes: 900n, blockSize: 4n, blocks: 250n, availableBlocks: 225n };
  }
  async qgroups(pool: string) {
    if (this.quotasOff.has(pool)) throw new Error('ERROR: cannot find the qgroup: quotas not enabled');
    return [...this.subvolumes.entries()].map(([p, s]) => ({ id: s.id, referencedBytes: 10n, exclusiveBytes: 10n, path: p.split('/').pop() }));
  }
  async subvolumeId(p: string) {
    this.calls.push(`rootid ${p}`);
    return this.subvolumes.get(p)?.id;
  }
  async isSubvolume(p: string) {
    return this.subvolumes.has(p);
  }
  async createSubvolume(p: string) {
    this.calls.push(`create ${p}`);
    this.subvolumes.set(p, { id: String(this.next++) });
  }
  async snapshotSubvolume(from: string, p: string, readOnly: boolean) {
    if (!this.subvolumes.has(from)) throw new Error(`ERROR: cannot snapshot '${from}': No such file or directory`);
    this.calls.push(`snapshot${readOnly ? ' -r' : ''} ${from} ${p}`);
    this.subvolumes.set(p, { id: String(this.next++) });
  }
  async secure() {
    // In memory every subvolume is made as it should be.
  }
  async limit(p: string, bytes: bigint) {
    this.calls.push(`limit ${p} ${bytes}`);
    this.subvolumes.get(p)!.limit = bytes;
  }
  async deleteSubvolume(pool: string, p: string, id: string) {
    this.calls.push(`delete ${p} ${id}`);
    this.subvolumes.delete(p);
  }
}

const noApi: PoolApi = { poolWork: async () => ({ pools: [], volumes: [] }), poolVolumeDone: async () => ({}), poolVolumesDone: async () => ({}), poolReport: async () => ({}) };
const log = pino({ level: 'silent' });

function setup() {
  const os = new FakePoolOs();
  os.paths.set('/pools/a', { exists: true, isDirectory: true, fsType: 'btrfs' });
  const keeper = new PoolKeeper(os, noApi, 'node-a', log);
  const work: PoolWork = { pools: [{ className: 'pooled', path: '/pools/a' }], volumes: [] };
  return { os, keeper, work };
}

const volume = (over: Partial<PoolVolumeWork> = {}): PoolVolumeWork => ({ pvName: PV, pool: '/pools/a', path: `/pools/a/${PV}`, want: 'present', limitBytes: '1048576', ...over });

describe('refused without touching anything', () => {
  const rows: [string, Partial<PoolVolumeWork>, RegExp][] = [
    ['a pool that is not one of this node\'s', { pool: '/pools/b', path: `/pools/b/${PV}` }, /not a volume of a pool of node "node-a"/],
    ['a path outside its pool', { path: `/etc/${PV}` }, /not a volume of a pool/],
    ['a path below a volume', { path: `/pools/a/${PV}/x` }, /not a volume of a pool/],
    ['a path not named after its volume', { path: `/pools/a/pvc-${'1'.repeat(8)}-1111-1111-1111-111111111111` }, /not a volume of a pool/],
    ['a name that is not a volume name', { pvName: 'data', path: '/pools/a/data' }, /not a volume of a pool/],
  ];
  test.each(rows)('%s', async (_n, over, want) => {
    const { os, keeper, work } = setup();
    await expect(keeper.settle(work, volume(over))).rejects.toThrow(want);
    expect(os.calls).toEqual([]);
  });

  test('a pool without quotas', async () => {
    const { os, keeper, work } = setup();
    os.quotasOff.add('/pools/a');
    await expect(keeper.settle(work, volume())).rejects.toThrow(/quotas are not enabled/);
    expect(os.calls).toEqual([]);
  });
});

describe('idempotent steps', () => {
  test('present: made and limited once; again only the limit (a grown one)', async () => {
    const { os, keeper, work } = setup();
    expect(await keeper.settle(work, volume())).toEqual({ state: 'present', limitBytes: '1048576' });
    expect(await keeper.settle(work, volume({ limitBytes: '2097152' }))).toEqual({ state: 'present', limitBytes: '2097152', subvolumeId: '256' });
    expect(os.calls).toEqual([`create /pools/a/${PV}`, `limit /pools/a/${PV} 1048576`, `limit /pools/a/${PV} 2097152`]);
  });

  test('absent: removed once; again nothing to do', async () => {
    const { os, keeper, work } = setup();
    await keeper.settle(work, volume());
    expect(await keeper.settle(work, volume({ want: 'absent', subvolumeId: '256' }))).toEqual({ state: 'absent' });
    expect(await keeper.settle(work, volume({ want: 'absent' }))).toEqual({ state: 'absent' });
    expect(os.calls.filter((c) => c.startsWith('delete'))).toEqual([`delete /pools/a/${PV} 256`]);
  });

  test('absent after a cut-short delete (subvolume gone, qgroup maybe not): finished by its recorded id', async () => {
    const { os, keeper, work } = setup();
    expect(await keeper.settle(work, volume({ want: 'absent', subvolumeId: '300' }))).toEqual({ state: 'absent' });
    expect(os.calls).toEqual([`delete /pools/a/${PV} 300`]);
  });
});

describe('snapshots, restores and clones (from another subvolume of the pool)', () => {
  const SNAP = `snapcontent-${UID}`;
  const other = `pvc-${'2'.repeat(8)}-2222-2222-2222-222222222222`;

  test('a read-only snapshot is made once and never limited', async () => {
    const { os, keeper, work } = setup();
    await keeper.settle(work, volume());
    const snap = volume({ pvName: SNAP, path: `/pools/a/${SNAP}`, from: `/pools/a/${PV}`, readOnly: true, limitBytes: '0' });
    expect(await keeper.settle(work, snap)).toEqual({ state: 'present', limitBytes: '0' });
    expect(await keeper.settle(work, snap)).toMatchObject({ state: 'present', limitBytes: '0' });
    expect(os.calls.slice(2)).toEqual([`snapshot -r /pools/a/${PV} /pools/a/${SNAP}`]);
  });

  test('a restore is a writable snapshot of the snapshot with its own limit', async () => {
    const { os, keeper, work } = setup();
    await keeper.settle(work, volume());
    await keeper.settle(work, volume({ pvName: SNAP, path: `/pools/a/${SNAP}`, from: `/pools/a/${PV}`, readOnly: true, limitBytes: '0' }));
    const restore = volume({ pvName: other, path: `/pools/a/${other}`, from: `/pools/a/${SNAP}`, limitBytes: '2097152' });
    expect(await keeper.settle(work, restore)).toEqual({ state: 'present', limitBytes: '2097152' });
    expect(os.calls.slice(3)).toEqual([`snapshot /pools/a/${SNAP} /pools/a/${other}`, `limit /pools/a/${other} 2097152`]);
  });

  test('a promotion is a writable snapshot of the volume\'s own replication snapshot, with its limit', async () => {
    const { os, keeper, work } = setup();
    const snap = `/pools/a/.stowage-replicas/${PV}/snap-7`;
    os.subvolumes.set(snap, { id: '400' });
    expect(await keeper.settle(work, volume({ from: snap, limitBytes: '2097152' }))).toEqual({ state: 'present', limitBytes: '2097152' });
    expect(os.calls).toEqual([`snapshot ${snap} /pools/a/${PV}`, `limit /pools/a/${PV} 2097152`]);
  });

  const refusedSources: [string, Partial<PoolVolumeWork>][] = [
    ['another volume\'s replication snapshot', { from: `/pools/a/.stowage-replicas/${other}/snap-7` }],
    ['a replication snapshot of another pool', { from: `/pools/b/.stowage-replicas/${PV}/snap-7` }],
    ['a path that only looks like one', { from: `/pools/a/.stowage-replicas/${PV}/../${PV}/snap-7` }],
    ['a read-only volume from a replication snapshot', { from: `/pools/a/.stowage-replicas/${PV}/snap-7`, readOnly: true }],
  ];
  test.each(refusedSources)('a promotion from %s is refused untouched', async (_n, over) => {
    const { os, keeper, work } = setup();
    for (const p of [`/pools/a/.stowage-replicas/${other}/snap-7`, `/pools/a/.stowage-replicas/${PV}/snap-7`]) os.subvolumes.set(p, { id: '400' });
    await expect(keeper.settle(work, volume(over))).rejects.toThrow(/refusing to snapshot/);
    expect(os.calls).toEqual([]);
  });

  test('a source outside the pool is refused untouched', async () => {
    const { os, keeper, work } = setup();
    const bad = volume({ pvName: other, path: `/pools/a/${other}`, from: `/etc/${PV}` });
    await expect(keeper.settle(work, bad)).rejects.toThrow(/refusing to snapshot \/etc\//);
    expect(os.calls).toEqual([]);
  });
});

describe('a pass', () => {
  test('settles every volume, reports them all in one request with the ids of their new subvolumes, and reports the pools', async () => {
    const os = new FakePoolOs();
    os.paths.set('/pools/a', { exists: true, isDirectory: true, fsType: 'btrfs' });
    const other = `pvc-${'2'.repeat(8)}-2222-2222-2222-222222222222`;
    const sent: unknown[][] = [];
    const reports: unknown[] = [];
    const api: PoolApi = {
      poolWork: async () => ({ pools: [{ className: 'pooled', path: '/pools/a' }], volumes: [volume(), volume({ pvName: other, path: `/pools/a/${other}` })] }),
      poolVolumeDone: async () => {
        throw new Error('one request per pass, not one per volume');
      },
      poolVolumesDone: async (_node, results) => sent.push(results),
      poolReport: async (_node, pools) => reports.push(pools),
    };
    expect(await new PoolKeeper(os, api, 'node-a', log).pass()).toEqual({ worked: true });
    expect(sent).toHaveLength(1);
    const byName = (a: { pvName: string }, b: { pvName: string }) => a.pvName.localeCompare(b.pvName);
    expect((sent[0] as { pvName: string }[]).sort(byName)).toEqual([
      { pvName: PV, state: 'present', limitBytes: '1048576', subvolumeId: '256' },
      { pvName: other, state: 'present', limitBytes: '1048576', subvolumeId: '257' },
    ].sort(byName));
    expect(os.calls.filter((c) => c.startsWith('rootid'))).toEqual([]);
    expect(reports).toHaveLength(1);
  });

  test('asks without waiting after work or when the pools are due, and with a wait (up to the next look) when idle', async () => {
    const os = new FakePoolOs();
    os.paths.set('/pools/a', { exists: true, isDirectory: true, fsType: 'btrfs' });
    const waits: (number | undefined)[] = [];
    const answers: PoolWork[] = [
      { pools: [{ className: 'pooled', path: '/pools/a' }], volumes: [volume()] },
      { pools: [{ className: 'pooled', path: '/pools/a' }], volumes: [] },
      { pools: [{ className: 'pooled', path: '/pools/a' }], volumes: [] },
    ];
    const api: PoolApi = { ...noApi, poolWork: async (_node, waitMs) => (waits.push(waitMs), answers.shift()!) };
    const keeper = new PoolKeeper(os, api, 'node-a', log);
    expect(await keeper.pass()).toEqual({ worked: true });
    expect(await keeper.pass()).toEqual({ worked: false });
    expect(await keeper.pass()).toEqual({ worked: false });
    expect(waits[0]).toBe(0); // first pass: the pools are due
    expect(waits[1]).toBe(0); // right after work: more may be there
    expect(waits[2]).toBeGreaterThan(LOOK_EVERY_MS / 2); // idle: held by the server until work or the next look
    expect(waits[2]).toBeLessThanOrEqual(LOOK_EVERY_MS);
  });
});

describe('pool work as a stream (run)', () => {
  test('a volume named while another is being made is made and reported without waiting for it, and none is made twice', async () => {
    const os = new FakePoolOs();
    os.paths.set('/pools/a', { exists: true, isDirectory: true, fsType: 'btrfs' });
    const other = `pvc-${'3'.repeat(8)}-3333-3333-3333-333333333333`;
    // Making the first volume hangs until the test lets it go.
    let letGo!: () => void;
    const held = new Promise<void>((r) => (letGo = r));
    const create = os.createSubvolume.bind(os);
    os.createSubvolume = async (p: string) => {
      if (p.endsWith(PV)) await held;
      return create(p);
    };
    const pools = [{ className: 'pooled', path: '/pools/a' }];
    let endAsks!: () => void;
    const asksEnd = new Promise<void>((r) => (endAsks = r));
    const answers: PoolWork[] = [
      { pools, volumes: [volume()], version: 'v1' },
      // The next answer still names the first volume (not reported yet), and a new one.
      { pools, volumes: [volume(), volume({ pvName: other, path: `/pools/a/${other}` })], version: 'v2' },
    ];
    const seen: (string | undefined)[] = [];
    const sent: string[] = [];
    const api: PoolApi = {
      ...noApi,
      poolWork: async (_node, _waitMs, version) => {
        seen.push(version);
        const next = answers.shift();
        if (next) return next;
        await asksEnd;
        return { pools, volumes: [], version: 'v3' };
      },
      poolVolumesDone: async (_node, results) => sent.push(...results.map((r) => `${r.pvName} ${r.state}`)),
    };
    const stop = new AbortController();
    const running = new PoolKeeper(os, api, 'node-a', log).run(stop.signal, 10);
    await vi.waitFor(() => expect(sent).toEqual([`${other} present`]), { timeout: 5_000 });
    expect(os.subvolumes.has(`/pools/a/${PV}`)).toBe(false); // the first is still being made
    letGo();
    await vi.waitFor(() => expect(sent).toEqual([`${other} present`, `${PV} present`]), { timeout: 5_000 });
    stop.abort();
    endAsks();
    await running;
    expect(os.calls.filter((c) => c.startsWith('create')).sort()).toEqual([`create /pools/a/${PV}`, `create /pools/a/${other}`].sort());
    // Each ask names the list it has in hand, so the server holds an unchanged one.
    expect(seen.slice(0, 3)).toEqual([undefined, 'v1', 'v2']);
  });

  test('a pool report still being answered does not hold up hearing of a new volume', async () => {
    const os = new FakePoolOs();
    os.paths.set('/pools/a', { exists: true, isDirectory: true, fsType: 'btrfs' });
    const pools = [{ className: 'pooled', path: '/pools/a' }];
    let answerReport!: () => void;
    const reportHeld = new Promise<void>((r) => (answerReport = r));
    let reports = 0;
    let endAsks!: () => void;
    const asksEnd = new Promise<void>((r) => (endAsks = r));
    // The first answer (no volumes) makes the pools due for a report, which the server holds;
    // the second names a volume.
    const answers: PoolWork[] = [{ pools, volumes: [], version: 'v1' }, { pools, volumes: [volume()], version: 'v2' }];
    const sent: string[] = [];
    const api: PoolApi = {
      ...noApi,
      poolWork: async () => answers.shift() ?? asksEnd.then(() => ({ pools, volumes: [], version: 'v3' })),
      poolVolumesDone: async (_node, results) => sent.push(...results.map((r) => `${r.pvName} ${r.state}`)),
      poolReport: async () => {
        reports++;
        await reportHeld;
        return {};
      },
    };
    const stop = new AbortController();
    const running = new PoolKeeper(os, api, 'node-a', log).run(stop.signal, 10);
    await vi.waitFor(() => expect(sent).toEqual([`${PV} present`]), { timeout: 5_000 });
    expect(reports).toBe(1); // ... while the report was still out
    answerReport();
    stop.abort();
    endAsks();
    await running;
  });
});

describe('pool reports', () => {
  const rows: [string, PathSeen | undefined, boolean, string | undefined][] = [
    ['usable', { exists: true, isDirectory: true, fsType: 'btrfs' }, false, undefined],
    ['missing', undefined, false, 'the path does not exist on this node'],
    ['on ext4', { exists: true, isDirectory: true, fsType: 'ext4' }, false, 'the path is on a ext4 filesystem, not btrfs'],
    ['without quotas', { exists: true, isDirectory: true, fsType: 'btrfs' }, true, 'quotas are not enabled on this btrfs filesystem (btrfs quota enable): ERROR: cannot find the qgroup: quotas not enabled'],
  ];
  test.each(rows)('%s', async (_n, seen, quotasOff, reason) => {
    const os = new FakePoolOs();
    if (seen) os.paths.set('/p', seen);
    if (quotasOff) os.quotasOff.add('/p');
    const r = await new PoolKeeper(os, noApi, 'node-a', log).look('c', '/p');
    expect(r.usable).toBe(reason === undefined);
    expect(r.reason).toBe(reason);
    if (!reason) expect(r).toMatchObject({ totalBytes: '1000', freeBytes: '900' });
  });

  test('seen under the agent\'s root, reported by the host path', async () => {
    const os = new FakePoolOs();
    os.paths.set('/host/p', { exists: true, isDirectory: true, fsType: 'btrfs' });
    const r = await new PoolKeeper(os, noApi, 'node-a', log, '/host').look('c', '/p');
    expect(r).toMatchObject({ path: '/p', usable: true });
  });
});

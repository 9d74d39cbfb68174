import { describe, expect, it } from 'vitest';
import { CleanupRunner, hdparmUnsupported } from './cleanup-runner';
import type { CleanupMethod } from '../domain/cleanup-method';
import type { CleanupProgress, CleanupRequest } from '../contracts/agent';
import type { LocalClassConfig } from '../domain/local-volume-config';
import { localClass } from './local-class-fixture';
import { FakeAgentOs } from './os-fake';

const MiB = 1n << 20n;

const cls = (o: Partial<LocalClassConfig> = {}): LocalClassConfig => localClass({ mountDir: '/agent/disks', ...o });

let seq = 0;
function req(entry: string, o: Partial<CleanupRequest> = {}): CleanupRequest {
  const block = o.volumeMode === 'Block';
  return {
    jobId: `job-${++seq}`,
    pvName: `local-pv-${seq}`,
    className: 'local',
    hostPath: `/mnt/disks/${entry}`,
    volumeMode: 'Filesystem',
    method: block ? 'dd-zero' : 'files',
    attempt: 1,
    ...o,
  };
}

/** A fake dd that zeroes the device it is given and prints dd's progress lines. */
function withDd(os: FakeAgentOs): FakeAgentOs {
  return os.onCommand('dd', (argv, _env, out) => {
    const of = argv.find((a) => a.startsWith('of='))!.slice(3);
    const count = BigInt(argv.find((a) => a.startsWith('count='))!.slice(6));
    out(`${count / 2n} bytes (x) copied, 0.1 s, 1 GB/s`, 'stderr');
    os.zero(os.rdevOf(of));
    out(`${count} bytes (x) copied, 0.2 s, 1 GB/s`, 'stderr');
    return 0;
  });
}

function world() {
  const os = new FakeAgentOs();
  os.mkdir('/agent/disks').mkdir('/dev').mkdir('/elsewhere/data');
  os.mkdir('/agent/disks/vol').mount('/agent/disks/vol');
  os.mkdir('/agent/disks/vol/a/b').writeFile('/agent/disks/vol/a/b/f1', 5n).writeFile('/agent/disks/vol/f2', 7n);
  os.symlink('/agent/disks/vol/link-out', '/elsewhere/data');
  os.mkdir('/agent/disks/plain/sub').writeFile('/agent/disks/plain/sub/x', 1n);
  const rdev = os.blockDevice('/dev/loop0', 8n * MiB);
  os.symlink('/agent/disks/blk', '/dev/loop0');
  os.blockDevice('/dev/loop1', 8n * MiB);
  os.symlink('/agent/disks/out', '/elsewhere');
  os.writeFile('/agent/disks/file', 3n);
  return { os, rdev };
}

async function collect(runner: CleanupRunner, r: CleanupRequest, c: LocalClassConfig, signal?: AbortSignal) {
  const progress: CleanupProgress[] = [];
  const result = await runner.run(r, c, (p) => progress.push(p), signal);
  return { result, progress };
}

describe('CleanupRunner: Filesystem volumes', () => {
  it('removes the contents, keeps the mount point, never follows a symlink out', async () => {
    const { os } = world();
    const { result, progress } = await collect(new CleanupRunner(os), req('vol'), cls());
    expect(result).toMatchObject({ ok: true, jobId: `job-${seq}` });
    expect(os.exists('/agent/disks/vol')).toBe(true);
    expect(os.mounts.has('/agent/disks/vol')).toBe(true);
    expect(await os.readdir('/agent/disks/vol')).toEqual([]);
    expect(os.exists('/elsewhere/data')).toBe(true);
    const last = progress.at(-1)!;
    expect(last).toMatchObject({ unit: 'entries', done: '5', total: '5', etaSeconds: 0 });
  });

  it('a plain directory keeps the directory itself', async () => {
    const { os } = world();
    const { result } = await collect(new CleanupRunner(os), req('plain'), cls());
    expect(result.ok).toBe(true);
    expect(os.exists('/agent/disks/plain')).toBe(true);
    expect(os.exists('/agent/disks/plain/sub')).toBe(false);
  });

  it('refuses to cross into another filesystem mounted inside the volume', async () => {
    const { os } = world();
    os.mkdir('/agent/disks/plain/nested').mount('/agent/disks/plain/nested');
    const { result } = await collect(new CleanupRunner(os), req('plain'), cls());
    expect(result).toMatchObject({ ok: false });
    expect(result.error).toContain('another filesystem');
  });
});

describe('CleanupRunner: refusals (nothing is touched)', () => {
  it.each([
    { name: 'hostPath outside hostDir', r: () => req('x', { hostPath: '/etc' }), error: 'is not inside the discovery directory' },
    { name: 'hostPath with ..', r: () => req('x', { hostPath: '/mnt/disks/../etc' }), error: 'is not an entry of the discovery directory' },
    { name: 'hostPath nested below an entry', r: () => req('x', { hostPath: '/mnt/disks/vol/a' }), error: 'is not an entry' },
    { name: 'hostPath the directory itself', r: () => req('x', { hostPath: '/mnt/disks/' }), error: 'is not an entry' },
    { name: 'a missing entry', r: () => req('gone'), error: 'cannot be found' },
    { name: 'a directory symlink resolving outside', r: () => req('out'), error: 'outside the discovery directory' },
    { name: 'a regular file as Filesystem', r: () => req('file'), error: 'is not a directory' },
    { name: 'a directory as Block', r: () => req('vol', { volumeMode: 'Block', method: 'dd-zero' }), error: 'is not a block device' },
    { name: 'another class', r: () => req('vol', { className: 'other' }), error: 'the request is for class other' },
    { name: 'files on a Block volume', r: () => req('blk', { volumeMode: 'Block', method: 'files' }), error: 'needs a block cleanup method' },
    { name: 'dd-zero on a Filesystem volume', r: () => req('vol', { method: 'dd-zero' }), error: 'removing its files' },
    { name: 'custom with a relative command', r: () => req('blk', { volumeMode: 'Block', method: 'custom', command: ['rm', '-rf', '/'] }), error: 'not a custom command' },
  ])('$name', async ({ r, error }) => {
    const { os } = world();
    withDd(os);
    const before = [...os.nodes.keys()].sort();
    const { result } = await collect(new CleanupRunner(os), r(), cls());
    expect(result).toMatchObject({ ok: false, refused: true });
    expect(result.error).toContain(error);
    expect([...os.nodes.keys()].sort()).toEqual(before);
    expect(os.ran).toEqual([]);
  });

  it('a mounted block device is refused', async () => {
    const { os } = world();
    withDd(os);
    os.mkdir('/mnt/somewhere').mount('/mnt/somewhere', { source: '/dev/loop0' });
    const { result } = await collect(new CleanupRunner(os), req('blk', { volumeMode: 'Block', method: 'dd-zero' }), cls());
    expect(result).toMatchObject({ ok: false, refused: true });
    expect(result.error).toContain('is mounted at /mnt/somewhere');
  });
});

describe('CleanupRunner: Block methods run the right command on the resolved device', () => {
  it.each<{ method: CleanupMethod; command?: string[]; classCmd?: string[]; argv: string[][] }>([
    { method: 'dd-zero', argv: [['dd', 'if=/dev/zero', 'of=/dev/loop0', `bs=${4 << 20}`, `count=${8n * MiB}`, 'iflag=count_bytes', 'oflag=direct', 'conv=fsync', 'status=progress']] },
    { method: 'blkdiscard', argv: [['blkdiscard', '-f', '-o', '0', '-l', String(8n * MiB), '/dev/loop0']] },
    { method: 'fs-reset', argv: [['wipefs', '-a', '-f', '/dev/loop0'], ['mkfs.ext4', '-F', '-q', '/dev/loop0'], ['wipefs', '-a', '-f', '/dev/loop0']] },
    { method: 'shred', classCmd: ['shred', '2'], argv: [['shred', '-v', '-n', '2', '-z', '/dev/loop0']] },
    { method: 'custom', command: ['/opt/wipe', '--fast'], argv: [['/opt/wipe', '--fast']] },
  ])('$method', async ({ method, command, classCmd, argv }) => {
    const { os } = world();
    withDd(os);
    for (const c of ['blkdiscard', 'wipefs', 'mkfs.ext4', 'shred', '/opt/wipe']) os.onCommand(c, () => 0);
    const { result, progress } = await collect(
      new CleanupRunner(os),
      req('blk', { volumeMode: 'Block', method, ...(command ? { command } : {}) }),
      cls(classCmd ? { blockCleanerCommand: classCmd } : {}),
    );
    expect(result).toMatchObject({ ok: true });
    expect(os.ran.map((r) => r.argv)).toEqual(argv);
    expect(progress.at(-1)).toMatchObject({ unit: 'bytes', done: progress.at(-1)!.total });
  });

  it('dd-zero leaves the device reading zero and reports bytes', async () => {
    const { os, rdev } = world();
    withDd(os);
    expect(os.deviceIsZero(rdev)).toBe(false);
    const { result, progress } = await collect(new CleanupRunner(os), req('blk', { volumeMode: 'Block', method: 'dd-zero' }), cls({ blockCleanerCommand: ['dd-zero', '2'] }));
    expect(result.ok).toBe(true);
    expect(os.deviceIsZero(rdev)).toBe(true);
    expect(os.ran).toHaveLength(2);
    expect(progress.at(-1)).toMatchObject({ done: String(16n * MiB), total: String(16n * MiB) });
  });

  it('blkdiscard works through a large device in steps, and progress follows', async () => {
    const { os } = world();
    os.blockDevice('/dev/big', 200n * MiB);
    os.symlink('/agent/disks/big', '/dev/big');
    os.onCommand('blkdiscard', () => 0);
    const { result, progress } = await collect(new CleanupRunner(os), req('big', { volumeMode: 'Block', method: 'blkdiscard' }), cls());
    expect(result.ok).toBe(true);
    expect(os.ran.map((r) => r.argv.slice(2, 6))).toEqual([
      ['-o', '0', '-l', String(64n * MiB)],
      ['-o', String(64n * MiB), '-l', String(64n * MiB)],
      ['-o', String(128n * MiB), '-l', String(64n * MiB)],
      ['-o', String(192n * MiB), '-l', String(8n * MiB)],
    ]);
    expect(progress.at(-1)).toMatchObject({ done: String(200n * MiB), total: String(200n * MiB) });
  });

  it('a custom command sees the entry in the discovery directory in LOCAL_PV_BLKDEVICE, as upstream', async () => {
    const { os } = world();
    let seen: string | undefined;
    os.onCommand('/opt/wipe', (_argv, env) => {
      seen = env.LOCAL_PV_BLKDEVICE;
      return 0;
    });
    const { result } = await collect(new CleanupRunner(os), req('blk', { volumeMode: 'Block', method: 'custom' }), cls({ blockCleanerCommand: ['/opt/wipe'] }));
    expect(result.ok).toBe(true);
    expect(seen).toBe('/agent/disks/blk'); // mountDir/name, not hostDir/name nor the resolved /dev/loop0
  });

  it('a failing method reports its exit code and the last lines of its output', async () => {
    const { os } = world();
    os.onCommand('blkdiscard', (_a, _e, out) => {
      for (let i = 1; i <= 30; i++) out(`line ${i}`, 'stderr');
      return 1;
    });
    const { result } = await collect(new CleanupRunner(os), req('blk', { volumeMode: 'Block', method: 'blkdiscard' }), cls());
    expect(result).toMatchObject({ ok: false, exitCode: 1, error: 'blkdiscard exited with 1' });
    expect(result.outputTail).toHaveLength(20);
    expect(result.outputTail!.at(-1)).toBe('line 30');
  });

  it('a missing command is a failure with a clear error', async () => {
    const { os } = world();
    const { result } = await collect(new CleanupRunner(os), req('blk', { volumeMode: 'Block', method: 'blkdiscard' }), cls());
    expect(result).toMatchObject({ ok: false });
    expect(result.error).toContain('cannot run blkdiscard');
  });

  it('hdparm on a device without ATA security says so', async () => {
    const { os } = world();
    os.onCommand('hdparm', (_a, _e, out) => {
      out('/dev/loop0:');
      out(' HDIO_DRIVE_CMD(identify) failed: Inappropriate ioctl for device');
      return 0;
    });
    const { result } = await collect(new CleanupRunner(os), req('blk', { volumeMode: 'Block', method: 'hdparm' }), cls());
    expect(result.ok).toBe(false);
    expect(result.error).toContain('ATA secure erase is not available on /dev/loop0');
    expect(os.ran).toHaveLength(1);
  });
});

describe('hdparmUnsupported', () => {
  const section = (lines: string[]) => `Commands/features:\nSecurity:\n\tMaster password revision code = 65534\n${lines.map((l) => `\t${l}`).join('\n')}\n`;
  it.each([
    { name: 'no security section', info: 'HDIO_DRIVE_CMD(identify) failed', problem: 'no ATA Security feature set' },
    { name: 'not supported', info: section(['not\tsupported', 'not\tenabled']), problem: 'not supported' },
    { name: 'frozen', info: section(['supported', 'not\tenabled', 'not\tlocked', '\tfrozen']), problem: 'security-frozen' },
    { name: 'password set', info: section(['supported', 'enabled', 'not\tlocked', 'not\tfrozen']), problem: 'already set' },
    { name: 'ready', info: section(['supported', 'not\tenabled', 'not\tlocked', 'not\tfrozen', 'supported: enhanced erase']), problem: undefined },
  ])('$name', ({ info, problem }) => {
    const r = hdparmUnsupported(info);
    if (problem === undefined) expect(r).toBeUndefined();
    else expect(r).toContain(problem);
  });
});

/** Resolves when cond() holds; fails after the deadline. */
async function until(cond: () => boolean, what: string, ms = 5000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('CleanupRunner: concurrency', () => {
  function gated(os: FakeAgentOs) {
    const gates: (() => void)[] = [];
    let now = 0;
    let peak = 0;
    os.onCommand('/opt/slow', () => {
      now++;
      peak = Math.max(peak, now);
      return new Promise<number>((resolve) =>
        gates.push(() => {
          now--;
          resolve(0);
        }),
      );
    });
    return { gates, peak: () => peak, now: () => now };
  }
  function devices(os: FakeAgentOs, n: number) {
    for (let i = 0; i < n; i++) {
      os.blockDevice(`/dev/sd${i}`, MiB);
      os.symlink(`/agent/disks/d${i}`, `/dev/sd${i}`);
    }
  }

  it('Ensure two simultaneous cleaning operations on the same PV do not occur (seed 003)', async () => {
    const { os } = world();
    const g = gated(os);
    const runner = new CleanupRunner(os);
    const c = cls({ blockCleanerCommand: ['/opt/slow'] });
    const first = runner.run(req('blk', { volumeMode: 'Block', method: 'custom' }), c, () => {});
    const second = await runner.run(req('blk', { volumeMode: 'Block', method: 'custom' }), c, () => {});
    expect(second).toMatchObject({ ok: false, busy: true });
    expect(runner.running()).toHaveLength(1);
    expect([...runner.activePaths()]).toEqual(['/mnt/disks/blk']);
    await until(() => g.gates.length === 1, 'the first cleanup to start');
    g.gates[0]();
    expect((await first).ok).toBe(true);
    expect(runner.running()).toEqual([]);
    // Once finished, the same disk may be cleaned again.
    const again = runner.run(req('blk', { volumeMode: 'Block', method: 'custom' }), c, () => {});
    await until(() => g.gates.length === 2, 'the second cleanup to start');
    g.gates[1]();
    expect((await again).ok).toBe(true);
  });

  it.each([
    { name: 'per class (parallelCleanups 2, overall 10)', parallel: 2, overall: 10, peak: 2 },
    { name: 'overall (parallelCleanups 10, maxParallel 3)', parallel: 10, overall: 3, peak: 3 },
  ])('bounded parallelism $name', async ({ parallel, overall, peak }) => {
    const { os } = world();
    devices(os, 6);
    const g = gated(os);
    const runner = new CleanupRunner(os, { maxParallel: overall });
    const c = cls({ blockCleanerCommand: ['/opt/slow'], parallelCleanups: parallel });
    const runs = Array.from({ length: 6 }, (_, i) => runner.run(req(`d${i}`, { volumeMode: 'Block', method: 'custom' }), c, () => {}));
    let released = 0;
    while (released < 6) {
      await until(() => g.gates.length > released, 'a cleanup to start');
      expect(g.now()).toBeLessThanOrEqual(peak);
      g.gates[released++]();
    }
    expect((await Promise.all(runs)).every((r) => r.ok)).toBe(true);
    expect(g.peak()).toBe(peak);
  });

  it('reports progress repeatedly while a cleanup runs, and can be cancelled', async () => {
    const { os } = world();
    os.onCommand('/opt/forever', (_a, _e, _o, signal) => new Promise<number>((resolve) => signal!.addEventListener('abort', () => resolve(143))));
    const runner = new CleanupRunner(os, { progressIntervalMs: 10 });
    const abort = new AbortController();
    const progress: CleanupProgress[] = [];
    const run = runner.run(req('blk', { volumeMode: 'Block', method: 'custom' }), cls({ blockCleanerCommand: ['/opt/forever'] }), (p) => progress.push(p), abort.signal);
    await until(() => progress.length >= 3, 'three progress reports');
    expect(progress.every((p) => p.total === String(8n * MiB))).toBe(true);
    abort.abort();
    expect(await run).toMatchObject({ ok: false, cancelled: true });
    expect(runner.running()).toEqual([]);
  });
});

// Seed 003's node-local test items, by their names in the seed.
describe('seed 003 block and async cleanup tests (node-local half)', () => {
  it('Validate that both success and failure of asynchronous cleanup processes are properly tracked', async () => {
    const { os } = world();
    const gates: ((code: number) => void)[] = [];
    os.onCommand('/opt/slow', () => new Promise<number>((resolve) => gates.push(resolve)));
    os.blockDevice('/dev/sdz', MiB);
    os.symlink('/agent/disks/other', '/dev/sdz');
    const runner = new CleanupRunner(os);
    const c = cls({ blockCleanerCommand: ['/opt/slow'] });
    const good = req('blk', { volumeMode: 'Block', method: 'custom' });
    const bad = req('other', { volumeMode: 'Block', method: 'custom' });
    const runs = [runner.run(good, c, () => {}), runner.run(bad, c, () => {})];
    await until(() => gates.length === 2, 'both cleanups to start');
    expect(runner.running().sort()).toEqual([good.jobId, bad.jobId].sort());
    gates[0](0);
    gates[1](5);
    const [a, b] = await Promise.all(runs);
    expect(a).toMatchObject({ jobId: good.jobId, ok: true });
    expect(b).toMatchObject({ jobId: bad.jobId, ok: false, exitCode: 5 });
    expect(runner.running()).toEqual([]);
  });

  it.each([
    { name: 'Plugin disallows backsteps in the Path: ../ in the request', hostPath: '/mnt/disks/../../etc' },
    { name: 'Plugin disallows backsteps in the Path: .. as the entry', hostPath: '/mnt/disks/..' },
    { name: 'Plugin disallows backsteps in the Path: a sibling of the discovery directory', hostPath: '/mnt/disks-other/x' },
  ])('$name', async ({ hostPath }) => {
    const { os } = world();
    withDd(os);
    const { result } = await collect(new CleanupRunner(os), req('x', { hostPath }), cls());
    expect(result).toMatchObject({ ok: false, refused: true });
    expect(os.ran).toEqual([]);
  });
});

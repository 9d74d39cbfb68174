// The publisher on real directories: what a pod sees under its directory, that data goes
// to the volume itself, that unpublishing never touches the volume's data, and the
// kubelet's words when a volume cannot be set up. Bind mounts need privilege: where the
// machine refuses them, the publisher links instead, and the tests accept either form.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import type { AgentPod, PodVolume } from '../contracts/agent';
import { Publisher } from './publisher';
import { contentBytes, mountTargets, realPublishOs, type PublishOs } from './publish-os';

let dir: string;
let podsDir: string;
let publisher: Publisher;

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'stowage-publish-'));
  podsDir = path.join(dir, 'pods');
  await fs.mkdir(podsDir);
  await fs.mkdir(path.join(dir, 'vol1'));
  publisher = new Publisher(realPublishOs, podsDir);
});

afterEach(async () => {
  // Unpublish whatever a failed test left, so removing the tree cannot reach into a volume.
  await publisher.sync([]);
  await fs.rm(dir, { recursive: true, force: true });
});

const vol = (o: Partial<PodVolume> = {}): PodVolume => ({
  name: 'data',
  claimName: 'c1',
  readOnly: false,
  pvName: 'pv-1',
  volumeMode: 'Filesystem',
  hostPath: path.join(dir, 'vol1'),
  ...o,
});

const pod = (uid: string, volumes: PodVolume[], deleting = false): AgentPod => ({ namespace: 'apps', name: `p-${uid}`, uid, deleting, volumes });

describe('publishing a directory volume', () => {
  test('the pod directory shows the volume; data written there is in the volume', async () => {
    const r = await publisher.sync([pod('u1', [vol()])]);
    expect(r.errors).toEqual([]);
    expect(r.reports).toHaveLength(1);
    expect(r.reports[0].volumes[0]).toMatchObject({ name: 'data', ready: true });
    expect(r.reports[0].volumes[0].message).toMatch(/^(bind mount|symlink)/);
    await fs.writeFile(path.join(podsDir, 'u1', 'volumes', 'data', 'hello.txt'), 'from pod 1');
    expect(await fs.readFile(path.join(dir, 'vol1', 'hello.txt'), 'utf8')).toBe('from pod 1');
  });

  test("each pod's report is heard as soon as that pod is done, not after the slowest pod", async () => {
    await fs.mkdir(path.join(dir, 'vol2'));
    let letGo!: () => void;
    const held = new Promise<void>((r) => (letGo = r));
    // Publishing into pod u-slow hangs until the test lets it go.
    const slow: PublishOs = { ...realPublishOs, mkdirp: async (p) => (p.includes('u-slow') ? held : Promise.resolve()).then(() => realPublishOs.mkdirp(p)) };
    const streaming = new Publisher(slow, podsDir);
    const heard: string[] = [];
    const syncing = streaming.sync([pod('u-slow', [vol()]), pod('u-fast', [vol({ hostPath: path.join(dir, 'vol2') })])], (r) => heard.push(r.uid));
    await vi.waitFor(() => expect(heard).toEqual(['u-fast']), { timeout: 5_000 });
    letGo();
    const r = await syncing;
    expect(heard).toEqual(['u-fast', 'u-slow']);
    expect(r.reports.map((x) => x.uid)).toEqual(['u-fast', 'u-slow']);
    await streaming.sync([]);
  });

  test('overlapping passes: a pod is published once, and a pass begun later keeps the pods it names', async () => {
    await fs.mkdir(path.join(dir, 'vol2'));
    let letGo!: () => void;
    const held = new Promise<void>((r) => (letGo = r));
    const mounts: string[] = [];
    // The first pass's pod u1 hangs in its mkdir until let go; binds are counted.
    const slow: PublishOs = {
      ...realPublishOs,
      mkdirp: async (p) => (p.includes('u1') && mounts.length === 0 ? held : Promise.resolve()).then(() => realPublishOs.mkdirp(p)),
      bindMount: async (src, target, ro) => {
        mounts.push(target);
        return realPublishOs.bindMount(src, target, ro);
      },
    };
    const overlapping = new Publisher(slow, podsDir);
    const first = overlapping.sync([pod('u1', [vol()])]);
    // Begun while the first is still publishing u1: it names u1 and a new pod u2.
    const second = overlapping.sync([pod('u1', [vol()]), pod('u2', [vol({ hostPath: path.join(dir, 'vol2') })])]);
    // The first pass sweeps left-over directories when it ends: u2's, made by the second, is not one.
    letGo();
    const [r1, r2] = await Promise.all([first, second]);
    expect(r1.errors).toEqual([]);
    expect(r2.errors).toEqual([]);
    expect(r2.reports.map((r) => [r.uid, r.volumes[0].ready]).sort()).toEqual([['u1', true], ['u2', true]]);
    expect((await fs.readdir(podsDir)).sort()).toEqual(['u1', 'u2']);
    // u1 was set up by the first pass; the second found it done (one bind or link each).
    expect(mounts.filter((m) => m.includes('/u1/')).length).toBeLessThanOrEqual(1);
    await fs.writeFile(path.join(podsDir, 'u2', 'volumes', 'data', 'x'), 'u2');
    expect(await fs.readFile(path.join(dir, 'vol2', 'x'), 'utf8')).toBe('u2');
    await overlapping.sync([]);
  });

  test('a second pass changes nothing and reports the same', async () => {
    const first = await publisher.sync([pod('u1', [vol()])]);
    const second = await publisher.sync([pod('u1', [vol()])]);
    expect(second.reports).toEqual(first.reports);
  });

  test('an unchanged published pod is not looked at on disk again until its verify interval; then an unmount behind the agent is repaired', async () => {
    let looks = 0;
    const counting: PublishOs = { ...realPublishOs, lkind: async (p) => (looks++, realPublishOs.lkind(p)) };
    const trusting = new Publisher(counting, podsDir, undefined, 60_000);
    await trusting.sync([pod('u9', [vol()])]);
    const afterFirst = looks;
    expect(afterFirst).toBeGreaterThan(0);
    const second = await trusting.sync([pod('u9', [vol()])]);
    expect(looks).toBe(afterFirst);
    expect(second.reports[0].volumes[0]).toMatchObject({ ready: true });
    // Other volumes asked for: looked at again at once.
    await trusting.sync([pod('u9', [vol({ readOnly: true })])]);
    expect(looks).toBeGreaterThan(afterFirst);
    // Verify interval 0: every pass looks, and a volume removed behind its back comes back.
    const eager = new Publisher(realPublishOs, podsDir, undefined, 0);
    await eager.sync([pod('u9', [vol()])]);
    const target = path.join(podsDir, 'u9', 'volumes', 'data');
    if (await realPublishOs.isMountPoint(target)) await realPublishOs.unmount(target);
    await realPublishOs.removeOne(target);
    const again = await eager.sync([pod('u9', [vol()])]);
    expect(again.reports[0].volumes[0]).toMatchObject({ ready: true });
    expect(await realPublishOs.lkind(target)).toBeDefined();
    await trusting.sync([]);
  });

  test('two pods share one volume at once; data survives the first pod going', async () => {
    await publisher.sync([pod('u1', [vol()]), pod('u2', [vol()])]);
    await fs.writeFile(path.join(podsDir, 'u1', 'volumes', 'data', 'a.txt'), 'A');
    expect(await fs.readFile(path.join(podsDir, 'u2', 'volumes', 'data', 'a.txt'), 'utf8')).toBe('A');
    const r = await publisher.sync([pod('u1', [vol()], true), pod('u2', [vol()])]);
    expect(r.unpublished).toEqual([{ namespace: 'apps', name: 'p-u1', uid: 'u1' }]);
    await expect(fs.lstat(path.join(podsDir, 'u1'))).rejects.toThrow(/ENOENT/);
    expect(await fs.readFile(path.join(dir, 'vol1', 'a.txt'), 'utf8')).toBe('A');
    expect(await fs.readFile(path.join(podsDir, 'u2', 'volumes', 'data', 'a.txt'), 'utf8')).toBe('A');
  });

  test('the directory of a pod that is gone is unpublished, the data stays', async () => {
    await publisher.sync([pod('u1', [vol()])]);
    await fs.writeFile(path.join(podsDir, 'u1', 'volumes', 'data', 'keep.txt'), 'k');
    const r = await publisher.sync([]);
    expect(r.errors).toEqual([]);
    expect(await fs.readdir(podsDir)).toEqual([]);
    expect(await fs.readFile(path.join(dir, 'vol1', 'keep.txt'), 'utf8')).toBe('k');
  });

  test('a volume the pod no longer names is unpublished', async () => {
    await fs.mkdir(path.join(dir, 'vol2'));
    await publisher.sync([pod('u1', [vol(), vol({ name: 'logs', hostPath: path.join(dir, 'vol2') })])]);
    await publisher.sync([pod('u1', [vol()])]);
    expect(await fs.readdir(path.join(podsDir, 'u1', 'volumes'))).toEqual(['data']);
  });
});

describe('volumes that cannot be published', () => {
  test.each([
    {
      what: 'the local path does not exist',
      v: () => vol({ hostPath: path.join(dir, 'missing') }),
      message: () => `MountVolume.NewMounter initialization failed for volume "pv-1" : path "${path.join(dir, 'missing')}" does not exist`,
    },
    {
      what: 'the claim is not bound',
      v: () => vol({ pvName: undefined, hostPath: undefined, waiting: 'persistentvolumeclaim "c1" is not bound' }),
      message: () => 'MountVolume.SetUp failed for volume "data" : persistentvolumeclaim "c1" is not bound',
    },
    {
      what: 'a Block volume whose path is a directory',
      v: () => vol({ volumeMode: 'Block' }),
      message: () => `MountVolume.SetUp failed for volume "pv-1" : path "${path.join(dir, 'vol1')}" is not a block device`,
    },
    {
      what: 'a Filesystem volume whose path is a file',
      v: () => vol({ hostPath: path.join(dir, 'file') }),
      message: () => `MountVolume.SetUp failed for volume "pv-1" : path "${path.join(dir, 'file')}" is not a directory`,
    },
    {
      what: 'a volume name that is not a DNS label',
      v: () => vol({ name: '../escape' }),
      message: () => 'MountVolume.SetUp failed for volume "pv-1" : volume name "../escape" is not a DNS label',
    },
  ])('$what', async ({ v, message }) => {
    await fs.writeFile(path.join(dir, 'file'), 'x');
    const r = await publisher.sync([pod('u1', [v()])]);
    expect(r.reports[0].volumes[0]).toEqual({ name: v().name, ready: false, message: message() });
    expect(await fs.readdir(path.join(podsDir, 'u1', 'volumes')).catch(() => [])).toEqual([]);
  });

  test('a relative local path (valid in the API, as upstream) is never resolved against the agent\'s directory', async () => {
    const r = await publisher.sync([pod('u1', [vol({ hostPath: 'node_modules' })])]);
    expect(r.reports[0].volumes[0]).toMatchObject({ ready: false, message: expect.stringContaining('path "node_modules" is not an absolute path') });
    expect(await fs.readdir(path.join(podsDir, 'u1', 'volumes')).catch(() => [])).toEqual([]);
  });

  test('a pod uid that could leave the pods directory is refused', async () => {
    const r = await publisher.sync([pod('../x', [vol()])]);
    expect(r.reports).toEqual([]);
    expect(r.errors[0]).toMatch(/unusable uid/);
  });
});

test('mountinfo targets are unescaped', () => {
  const info = '36 35 98:0 /mnt1 /mnt/with\\040space rw,noatime master:1 - ext3 /dev/root rw\n37 35 98:0 / / rw - ext4 /dev/vda rw\n';
  expect([...mountTargets(info)]).toEqual(['/mnt/with space', '/']);
});

describe('used bytes of a published volume', () => {
  test("a plain directory reports its contents' size, never its whole filesystem's usage", async () => {
    await fs.writeFile(path.join(dir, 'vol1', 'a.bin'), Buffer.alloc(1024 * 1024, 1));
    await fs.mkdir(path.join(dir, 'vol1', 'sub'));
    await fs.writeFile(path.join(dir, 'vol1', 'sub', 'b.bin'), Buffer.alloc(300 * 1024, 1));
    // Reported ready at once; the measuring runs beside the pass, its result goes with the next report.
    const first = await publisher.sync([pod('u1', [vol()])]);
    expect(first.reports[0].volumes[0]).toMatchObject({ ready: true });
    expect(first.reports[0].volumes[0].usedBytes).toBeUndefined();
    await publisher.measured();
    const r = await publisher.sync([pod('u1', [vol()])]);
    const used = BigInt(r.reports[0].volumes[0].usedBytes!);
    expect(used).toBe(await contentBytes(path.join(dir, 'vol1')));
    expect(used).toBeGreaterThanOrEqual(BigInt(1324 * 1024));
    expect(used).toBeLessThan(BigInt(2 * 1024 * 1024));
    const st = await fs.statfs(dir, { bigint: true });
    const fsUsed = (st.blocks - st.bfree) * st.bsize;
    expect(used).toBeLessThan(fsUsed);
  });

  test('a slow measurement does not hold up the report of a newly published volume', async () => {
    let letGo!: () => void;
    const held = new Promise<void>((r) => (letGo = r));
    const slow = new Publisher({ ...realPublishOs, usedBytes: async () => held.then(() => 8192n) }, podsDir);
    const r = await slow.sync([pod('u1', [vol()])]); // resolves while the measurement still hangs
    expect(r.reports[0].volumes[0]).toMatchObject({ ready: true });
    letGo();
    await slow.measured();
    expect((await slow.sync([pod('u1', [vol()])])).reports[0].volumes[0].usedBytes).toBe('8192');
    await slow.sync([]);
  });

  test('a plain directory is measured again only after the refresh interval', async () => {
    await fs.writeFile(path.join(dir, 'vol1', 'a.bin'), Buffer.alloc(64 * 1024, 1));
    await publisher.sync([pod('u1', [vol()])]);
    await publisher.measured();
    const first = (await publisher.sync([pod('u1', [vol()])])).reports[0].volumes[0].usedBytes;
    expect(first).toBeDefined();
    await fs.writeFile(path.join(dir, 'vol1', 'b.bin'), Buffer.alloc(512 * 1024, 1));
    await publisher.sync([pod('u1', [vol()])]);
    await publisher.measured();
    expect((await publisher.sync([pod('u1', [vol()])])).reports[0].volumes[0].usedBytes).toBe(first);
    const eager = new Publisher(realPublishOs, podsDir, 0);
    await eager.sync([pod('u1', [vol()])]);
    await eager.measured();
    expect(BigInt((await eager.sync([pod('u1', [vol()])])).reports[0].volumes[0].usedBytes!)).toBeGreaterThan(BigInt(first!));
  });

  test('contentBytes counts a hard-linked file once, and gives up past its budget', async () => {
    const root = path.join(dir, 'vol1');
    await fs.writeFile(path.join(root, 'one'), Buffer.alloc(256 * 1024, 1));
    const once = await contentBytes(root);
    await fs.link(path.join(root, 'one'), path.join(root, 'two'));
    expect(await contentBytes(root)).toBe(once);
    for (let i = 0; i < 20; i++) await fs.writeFile(path.join(root, `f${i}`), 'x');
    expect(await contentBytes(root, { entries: 10, ms: 10_000 })).toBeUndefined();
  });

  test("a mount point's filesystem usage is reported with the volume; a failing measurement leaves the report as it was", async () => {
    const src = path.join(dir, 'vol1');
    const measured = new Publisher({ ...realPublishOs, usedBytes: async (p) => (p === src ? 4096n : undefined) }, podsDir);
    await measured.sync([pod('u1', [vol()])]);
    await measured.measured();
    const r = await measured.sync([pod('u1', [vol()])]);
    expect(r.reports[0].volumes[0]).toMatchObject({ ready: true, usedBytes: '4096' });
    const failing = new Publisher({ ...realPublishOs, usedBytes: async () => Promise.reject(new Error('EIO')) }, podsDir);
    await failing.sync([pod('u1', [vol()])]);
    await failing.measured();
    const again = await failing.sync([pod('u1', [vol()])]);
    expect(again.reports[0].volumes[0]).toMatchObject({ ready: true });
    expect(again.reports[0].volumes[0].usedBytes).toBeUndefined();
  });
});

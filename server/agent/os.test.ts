// The fake must behave like the real OS where the agent depends on it: the same scenario
// runs against a real temporary directory and against FakeAgentOs, and both must answer
// alike (entry kinds, symlink resolution, the errors discovery turns into reasons,
// removal that keeps the root, commands and their environment).
import fs from 'node:fs/promises';
import nodeOs from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { majorMinor, realAgentOs, type AgentOs } from './os';
import { FakeAgentOs } from './os-fake';

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(nodeOs.tmpdir(), 'stowage-agent-os-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

async function realWorld(root: string): Promise<AgentOs> {
  await fs.mkdir(path.join(root, 'd/sub'), { recursive: true });
  await fs.writeFile(path.join(root, 'd/sub/f'), 'x');
  await fs.writeFile(path.join(root, 'file'), 'x');
  await fs.symlink(path.join(root, 'd'), path.join(root, 'link'));
  await fs.symlink(path.join(root, 'none'), path.join(root, 'broken'));
  await fs.symlink(path.join(root, 'loop'), path.join(root, 'loop'));
  return realAgentOs;
}

function fakeWorld(root: string): AgentOs {
  const os = new FakeAgentOs();
  os.mkdir(path.join(root, 'd/sub')).writeFile(path.join(root, 'd/sub/f'), 1n).writeFile(path.join(root, 'file'), 1n);
  os.symlink(path.join(root, 'link'), path.join(root, 'd')).symlink(path.join(root, 'broken'), path.join(root, 'none'));
  os.symlink(path.join(root, 'loop'), path.join(root, 'loop'));
  return os;
}

const code = (p: Promise<unknown>) => p.then(() => 'ok', (e: NodeJS.ErrnoException) => e.code);

async function observe(os: AgentOs, root: string) {
  const r = await fs.realpath(root).catch(() => root);
  const at = (p: string) => path.join(root, p);
  return {
    names: (await os.readdir(root)).sort(),
    kinds: Object.fromEntries(await Promise.all(['d', 'file', 'link', 'broken', 'loop'].map(async (n) => [n, (await os.lstat(at(n))).kind]))),
    followed: (await os.stat(at('link'))).kind,
    realpath: (await os.realpath(at('link'))).replace(r, '<root>'),
    brokenStat: await code(os.stat(at('broken'))),
    loopStat: await code(os.stat(at('loop'))),
    missingLstat: await code(os.lstat(at('nothing'))),
    count: await os.countContents(at('d')),
  };
}

describe('FakeAgentOs answers like the real OS', () => {
  it('entries, symlinks and errors', async () => {
    const real = await observe(await realWorld(dir), dir);
    const fake = await observe(fakeWorld('/base'), '/base');
    expect(fake).toEqual(real);
    expect(real).toMatchObject({ brokenStat: 'ENOENT', loopStat: 'ELOOP', missingLstat: 'ENOENT', followed: 'directory', count: 2 });
  });

  it('removeContents keeps the directory itself, and reports what it removed', async () => {
    for (const [os, root] of [
      [await realWorld(dir), dir],
      [fakeWorld('/base'), '/base'],
    ] as const) {
      let total = -1;
      let removed = 0;
      const n = await os.removeContents(path.join(root, 'd'), { total: (t) => (total = t), removed: (k) => (removed += k) });
      expect([n, total, removed]).toEqual([2, 2, 2]);
      expect(await os.readdir(path.join(root, 'd'))).toEqual([]);
      // The symlink to d still resolves: d itself is still there.
      expect((await os.stat(path.join(root, 'link'))).kind).toBe('directory');
    }
  });

  it('commands get their environment and report their exit code', async () => {
    const fake = new FakeAgentOs().onCommand('sh', (_argv, env, out) => {
      out(env.LOCAL_PV_BLKDEVICE);
      return 3;
    });
    for (const os of [realAgentOs, fake]) {
      let out = '';
      const r = await os.run(['sh', '-c', 'echo "$LOCAL_PV_BLKDEVICE"; exit 3'], { env: { LOCAL_PV_BLKDEVICE: '/dev/loop9' }, onOutput: (c) => (out += c) });
      expect([r.exitCode, out]).toEqual([3, '/dev/loop9\n']);
      await expect(os.run(['/nonexistent/command'])).rejects.toThrow('cannot run /nonexistent/command');
    }
  });
});

describe('watch', () => {
  async function until(cond: () => boolean, what: string) {
    const end = Date.now() + 10_000;
    while (!cond()) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  it('the real OS reports a new and a removed entry, and stops when told', async () => {
    let events = 0;
    const stop = realAgentOs.watch(dir, () => events++);
    await fs.mkdir(path.join(dir, 'new-disk'));
    await until(() => events > 0, 'an event for the new entry');
    const seen = events;
    await fs.rmdir(path.join(dir, 'new-disk'));
    await until(() => events > seen, 'an event for the removed entry');
    stop();
    expect(realAgentOs.watch(path.join(dir, 'missing'), () => {})).toBeTypeOf('function');
  });

  it('the fake reports entries of the watched directory only', () => {
    const os = new FakeAgentOs().mkdir('/disks');
    let events = 0;
    const stop = os.watch('/disks', () => events++);
    os.mkdir('/disks/a');
    os.mkdir('/elsewhere');
    os.symlink('/disks/b', '/dev/null');
    os.remove('/disks/a');
    expect(events).toBe(3);
    stop();
    os.mkdir('/disks/c');
    expect(events).toBe(3);
  });
});

describe('majorMinor', () => {
  it.each([
    { rdev: 0x0700n, mm: '7:0' },
    { rdev: 0x0703n, mm: '7:3' },
    { rdev: 0x0810n, mm: '8:16' },
    { rdev: 0x10305n, mm: '259:5' },
    { rdev: 0x100800n, mm: '8:256' },
  ])('$rdev -> $mm', ({ rdev, mm }) => {
    expect(majorMinor(rdev)).toBe(mm);
  });
});

import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { writePrivateFile, writePrivateStream } from './private-file';

const dir = mkdtempSync(path.join(os.tmpdir(), 'stowage-private-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const modeOf = (f: string) => statSync(f).mode & 0o777;

describe('writePrivateFile', () => {
  test.each([
    { scene: 'no file yet', before: (_f: string) => {} },
    { scene: 'an existing file of mode 0644 (its mode is not kept)', before: (f: string) => writeFileSync(f, 'old', { mode: 0o644 }) },
    { scene: 'an existing file of mode 0666', before: (f: string) => writeFileSync(f, 'old', { mode: 0o666 }) },
  ])('$scene: a new 0600 file with the content', async ({ before }) => {
    const f = path.join(dir, `f-${Math.random().toString(36).slice(2)}`);
    before(f);
    await writePrivateFile(f, 'secret\n');
    expect(readFileSync(f, 'utf8')).toBe('secret\n');
    expect(modeOf(f)).toBe(0o600);
  });

  test('a symlink at the target is replaced, not followed', async () => {
    const victim = path.join(dir, 'victim');
    writeFileSync(victim, 'untouched', { mode: 0o644 });
    const link = path.join(dir, 'link');
    symlinkSync(victim, link);
    await writePrivateFile(link, 'secret\n');
    expect(lstatSync(link).isSymbolicLink()).toBe(false);
    expect(modeOf(link)).toBe(0o600);
    expect(readFileSync(link, 'utf8')).toBe('secret\n');
    expect(readFileSync(victim, 'utf8')).toBe('untouched');
    expect(modeOf(victim)).toBe(0o644);
  });

  test('a failed write leaves the target as it was and no temporary file', async () => {
    const sub = mkdtempSync(path.join(dir, 'fail-'));
    const f = path.join(sub, 'out');
    writeFileSync(f, 'old', { mode: 0o600 });
    await expect(
      writePrivateStream(f, async (out) => {
        out.write('partial');
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(readFileSync(f, 'utf8')).toBe('old');
    expect(readdirSync(sub)).toEqual(['out']);
  });

  test.each([
    { scene: 'its directory does not exist', target: (sub: string) => path.join(sub, 'missing', 'out'), want: /^cannot write .*\/missing\/out: the directory .*\/missing does not exist$/ },
    { scene: 'its directory is a file', target: (sub: string) => (writeFileSync(path.join(sub, 'file'), ''), path.join(sub, 'file', 'out')), want: /^cannot write .*: .*\/file is not a directory$/ },
    { scene: 'it is a directory', target: (sub: string) => (mkdirSync(path.join(sub, 'dir')), path.join(sub, 'dir')), want: /^cannot write .*\/dir: .*\/dir is a directory$/ },
  ])('a target where $scene: an error that says so, and no temporary file', async ({ target, want }) => {
    const sub = mkdtempSync(path.join(dir, 'bad-'));
    const f = target(sub);
    const before = readdirSync(sub).sort();
    await expect(writePrivateStream(f, async (out) => void out.write('x'))).rejects.toThrow(want);
    expect(readdirSync(sub).sort()).toEqual(before);
  });

  test('a stream the writer leaves open is ended and renamed', async () => {
    const f = path.join(dir, 'stream');
    const n = await writePrivateStream(f, async (out) => {
      out.write('a\nb\n');
      return 2;
    });
    expect(n).toBe(2);
    expect(readFileSync(f, 'utf8')).toBe('a\nb\n');
    expect(modeOf(f)).toBe(0o600);
  });
});

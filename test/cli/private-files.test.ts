// `stowage node add -o FILE` and `stowage kubeconfig -o FILE` as real processes: the file
// they write is a new one of mode 0600, whatever was at FILE before (a file of a looser
// mode, a symlink to somewhere else), as `stowage backup` writes its file.
import { execFile } from 'node:child_process';
import { lstatSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { UserService } from '../../server/services/users';
import { openTestStore, type TestStore } from '../db';

const dir = mkdtempSync(path.join(os.tmpdir(), 'stowage-private-files-'));
let ts: TestStore;

function stowage(args: string[]): Promise<{ code: number; out: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: ts.url, STOWAGE_DATA_DIR: path.join(dir, 'data') };
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/stowage.mjs', ...args], { env, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr });
    });
  });
}

beforeAll(async () => {
  ts = await openTestStore();
  await new UserService(ts.store).create({ name: 'admin', role: 'admin' });
});
afterAll(async () => {
  await ts?.close();
  rmSync(dir, { recursive: true, force: true });
});

const scenes = [
  { scene: 'an existing file of mode 0644', prepare: (f: string) => writeFileSync(f, 'old\n', { mode: 0o644 }) },
  {
    scene: 'a symlink to another file',
    prepare: (f: string) => {
      writeFileSync(`${f}.victim`, 'untouched\n', { mode: 0o644 });
      symlinkSync(`${f}.victim`, f);
    },
  },
];

const commands = [
  { command: 'node add', args: (f: string, i: number) => ['node', 'add', `node-${i}`, '-o', f], check: (text: string) => expect(text).toMatch(/^swn_\S+\n$/) },
  { command: 'kubeconfig', args: (f: string) => ['kubeconfig', 'admin', '-o', f], check: (text: string) => expect(parse(text).kind).toBe('Config') },
];

describe.each(commands)('stowage $command -o FILE', ({ command, args, check }) => {
  test.each(scenes)('over $scene: a new 0600 file, nothing else touched', async ({ scene, prepare }) => {
    const f = path.join(dir, `${command.replace(' ', '-')}-${scenes.findIndex((s) => s.scene === scene)}`);
    prepare(f);
    const r = await stowage(args(f, scenes.findIndex((s) => s.scene === scene)));
    expect(r.code, r.out).toBe(0);
    expect(lstatSync(f).isSymbolicLink()).toBe(false);
    expect(statSync(f).mode & 0o777).toBe(0o600);
    check(readFileSync(f, 'utf8'));
    if (scene.startsWith('a symlink')) {
      expect(readFileSync(`${f}.victim`, 'utf8')).toBe('untouched\n');
      expect(statSync(`${f}.victim`).mode & 0o777).toBe(0o644);
    }
  });
});

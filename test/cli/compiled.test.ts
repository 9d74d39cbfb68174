// The compiled CLI (scripts/build-server.mjs -> dist/stowage.mjs) runs without a
// TypeScript compiler: the child processes here cannot load tsx or esbuild at all (a
// module hook refuses them), and `stowage` still answers, from the compiled build. When a
// source file differs from the one the build was made from, `stowage` compiles again first.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, expect, inject, test } from 'vitest';
import { ensureDatabase } from '../../server/store/database';

const root = path.resolve(import.meta.dirname, '..', '..');
const hooksDir = mkdtempSync(path.join(os.tmpdir(), 'stowage-no-compiler-'));
const noCompiler = path.join(hooksDir, 'register.mjs');

function node(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  writeFileSync(
    path.join(hooksDir, 'hooks.mjs'),
    `export async function resolve(specifier, context, next) {
  if (/^(tsx|esbuild)(\\/|$)/.test(specifier)) throw new Error('no compiler here: ' + specifier);
  const r = await next(specifier, context);
  if (/\\/node_modules\\/(tsx|esbuild)\\//.test(r.url)) throw new Error('no compiler here: ' + r.url);
  return r;
}
`,
  );
  writeFileSync(noCompiler, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(path.join(hooksDir, 'hooks.mjs')).href)});\n`);
  const build = await node(['scripts/build-server.mjs']);
  expect(build.stderr).toBe('');
  expect(build.stdout).toMatch(/^Compiled \d+ files to dist\/stowage\.mjs/);
}, 120_000);
afterAll(() => rmSync(hooksDir, { recursive: true, force: true }));

test('the compiled CLI answers --help and version with no compiler loadable', async () => {
  const help = await node(['--import', noCompiler, 'dist/stowage.mjs', '--help']);
  expect(help).toMatchObject({ code: 0, stderr: '' });
  expect(help.stdout).toMatch(/^Usage: stowage /);
  expect(help.stdout).toMatch(/\n {2}start /);

  const version = await node(['--import', noCompiler, 'bin/stowage.mjs', 'version']);
  expect(version).toMatchObject({ code: 0, stderr: '' });
  expect(version.stdout).toMatch(/^stowage \d+\.\d+\.\d+ \(compiled JavaScript; Node\.js v\d+/);
});

test('the compiled CLI migrates an empty database and adds and lists users in it', async () => {
  const url = await ensureDatabase(inject('pgBaseUrl'), `t_compiled_${randomBytes(6).toString('hex')}`);
  const env = { DATABASE_URL: url, STOWAGE_DATA_DIR: path.join(hooksDir, 'data') };
  const migrate = await node(['--import', noCompiler, 'bin/stowage.mjs', 'migrate'], env);
  expect(migrate).toMatchObject({ code: 0, stderr: '' });
  expect(migrate.stdout).toMatch(/^Applied: \d+_init, /);
  const add = await node(['--import', noCompiler, 'bin/stowage.mjs', 'user', 'add', 'ops', '--role', 'viewer'], env);
  expect(add).toMatchObject({ code: 0, stderr: '' });
  expect(add.stdout).toMatch(/^User ops \(viewer\) created\.\nPassword: \S+/);
  const list = await node(['--import', noCompiler, 'bin/stowage.mjs', 'user', 'list'], env);
  expect(list).toMatchObject({ code: 0, stdout: 'ops\tviewer\t\n', stderr: '' });
}, 120_000);

test('the guard is real: the sources through tsx cannot run under it', async () => {
  const r = await node(['--import', noCompiler, 'bin/stowage.mjs', 'version'], { STOWAGE_FROM_SOURCES: '1' });
  expect(r.code).not.toBe(0);
  expect(r.stderr).toContain('no compiler here: tsx');
});

test('a source file that differs from the build makes `stowage` compile again first', async () => {
  const infoFile = path.join(root, 'dist', 'build-info.json');
  const info = JSON.parse(readFileSync(infoFile, 'utf8')) as { inputs: Record<string, { sha256: string; size: number; mtimeMs: number }> };
  const main = info.inputs['server/cli/main.ts'];
  expect(main).toBeDefined();
  info.inputs['server/cli/main.ts'] = { ...main, sha256: '0'.repeat(64), mtimeMs: 0 };
  writeFileSync(infoFile, JSON.stringify(info));

  const r = await node(['bin/stowage.mjs', 'version']);
  expect(r.code).toBe(0);
  expect(r.stderr).toContain('Compiling the server');
  expect(r.stdout).toMatch(/compiled JavaScript/);
  const again = await node(['--import', noCompiler, 'bin/stowage.mjs', 'version']);
  expect(again).toMatchObject({ code: 0, stderr: '' });
}, 120_000);

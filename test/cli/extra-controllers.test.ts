// A real `stowage controllers` joining a running instance's database through its
// runtime.json, then stopped with SIGTERM: the main instance's file must survive.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { runtimeFilePath, writeRuntimeFile } from '../../server/cli/runtime-file';
import { createTestDatabase } from '../db';

const dir = mkdtempSync(path.join(os.tmpdir(), 'stowage-extra-controllers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('stopping an extra controllers process leaves the main instance its runtime.json', async () => {
  const databaseUrl = await createTestDatabase();
  const file = runtimeFilePath(dir);
  // This test process plays the main instance: alive, and the writer of the file.
  writeRuntimeFile(file, { pid: process.pid, databaseUrl, url: 'http://127.0.0.1:1' });
  const before = readFileSync(file, 'utf8');

  const env: NodeJS.ProcessEnv = { ...process.env, STOWAGE_DATA_DIR: dir, LOG_LEVEL: 'warn', STOWAGE_HEALTH_PORT: '0' };
  delete env.DATABASE_URL;
  const child = spawn(process.execPath, ['bin/stowage.mjs', 'controllers'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));

  const deadline = Date.now() + 60_000;
  while (!out.includes('Controllers running')) {
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill('SIGKILL');
      throw new Error(`controllers did not start: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  // It joined the recorded database rather than starting one of its own.
  expect(out).toContain(new URL(databaseUrl).pathname);
  // ... and says so, instead of claiming to start one.
  expect(out).toContain(`Joining the embedded Postgres of the Stowage running on ${dir} (pid ${process.pid})`);
  expect(out).not.toContain('Starting embedded Postgres');
  child.kill('SIGTERM');
  expect(await exited).toBe(0);
  expect(readFileSync(file, 'utf8')).toBe(before);
});

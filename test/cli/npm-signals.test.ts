// Supervisors (systemd, a container runtime, a terminal's Ctrl-C sent to one pid) signal
// the main process: under `npm start` that is npm's own pid. npm forwards SIGINT and
// SIGTERM to its script's process, which must therefore be Stowage itself, not a shell
// waiting for it (`exec` in package.json), and Stowage stops cleanly on either.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTestDatabase } from '../db';

const root = path.resolve(import.meta.dirname, '..', '..');

describe('signals through npm', () => {
  it('the long-running npm scripts exec Stowage (no shell between npm and it)', () => {
    const scripts = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).scripts as Record<string, string>;
    expect(scripts.start).toMatch(/^exec node bin\/stowage\.mjs start$/);
    expect(scripts.stowage).toMatch(/^exec node bin\/stowage\.mjs$/);
  });

  it.each(['SIGINT', 'SIGTERM'] as const)('%s to npm\'s own pid stops `npm run stowage -- controllers`', async (signal) => {
    const databaseUrl = await createTestDatabase();
    const npm = spawn('npm', ['run', '-s', 'stowage', '--', 'controllers'], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: databaseUrl, STOWAGE_LOG_LEVEL: 'warn', NODE_ENV: 'production', STOWAGE_HEALTH_PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // a process group of its own, so nothing of it can outlive the test
    });
    let out = '';
    npm.stdout.on('data', (d) => (out += d));
    npm.stderr.on('data', (d) => (out += d));
    try {
      const deadline = Date.now() + 90_000;
      while (!/Controllers running/.test(out)) {
        if (Date.now() > deadline || npm.exitCode !== null) throw new Error(`controllers did not start: ${out}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      npm.kill(signal);
      const code = await new Promise<number | null>((resolve) => {
        const t = setTimeout(() => resolve(-1), 30_000);
        npm.once('exit', (c) => {
          clearTimeout(t);
          resolve(c);
        });
      });
      expect(out).toContain(`${signal}: stopping Stowage`);
      expect(out).toContain('Stopped.');
      expect(code).not.toBe(-1);
    } finally {
      try {
        process.kill(-npm.pid!, 'SIGKILL');
      } catch {
        // the whole group is gone already
      }
    }
  }, 150_000);

  it('SIGTERM to npx stops `npx stowage controllers` (its `sh -c` does not pass the signal on)', async () => {
    const databaseUrl = await createTestDatabase();
    const npx = spawn('npx', ['stowage', 'controllers'], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: databaseUrl, STOWAGE_LOG_LEVEL: 'warn', NODE_ENV: 'production' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    npx.stdout.on('data', (d) => (out += d));
    npx.stderr.on('data', (d) => (out += d));
    // Fires when npx has exited and every process holding its pipes (Stowage) is gone too.
    const closed = new Promise<void>((resolve) => npx.once('close', () => resolve()));
    try {
      const deadline = Date.now() + 90_000;
      while (!/Controllers running/.test(out)) {
        if (Date.now() > deadline || npx.exitCode !== null) throw new Error(`controllers did not start: ${out}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      npx.kill('SIGTERM');
      const ended = await Promise.race([closed.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 30_000))]);
      expect(ended, out).toBe(true);
      expect(out).toContain('npx exited: stopping Stowage');
      expect(out.trim().split('\n').at(-1)).toBe('Stopped.');
    } finally {
      try {
        process.kill(-npx.pid!, 'SIGKILL');
      } catch {
        // the whole group is gone already
      }
    }
  }, 150_000);
});

// `kill -9` of the process that started the embedded Postgres leaves the postmaster
// running, orphaned. The next start on the same data dir must come up by itself (stopping
// the orphan), while a start beside a live owner is still refused.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres, type EmbeddedServer } from '../../server/store/database';
import { waitFor } from '../controllers/fixtures';
import { firstLine, kill9, running, startScript } from './crash/children';

const dir = mkdtempSync(path.join(os.tmpdir(), 'stowage-crash-pg-'));
const pidFile = path.join(dir, 'postgres', 'postmaster.pid');
const postmasterPid = () => Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
let child: ChildProcess | undefined;
let server: EmbeddedServer | undefined;

afterAll(async () => {
  if (child) await kill9(child);
  await server?.stop();
  // Whatever failed above, no postmaster of this test may outlive it.
  try {
    const pid = postmasterPid();
    if (running(pid)) {
      process.kill(pid, 'SIGINT');
      await waitFor('the leftover postmaster to stop', async () => !running(pid), 30_000);
    }
  } catch {
    // no pid file: nothing runs
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('embedded Postgres after kill -9 of its Stowage', () => {
  it('is refused beside a live owner, and comes back by itself after the owner is killed', async () => {
    child = startScript('hold-postgres.ts', [dir]);
    await firstLine<{ baseUrl: string }>(child, 90_000);
    const orphan = postmasterPid();

    await expect(startEmbeddedPostgres(dir)).rejects.toThrow(/already running \(pid \d+\) for a Stowage that is still running/);
    expect(running(orphan)).toBe(true);

    await kill9(child);
    child = undefined;
    expect(running(orphan)).toBe(true); // orphaned, not gone: this is the case to recover from

    const said: string[] = [];
    const t0 = performance.now();
    server = await startEmbeddedPostgres(dir, { log: (m) => said.push(m) });
    const seconds = (performance.now() - t0) / 1000;
    console.log(`embedded Postgres back ${seconds.toFixed(1)} s after kill -9 of its owner (orphan stopped, new postmaster started)`);

    expect(running(orphan)).toBe(false);
    expect(postmasterPid()).not.toBe(orphan);
    expect(said.join('\n')).toMatch(/left running by a Stowage that is gone; stopping it/);
    const c = new pg.Client({ connectionString: `${server.baseUrl}/postgres` });
    await c.connect();
    try {
      expect((await c.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await c.end();
    }
  }, 180_000);
});

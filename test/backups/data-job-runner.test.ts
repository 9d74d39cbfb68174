// The agent's data job runner over the real agent API, with a real filesystem mover
// stand-in: a backup job copies a tree into the target, a restore job copies it back,
// progress reaches the server while a job runs, a damaged backup fails for good with the
// chunk named, and a runner that dies mid-job (kill -9: it never speaks again) loses the
// job to another instance once the lease runs out, which runs it to the end. An agent with a
// poolRoot finds volume paths under it, target paths as given.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentHttpClient, type AgentApi, type DataJobApi } from '../../server/agent/agent-client';
import { DataJobRunner } from '../../server/agent/data-job-runner';
import { TargetProber } from '../../server/agent/target-prober';
import type { BackupOrigin } from '../../server/contracts/data-jobs';
import { logger } from '../../server/services/logger';
import { DataJobStore } from '../../server/store/data-jobs';
import { TargetReports } from '../../server/store/target-reports';
import { waitFor } from '../controllers/fixtures';
import { openLocalHarness, type LocalHarness } from '../local-volumes/harness';
import { copyMover } from './copy-mover';

let h: LocalHarness;
let api: AgentApi & DataJobApi;
let jobs: DataJobStore;
let dir: string;
const runners: DataJobRunner[] = [];

const origin: BackupOrigin = { namespace: 'default', claimName: 'data', volumeBackupName: 'vb', sizeBytes: '1048576', installation: 'test' };

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'data-job-runner-'));
  await fs.mkdir(path.join(dir, 'target'));
  h = await openLocalHarness({ agent: { leaseMs: 1_500, backupTargets: async () => [{ name: 'nfs', path: path.join(dir, 'target') }] } });
  api = agentHttpClient({ server: h.api.url, token: await h.tokenFor('node-a'), caPem: h.api.caPem });
  jobs = new DataJobStore(h.app.store);
});
afterAll(async () => {
  await Promise.all(runners.map((r) => r.stop()));
  await h?.close();
  await fs.rm(dir, { recursive: true, force: true });
});

function runner(instance: string, mover = copyMover(), a: DataJobApi = api): DataJobRunner {
  const r = new DataJobRunner({ api: a, mover, node: 'node-a', instance, log: logger.child({ test: instance }), claimMs: 100, progressIntervalMs: 200, reportRetryMs: 100 });
  runners.push(r);
  r.start();
  return r;
}

async function tree(root: string, files: Record<string, string>): Promise<void> {
  for (const [f, text] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(root, f)), { recursive: true });
    await fs.writeFile(path.join(root, f), text);
  }
}

const settled = (key: string) => waitFor(`${key} settled`, async () => {
  const j = await jobs.get(key);
  return j && (j.state === 'succeeded' || j.state === 'failed') ? j : undefined;
});

describe('data job runner', () => {
  it('backs a tree up and restores it, reporting progress while it runs', async () => {
    const src = path.join(dir, 'src');
    await tree(src, { 'a.txt': 'alpha', 'sub/b.txt': 'beta'.repeat(1000) });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    runner('agent-1', copyMover({ hold: () => gate }));
    await jobs.ensure('backup/b1', 'node-a', { kind: 'backup', backupId: 'b1', targetPath: path.join(dir, 'target'), format: 'files', sourcePath: src, origin });
    // Held before its first file: the server hears the totals while it runs.
    const running = await waitFor('progress of backup/b1', async () => {
      const j = await jobs.get('backup/b1');
      return j?.state === 'running' && j.progress?.totalBytes === '4005' ? j : undefined;
    });
    expect(running.progress?.doneBytes).toBe('0');
    release();
    const b = await settled('backup/b1');
    expect(b.state).toBe('succeeded');
    expect(b.result).toMatchObject({ ok: true, totalBytes: '4005', newBytes: '4005' });

    const dest = path.join(dir, 'dest');
    await fs.mkdir(dest);
    await jobs.ensure('restore/pv-1', 'node-a', { kind: 'restore', backupId: 'b1', targetPath: path.join(dir, 'target'), format: 'files', destinationPath: dest });
    expect((await settled('restore/pv-1')).state).toBe('succeeded');
    expect(await fs.readFile(path.join(dest, 'sub/b.txt'), 'utf8')).toBe('beta'.repeat(1000));
    expect(await fs.readFile(path.join(dest, 'a.txt'), 'utf8')).toBe('alpha');
  });

  it('a damaged backup fails the restore for good, naming the chunk; a missing one too', async () => {
    await fs.writeFile(path.join(dir, 'target/copy-backups/b1/data/a.txt'), 'tampered');
    const dest = path.join(dir, 'dest-2');
    await fs.mkdir(dest);
    await jobs.ensure('restore/pv-2', 'node-a', { kind: 'restore', backupId: 'b1', targetPath: path.join(dir, 'target'), format: 'files', destinationPath: dest });
    const j = await settled('restore/pv-2');
    expect(j.state).toBe('failed');
    expect(j.attempt).toBe(1);
    expect(j.result).toMatchObject({ ok: false, retryable: false, damagedChunk: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect((j.result as { error: string }).error).toContain('backup b1');

    await jobs.ensure('restore/pv-3', 'node-a', { kind: 'restore', backupId: 'gone', targetPath: path.join(dir, 'target'), format: 'files', destinationPath: dest });
    expect(await settled('restore/pv-3')).toMatchObject({ state: 'failed', result: { ok: false, retryable: false } });
  });

  it('a runner killed mid-job loses it when its lease runs out; another instance runs it to the end', async () => {
    await Promise.all(runners.splice(0).map((r) => r.stop()));
    const src = path.join(dir, 'src-kill');
    await tree(src, { 'x.bin': 'x'.repeat(100_000) });
    // The doomed instance: its job never ends, and at "kill -9" it stops speaking at once.
    let dead = false;
    const cut = <T extends unknown[], R>(f: (...a: T) => Promise<R>) => (...a: T): Promise<R> => (dead ? Promise.reject(new Error('the process is gone')) : f(...a));
    let reap!: () => void;
    const doomedGate = new Promise<void>((r) => (reap = r));
    const doomedApi: DataJobApi = {
      claimDataJobs: cut(api.claimDataJobs),
      dataJobProgress: cut(api.dataJobProgress),
      dataJobResult: cut(api.dataJobResult),
      backupTargets: cut(api.backupTargets),
      reportBackupTargets: cut(api.reportBackupTargets),
    };
    const doomed = runner('doomed', copyMover({ hold: () => doomedGate }), doomedApi);
    await jobs.ensure('backup/b2', 'node-a', { kind: 'backup', backupId: 'b2', targetPath: path.join(dir, 'target'), format: 'files', sourcePath: src, origin });
    await waitFor('doomed runs backup/b2', async () => (await jobs.get('backup/b2'))?.state === 'running');
    dead = true;
    const heir = runner('heir');
    const j = await settled('backup/b2');
    expect(j.state).toBe('succeeded');
    expect(j.attempt).toBe(2);
    expect(heir.runningJobs()).toEqual([]);
    expect((await fs.readFile(path.join(dir, 'target/copy-backups/b2/data/x.bin'))).length).toBe(100_000);
    // The corpse's job ends (its mover returns) without changing what the heir settled.
    const stopped = doomed.stop();
    reap();
    await stopped;
    expect(await jobs.get('backup/b2')).toMatchObject({ state: 'succeeded', attempt: 2 });
  });
});

describe('target prober', () => {
  it('reports each target with its backups and figures, and an unreachable one with a reason', async () => {
    const prober = new TargetProber({ api, mover: copyMover(), node: 'node-a', log: logger });
    expect(await prober.tick()).toBe(true);
    // Nothing changed and no report is due yet: no new report.
    expect(await prober.tick()).toBe(false);
    const rows = await new TargetReports(h.app.store).list();
    expect(rows).toHaveLength(1);
    expect(rows[0].report).toMatchObject({ name: 'nfs', reachable: true, writable: true });
    expect(rows[0].report.backups.map((b) => b.backupId).sort()).toEqual(['b1', 'b2']);
    const missing = await import('../../server/agent/target-prober').then((m) => m.lookAtTarget(copyMover(), { name: 'gone', path: path.join(dir, 'nowhere') }));
    expect(missing.reachable).toBe(false);
    expect(missing.reason).toMatch(/ENOENT|no such file/);
  });

  it('an agent with a poolRoot reads and writes volume paths under it; the target path stays as given', async () => {
    await Promise.all(runners.splice(0).map((r) => r.stop()));
    const root = path.join(dir, 'host-root');
    await tree(path.join(root, 'pools/fast/pv-9'), { 'in-pool.txt': 'seen under the root' });
    const r = new DataJobRunner({ api, mover: copyMover(), node: 'node-a', instance: 'agent-root', log: logger.child({ test: 'root' }), claimMs: 100, progressIntervalMs: 200, poolRoot: root });
    runners.push(r);
    r.start();
    await jobs.ensure('backup/b9', 'node-a', { kind: 'backup', backupId: 'b9', targetPath: path.join(dir, 'target'), format: 'files', sourcePath: '/pools/fast/pv-9', origin });
    expect(await settled('backup/b9')).toMatchObject({ state: 'succeeded', result: { ok: true, totalBytes: '19' } });
    await fs.mkdir(path.join(root, 'pools/fast/pv-10'));
    await jobs.ensure('restore/pv-10', 'node-a', { kind: 'restore', backupId: 'b9', targetPath: path.join(dir, 'target'), format: 'files', destinationPath: '/pools/fast/pv-10' });
    expect((await settled('restore/pv-10')).state).toBe('succeeded');
    expect(await fs.readFile(path.join(root, 'pools/fast/pv-10/in-pool.txt'), 'utf8')).toBe('seen under the root');
  });
});

// The data jobs and backup targets part of the agent API, through the real HTTPS server
// with node tokens: a node claims, reports progress and results of its own node's jobs
// only (another node: 403), keys travel URL-encoded as one segment, bad bodies are 400,
// sizes are bounded, and target reports land in backup_target_reports.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentHttpClient, AgentHttpError, type AgentApi, type DataJobApi } from '../../server/agent/agent-client';
import type { TargetReport } from '../../server/contracts/data-jobs';
import { DataJobStore } from '../../server/store/data-jobs';
import { TargetReports } from '../../server/store/target-reports';
import { openLocalHarness, type LocalHarness } from '../local-volumes/harness';

let h: LocalHarness;
let asA: AgentApi & DataJobApi;
let jobs: DataJobStore;

beforeAll(async () => {
  h = await openLocalHarness({ agent: { backupTargets: async () => [{ name: 'nfs', path: '/mnt/backups' }] } });
  asA = agentHttpClient({ server: h.api.url, token: await h.tokenFor('node-a'), caPem: h.api.caPem });
  jobs = new DataJobStore(h.app.store);
  await jobs.ensure('restore/pv-a', 'node-a', { kind: 'restore', backupId: 'b1', targetPath: '/mnt/backups', format: 'files', destinationPath: '/v/a' });
  await jobs.ensure('restore/pv-b', 'node-b', { kind: 'restore', backupId: 'b1', targetPath: '/mnt/backups', format: 'files', destinationPath: '/v/b' });
});
afterAll(async () => {
  await h?.close();
});

async function status(p: Promise<unknown>): Promise<number> {
  try {
    await p;
    return 200;
  } catch (e) {
    if (e instanceof AgentHttpError) return e.status;
    throw e;
  }
}

const report = (name: string, backups = 0): TargetReport => ({
  name,
  path: '/mnt/backups',
  reachable: true,
  writable: true,
  freeBytes: '100',
  totalBytes: '200',
  backups: Array.from({ length: backups }, (_, i) => ({
    backupId: `b-${i}`,
    origin: { namespace: 'default', claimName: 'data', volumeBackupName: `vb-${i}`, sizeBytes: '1024', installation: 'x' },
    format: 'files' as const,
    totalBytes: '1024',
    createdAt: '2026-11-28T15:00:00Z',
    completedAt: '2026-11-28T15:00:01Z',
  })),
});

describe('data jobs over the agent API', () => {
  it('claims its own node’s job only, reports progress and the result under the URL-encoded key', async () => {
    const c = await asA.claimDataJobs('node-a', { instance: 'agent-1', running: [], max: 4 });
    expect(c.jobs.map((j) => j.key)).toEqual(['restore/pv-a']);
    expect(c.jobs[0].attempt).toBe(1);
    expect(await asA.dataJobProgress('node-a', 'restore/pv-a', { instance: 'agent-1', progress: { doneBytes: '5', totalBytes: '10' } })).toEqual({ cancel: false });
    expect((await jobs.get('restore/pv-a'))?.progress).toEqual({ doneBytes: '5', totalBytes: '10' });
    // Another instance of the same node holds nothing: told to stop, its result is not taken.
    expect(await asA.dataJobProgress('node-a', 'restore/pv-a', { instance: 'agent-2', progress: { doneBytes: '5', totalBytes: '10' } })).toEqual({ cancel: true });
    expect(await asA.dataJobResult('node-a', 'restore/pv-a', { instance: 'agent-2', result: { ok: true, doneBytes: '10', totalBytes: '10' } })).toEqual({ accepted: false });
    expect(await asA.dataJobResult('node-a', 'restore/pv-a', { instance: 'agent-1', result: { ok: true, doneBytes: '10', totalBytes: '10' } })).toEqual({ accepted: true, state: 'succeeded' });
    expect((await jobs.get('restore/pv-a'))?.state).toBe('succeeded');
  });

  it.each([
    ['claim node-b’s jobs', () => asA.claimDataJobs('node-b', { instance: 'agent-1', running: [], max: 4 }), 403],
    ['report progress of node-b’s job', () => asA.dataJobProgress('node-b', 'restore/pv-b', { instance: 'agent-1', progress: { doneBytes: '1', totalBytes: '2' } }), 403],
    ['report a result of node-b’s job', () => asA.dataJobResult('node-b', 'restore/pv-b', { instance: 'agent-1', result: { ok: true, doneBytes: '1', totalBytes: '1' } }), 403],
    ['read node-b’s targets', () => asA.backupTargets('node-b'), 403],
    ['report node-b’s targets', () => asA.reportBackupTargets('node-b', [report('nfs')]), 403],
    ['claim with a bad instance', () => asA.claimDataJobs('node-a', { instance: '../x', running: [], max: 4 }), 400],
    ['claim too many at once', () => asA.claimDataJobs('node-a', { instance: 'agent-1', running: [], max: 1000 }), 400],
    ['report progress that is no number', () => asA.dataJobProgress('node-a', 'restore/pv-a', { instance: 'agent-1', progress: { doneBytes: '-1', totalBytes: 'x' } }), 400],
    ['report a result without ok', () => asA.dataJobResult('node-a', 'restore/pv-a', { instance: 'agent-1', result: { error: 'x' } as never }), 400],
    ['report progress under a key that is no key', () => asA.dataJobProgress('node-a', 'not a key', { instance: 'agent-1', progress: { doneBytes: '1', totalBytes: '2' } }), 404],
    ['report a target twice', () => asA.reportBackupTargets('node-a', [report('nfs'), report('nfs')]), 400],
    ['report a relative target path', () => asA.reportBackupTargets('node-a', [{ ...report('nfs'), path: 'mnt' }]), 400],
    ['report more than 10,000 backups of a target', () => asA.reportBackupTargets('node-a', [report('nfs', 10_001)]), 400],
  ])('may not %s', async (_what, call, want) => {
    expect(await status(call())).toBe(want);
  });

  it('node-b’s job is untouched by node-a', async () => {
    const b = await jobs.get('restore/pv-b');
    expect(b?.state).toBe('queued');
    expect(b?.attempt).toBe(0);
  });

  it('lists the targets and keeps the node’s report', async () => {
    expect(await asA.backupTargets('node-a')).toEqual({ targets: [{ name: 'nfs', path: '/mnt/backups' }] });
    expect(await asA.reportBackupTargets('node-a', [report('nfs', 3)])).toEqual({ accepted: 1 });
    const rows = await new TargetReports(h.app.store).list();
    expect(rows.map((r) => [r.node, r.report.name, r.report.backups.length])).toEqual([['node-a', 'nfs', 3]]);
  });
});

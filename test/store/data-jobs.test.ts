// Data jobs on the suite's Postgres: ensure is idempotent, a claim leases a job to one
// instance, an expired lease hands it to another, progress renews the lease and tells a
// stale holder to stop, results settle the job, a retryable failure comes back after its
// backoff, and retry() queues a failed job again. Target reports: one row per node and
// target, replaced by each report.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DataJobSpec, TargetReport } from '../../server/contracts/data-jobs';
import { DataJobStore, dataJobBackoffMs } from '../../server/store/data-jobs';
import { TargetReports } from '../../server/store/target-reports';
import { openTestStore, rawQuery, type TestStore } from '../db';

let t: TestStore;
let jobs: DataJobStore;

beforeAll(async () => {
  t = await openTestStore();
  jobs = new DataJobStore(t.store, { maxAttempts: 2, baseMs: 1, maxMs: 1 });
});
afterAll(() => t.close());

const restore = (dest: string): DataJobSpec => ({ kind: 'restore', backupId: 'b-1', targetPath: '/mnt/backups', format: 'files', destinationPath: dest });
const expire = (key: string) => rawQuery(t.url, `UPDATE data_jobs SET lease_until = now() - interval '1 second' WHERE key = $1`, [key]);
const due = (key: string) => rawQuery(t.url, `UPDATE data_jobs SET next_attempt_at = now() - interval '1 second' WHERE key = $1`, [key]);

describe('data jobs', () => {
  it('ensure is idempotent: the second call answers the first job, unchanged', async () => {
    const a = await jobs.ensure('restore/pv-1', 'node-a', restore('/v/1'));
    const b = await jobs.ensure('restore/pv-1', 'node-b', restore('/v/other'));
    expect(a.state).toBe('queued');
    expect(b).toEqual(a);
    expect(b.node).toBe('node-a');
    expect((await jobs.get('restore/pv-1'))?.spec).toEqual(restore('/v/1'));
  });

  it('a claim leases to one instance; another node sees nothing; an expired lease goes to another instance', async () => {
    await jobs.ensure('restore/pv-2', 'node-a', restore('/v/2'));
    expect((await jobs.claim('node-b', 'agent-x', 60_000, 10)).map((j) => j.key)).not.toContain('restore/pv-2');
    const first = await jobs.claim('node-a', 'agent-1', 60_000, 10);
    expect(first.find((j) => j.key === 'restore/pv-2')?.attempt).toBe(1);
    expect((await jobs.claim('node-a', 'agent-2', 60_000, 10)).map((j) => j.key)).not.toContain('restore/pv-2');
    await expire('restore/pv-2');
    const again = await jobs.claim('node-a', 'agent-2', 60_000, 10);
    expect(again.find((j) => j.key === 'restore/pv-2')?.attempt).toBe(2);
    // The old holder is told to stop; the new one holds it.
    expect(await jobs.progress('restore/pv-2', 'node-a', 'agent-1', { doneBytes: '1', totalBytes: '2' }, 60_000)).toEqual({ held: false, cancel: true });
    expect(await jobs.progress('restore/pv-2', 'node-a', 'agent-2', { doneBytes: '1', totalBytes: '2' }, 60_000)).toEqual({ held: true, cancel: false });
    expect((await jobs.get('restore/pv-2'))?.progress).toEqual({ doneBytes: '1', totalBytes: '2' });
    // A result from the old holder changes nothing.
    expect(await jobs.finish('restore/pv-2', 'node-a', 'agent-1', { ok: true, doneBytes: '2', totalBytes: '2' })).toBeUndefined();
    const done = await jobs.finish('restore/pv-2', 'node-a', 'agent-2', { ok: true, doneBytes: '2', totalBytes: '2' });
    expect(done?.state).toBe('succeeded');
    expect(done?.result).toEqual({ ok: true, doneBytes: '2', totalBytes: '2' });
    expect(done?.finishedAt).toBeInstanceOf(Date);
  });

  it('a running job listed by its holder keeps its lease (renewed by the claim)', async () => {
    await jobs.ensure('restore/pv-3', 'node-a', restore('/v/3'));
    await jobs.claim('node-a', 'agent-1', 60_000, 10);
    await expire('restore/pv-3');
    await jobs.claim('node-a', 'agent-1', 60_000, 0, ['restore/pv-3']);
    expect((await jobs.claim('node-a', 'agent-2', 60_000, 10)).map((j) => j.key)).not.toContain('restore/pv-3');
  });

  it('a retryable failure is queued again after its backoff, then final when attempts run out; retry() queues it again', async () => {
    await jobs.ensure('verify/b-9', 'node-c', { kind: 'verify', backupId: 'b-9', targetPath: '/mnt/backups' });
    await jobs.claim('node-c', 'agent-1', 60_000, 10);
    const once = await jobs.finish('verify/b-9', 'node-c', 'agent-1', { ok: false, error: 'EIO', retryable: true });
    expect(once?.state).toBe('queued');
    await due('verify/b-9');
    expect((await jobs.claim('node-c', 'agent-1', 60_000, 10)).map((j) => j.attempt)).toEqual([2]);
    const twice = await jobs.finish('verify/b-9', 'node-c', 'agent-1', { ok: false, error: 'EIO', retryable: true });
    expect(twice?.state).toBe('failed');
    expect(twice?.result).toMatchObject({ ok: false, error: 'EIO' });
    await jobs.retry('verify/b-9');
    expect((await jobs.get('verify/b-9'))?.state).toBe('queued');
  });

  it('a failure that is not retryable is final at once', async () => {
    await jobs.ensure('restore/pv-4', 'node-d', restore('/v/4'));
    await jobs.claim('node-d', 'agent-1', 60_000, 10);
    const r = await jobs.finish('restore/pv-4', 'node-d', 'agent-1', { ok: false, error: 'chunk ab damaged', damagedChunk: 'ab', retryable: false });
    expect(r?.state).toBe('failed');
    await jobs.forget('restore/pv-4');
    expect(await jobs.get('restore/pv-4')).toBeUndefined();
  });

  it.each([
    { name: 'first failure waits the base', attempt: 1, want: 1000 },
    { name: 'third failure waits four times the base', attempt: 3, want: 4000 },
    { name: 'the cap holds', attempt: 20, want: 60_000 },
  ])('backoff: $name', ({ attempt, want }) => {
    expect(dataJobBackoffMs(attempt, { maxAttempts: 5, baseMs: 1000, maxMs: 60_000 })).toBe(want);
  });
});

describe('target reports', () => {
  const report = (name: string, reachable: boolean): TargetReport => ({ name, path: `/mnt/${name}`, reachable, writable: reachable, backups: [], freeBytes: '10', totalBytes: '20' });

  it('keeps the latest report per node and target, and drops targets a node no longer reports', async () => {
    const r = new TargetReports(t.store);
    await r.save('node-a', [report('nfs', false), report('old', true)]);
    await r.save('node-b', [report('nfs', true)]);
    await r.save('node-a', [report('nfs', true)]);
    const all = await r.list();
    expect(all.map((x) => [x.node, x.report.name, x.report.reachable])).toEqual([
      ['node-a', 'nfs', true],
      ['node-b', 'nfs', true],
    ]);
    expect(all[0].at).toBeInstanceOf(Date);
  });
});

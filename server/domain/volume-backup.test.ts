import { describe, expect, test } from 'vitest';
import { backupIdOf, backupFormat, importName, jobVerdict, pickParent, progressPercent, takenSnapshotName, type BackupCandidate } from './volume-backup';

describe('backupFormat', () => {
  test.each([
    { provisioner: 'stowage.io/btrfs', want: 'files' },
    { provisioner: 'stowage.io/host-path', want: 'files' },
    { provisioner: 'stowage.io/loop', want: 'image' },
    { provisioner: 'csi.example.com', want: undefined },
    { provisioner: undefined, want: undefined },
  ])('$provisioner reads as $want', ({ provisioner, want }) => expect(backupFormat(provisioner)).toBe(want));
});

describe('takenSnapshotName', () => {
  test('is the backup name, a dash and 5 chars, the same for the same uid', () => {
    const a = takenSnapshotName('nightly', '1c9e-42');
    expect(a).toMatch(/^nightly-[a-z0-9]{5}$/);
    expect(takenSnapshotName('nightly', '1c9e-42')).toBe(a);
  });
  test('differs for another uid', () => expect(takenSnapshotName('b', 'uid-1')).not.toBe(takenSnapshotName('b', 'uid-2')));
});

describe('progressPercent', () => {
  test.each([
    { done: '0', total: '100', want: 0 },
    { done: '50', total: '100', want: 50 },
    { done: '999', total: '1000', want: 99 },
    { done: '100', total: '100', want: 100 },
    { done: '200', total: '100', want: 100 },
    { done: '5', total: '0', want: 0 },
    { done: undefined, total: '100', want: 0 },
    { done: '536870912', total: '1073741824', want: 50 },
  ])('$done of $total is $want%', ({ done, total, want }) => expect(progressPercent(done, total)).toBe(want));
});

describe('jobVerdict', () => {
  test.each([
    { rule: 'queued is running', job: { state: 'queued', attempt: 1 }, want: 'running' },
    { rule: 'running is running', job: { state: 'running', attempt: 1 }, want: 'running' },
    { rule: 'succeeded', job: { state: 'succeeded', attempt: 1, result: { ok: true } }, want: 'succeeded' },
    { rule: 'a retryable failure on attempt 1 is retried', job: { state: 'failed', attempt: 1, result: { ok: false, retryable: true } }, want: 'retry' },
    { rule: 'a retryable failure on attempt 3 fails', job: { state: 'failed', attempt: 3, result: { ok: false, retryable: true } }, want: 'failed' },
    { rule: 'a non-retryable failure fails at once', job: { state: 'failed', attempt: 1, result: { ok: false, retryable: false } }, want: 'failed' },
  ])('$rule', ({ job, want }) => expect(jobVerdict(job)).toBe(want));
});

describe('pickParent', () => {
  const c = (uid: string, extra: Partial<BackupCandidate>): BackupCandidate => ({ uid, pvName: 'pv-1', targetName: 'nfs', phase: 'Completed', ...extra });
  test.each<{ rule: string; candidates: BackupCandidate[]; want: string | undefined }>([
    { rule: 'none: no parent', candidates: [], want: undefined },
    { rule: 'the newest Completed one of the same volume and target', candidates: [c('a', { completionTime: '2026-11-01T00:00:00Z' }), c('b', { completionTime: '2026-11-02T00:00:00Z' })], want: 'b' },
    { rule: 'a Failed one is not a parent', candidates: [c('a', { completionTime: '2026-11-01T00:00:00Z' }), c('b', { phase: 'Failed', completionTime: '2026-11-02T00:00:00Z' })], want: 'a' },
    { rule: 'another volume is not a parent', candidates: [c('a', { pvName: 'pv-2' })], want: undefined },
    { rule: 'another target is not a parent', candidates: [c('a', { targetName: 'usb' })], want: undefined },
    { rule: 'itself is not its parent', candidates: [c('self', {})], want: undefined },
  ])('$rule', ({ candidates, want }) => expect(pickParent(candidates, 'pv-1', 'nfs', 'self')?.uid).toBe(want));
});

describe('importName', () => {
  test.each([
    { rule: 'a free name is kept', name: 'nightly', taken: [], want: /^nightly$/ },
    { rule: 'a taken name gets a suffix', name: 'nightly', taken: ['nightly'], want: /^nightly-[a-z0-9]{5}$/ },
  ])('$rule', ({ name, taken, want }) => expect(importName(name, 'id-1', new Set(taken))).toMatch(want));
});

describe('backupIdOf', () => {
  test.each([
    { rule: "a backup made here: its uid", b: { metadata: { uid: 'u1' }, status: { backupId: 'other' } }, want: 'u1' },
    { rule: 'an imported backup: the id read from the target, in status', b: { metadata: { uid: 'u1' }, status: { imported: true, backupId: 'b-9' } }, want: 'b-9' },
    { rule: 'an imported backup without the id in status: unknown (never a label)', b: { metadata: { uid: 'u1', labels: { 'backup.stowage.io/id': 'x' } }, status: { imported: true } }, want: undefined },
    { rule: 'no uid yet: unknown', b: { metadata: {} }, want: undefined },
  ])('$rule', ({ b, want }) => expect(backupIdOf(b)).toBe(want));
});

// The VolumeBackup controller's decisions, one row per case.
import { describe, expect, test } from 'vitest';
import type { DataJob } from '../../contracts/data-jobs';
import type { BackupTarget } from '../../resources/backup-target/schema';
import type { PersistentVolumeClaim } from '../../resources/persistent-volume-claim/schema';
import type { VolumeBackup } from '../../resources/volume-backup/schema';
import type { VolumeSnapshot } from '../../resources/volume-snapshot/schema';
import { backupSnapshotClass, decideBackup, sameStatus, type BackupFacts, type Step } from './decide';

const FIN = 'stowage.io/volume-backup';
const PROT = 'stowage.io/backup-source-protection';
const NOW = '2026-11-28T15:00:00Z';

const backup = (spec: Partial<NonNullable<VolumeBackup['spec']>>, extra: Partial<VolumeBackup> = {}, meta: Partial<VolumeBackup['metadata']> = {}): VolumeBackup => ({
  apiVersion: 'stowage.io/v1',
  kind: 'VolumeBackup',
  metadata: { name: 'b1', namespace: 'ns', uid: 'uid-1', finalizers: [FIN], ...meta },
  spec: { backupTargetName: 'nfs', ...spec },
  ...extra,
});
const fromClaim = (extra: Partial<VolumeBackup> = {}, meta: Partial<VolumeBackup['metadata']> = {}) => backup({ source: { persistentVolumeClaimName: 'data' } }, extra, meta);
const fromSnap = (extra: Partial<VolumeBackup> = {}, meta: Partial<VolumeBackup['metadata']> = {}) => backup({ source: { volumeSnapshotName: 'snap-1' } }, extra, meta);
const target: BackupTarget = { apiVersion: 'stowage.io/v1', kind: 'BackupTarget', metadata: { name: 'nfs' }, spec: { path: '/mnt/backups' } };
const claim = (finalizers: string[] = [PROT], phase = 'Bound'): PersistentVolumeClaim => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data', namespace: 'ns', finalizers }, status: { phase } });
const snap = (ready: boolean, finalizers: string[] = [PROT], name = 'snap-1'): VolumeSnapshot => ({
  apiVersion: 'snapshot.storage.k8s.io/v1',
  kind: 'VolumeSnapshot',
  metadata: { name, namespace: 'ns', finalizers },
  spec: { source: { persistentVolumeClaimName: 'data' } },
  status: { readyToUse: ready, restoreSize: '1Gi', boundVolumeSnapshotContentName: 'snapcontent-1' },
});
const data = { provisioner: 'stowage.io/btrfs', node: 'node-a', path: '/pool/snapcontent-1', pvName: 'pv-1', ready: true };
const job = (state: DataJob['state'], extra: Partial<DataJob> = {}): DataJob => ({
  key: 'backup/uid-1',
  node: 'node-a',
  state,
  attempt: 1,
  createdAt: new Date(NOW),
  spec: { kind: 'backup', backupId: 'uid-1', targetPath: '/mnt/backups', format: 'files', sourcePath: '/pool/snapcontent-1', origin: { namespace: 'ns', claimName: 'data', volumeBackupName: 'b1', snapshotName: 'snap-1', sizeBytes: '1073741824', installation: 'inst' } },
  ...extra,
});
const facts = (f: Partial<BackupFacts>): BackupFacts => ({ backup: fromSnap(), target, reachableNodes: ['node-a'], installation: 'inst', now: NOW, ...f });

describe('decideBackup', () => {
  test.each<{ rule: string; f: Partial<BackupFacts>; want: Partial<Step> & { do: Step['do'] } }>([
    { rule: 'a new backup gets its finalizer first', f: { backup: fromSnap({}, { finalizers: [] }) }, want: { do: 'addFinalizer' } },
    { rule: 'no target: waits saying so', f: { target: undefined }, want: { do: 'wait' } },
    { rule: 'a claim source with no snapshot yet takes one', f: { backup: fromClaim(), claim: claim() }, want: { do: 'takeSnapshot' } },
    { rule: 'a claim source whose claim is not Bound waits', f: { backup: fromClaim(), claim: claim([], 'Pending') }, want: { do: 'wait' } },
    { rule: 'a claim source whose claim is missing waits', f: { backup: fromClaim() }, want: { do: 'wait' } },
    { rule: 'a snapshot not ready yet: waits', f: { snapshot: snap(false), claim: claim() }, want: { do: 'wait' } },
    { rule: 'a missing named snapshot: waits', f: {}, want: { do: 'wait' } },
    { rule: 'a ready snapshot without protection is protected, with its claim', f: { snapshot: snap(true, []), claim: claim([]) }, want: { do: 'protect', snapshot: 'snap-1', claim: 'data' } },
    { rule: 'a protected ready snapshot whose data is on a node: the job is queued', f: { snapshot: snap(true), claim: claim(), data }, want: { do: 'queue', key: 'backup/uid-1', node: 'node-a' } },
    { rule: 'a snapshot of a driver Stowage cannot read fails', f: { snapshot: snap(true), claim: claim(), driver: 'csi.example.com' }, want: { do: 'status' } },
    { rule: 'a running job is mirrored as InProgress', f: { snapshot: snap(true), claim: claim(), data, job: job('running', { progress: { doneBytes: '50', totalBytes: '100' } }) }, want: { do: 'status' } },
    { rule: 'a succeeded job makes the backup Completed', f: { snapshot: snap(true), job: job('succeeded', { result: { ok: true, doneBytes: '100', totalBytes: '100', newBytes: '10' } }) }, want: { do: 'status' } },
    { rule: 'a retryable failure on attempt 1 is retried', f: { job: job('failed', { result: { ok: false, error: 'EIO', retryable: true } }) }, want: { do: 'retry', key: 'backup/uid-1' } },
    { rule: 'a non-retryable failure fails the backup', f: { job: job('failed', { result: { ok: false, error: 'gone', retryable: false } }) }, want: { do: 'status' } },
    { rule: 'a Completed backup of a claim deletes its snapshot and lifts protection', f: { backup: fromClaim({ status: { phase: 'Completed' } }), snapshot: snap(true, [PROT], 'b1-xxxxx'), claim: claim(), job: job('succeeded') }, want: { do: 'release', unprotectSnapshot: 'b1-xxxxx', unprotectClaim: 'data', deleteSnapshot: 'b1-xxxxx', forget: 'backup/uid-1' } },
    { rule: 'a Completed backup of a named snapshot keeps the snapshot, lifting protection', f: { backup: fromSnap({ status: { phase: 'Completed' } }), snapshot: snap(true), claim: claim() }, want: { do: 'release', unprotectSnapshot: 'snap-1', unprotectClaim: 'data' } },
    { rule: 'a Completed backup with nothing left to release does nothing', f: { backup: fromSnap({ status: { phase: 'Completed' } }), snapshot: snap(true, []), claim: claim([]) }, want: { do: 'none' } },
    { rule: 'deleting a Completed backup queues a delete job on a node that reaches the target', f: { backup: fromSnap({ status: { phase: 'Completed' } }, { deletionTimestamp: NOW }), reachableNodes: ['node-b', 'node-a'] }, want: { do: 'queueDelete', key: 'delete/uid-1', node: 'node-a' } },
    { rule: 'deleting with no node reaching the target waits', f: { backup: fromSnap({ status: { phase: 'Completed' } }, { deletionTimestamp: NOW }), reachableNodes: [] }, want: { do: 'wait' } },
    { rule: 'deleting with the delete job succeeded drops the finalizer', f: { backup: fromSnap({ status: { phase: 'Completed' } }, { deletionTimestamp: NOW }), deleteJob: job('succeeded', { key: 'delete/uid-1' }) }, want: { do: 'dropFinalizer', forget: ['delete/uid-1'] } },
    { rule: 'deleting while the backup job runs waits for it', f: { backup: fromSnap({ status: { phase: 'InProgress' } }, { deletionTimestamp: NOW }), job: job('running') }, want: { do: 'wait' } },
    { rule: 'deleting a backup that never completed drops the finalizer at once', f: { backup: fromSnap({ status: { phase: 'Failed' } }, { deletionTimestamp: NOW }) }, want: { do: 'dropFinalizer' } },
    { rule: 'deleting an imported backup drops the finalizer without touching the target', f: { backup: fromSnap({ status: { phase: 'Completed', imported: true } }, { deletionTimestamp: NOW }) }, want: { do: 'dropFinalizer', forget: [] } },
    { rule: 'an imported backup is never run', f: { backup: fromSnap({ status: { phase: 'Completed', imported: true } }) }, want: { do: 'none' } },
  ])('$rule', ({ f, want }) => {
    expect(decideBackup(facts(f))).toMatchObject(want);
  });

  test('the queued job carries the origin, the format and the status the backup shows', () => {
    const step = decideBackup(facts({ snapshot: snap(true), claim: claim(), data, storageClassName: 'fast', parent: { backupId: 'uid-0', sourcePath: '/pool/old' } }));
    if (step.do !== 'queue') throw new Error(step.do);
    expect(step.spec).toMatchObject({ kind: 'backup', backupId: 'uid-1', targetPath: '/mnt/backups', format: 'files', sourcePath: '/pool/snapcontent-1', parentBackupId: 'uid-0', parentSourcePath: '/pool/old' });
    expect(step.spec.kind === 'backup' && step.spec.origin).toEqual({ namespace: 'ns', claimName: 'data', volumeBackupName: 'b1', pvName: 'pv-1', snapshotName: 'snap-1', storageClassName: 'fast', provisioner: 'stowage.io/btrfs', sizeBytes: '1073741824', installation: 'inst' });
    expect(step.status).toMatchObject({ phase: 'InProgress', node: 'node-a', format: 'files', sizeBytes: '1073741824', snapshotName: 'snap-1', sourceClaimName: 'data' });
    expect(step.event.reason).toBe('BackupStarted');
  });

  test('a loop snapshot is backed up as an image', () => {
    const step = decideBackup(facts({ snapshot: snap(true), claim: claim(), data: { ...data, provisioner: 'stowage.io/loop', path: '/base/snapshots/c.img' } }));
    expect(step.do === 'queue' && step.spec.kind === 'backup' && step.spec.format).toBe('image');
  });

  test('progress is mirrored in percent; a success writes Completed with sizes and Ready True', () => {
    const running = decideBackup(facts({ snapshot: snap(true), job: job('running', { progress: { doneBytes: '536870912', totalBytes: '1073741824', newBytes: '1024' } }) }));
    expect(running.do === 'status' && running.status).toMatchObject({ phase: 'InProgress', progress: 50, doneBytes: '536870912', newBytes: '1024', node: 'node-a' });
    const done = decideBackup(facts({ job: job('succeeded', { finishedAt: new Date(NOW), result: { ok: true, doneBytes: '100', totalBytes: '100', newBytes: '10' } }) }));
    if (done.do !== 'status') throw new Error(done.do);
    expect(done.status).toMatchObject({ phase: 'Completed', progress: 100, newBytes: '10', completionTime: '2026-11-28T15:00:00Z' });
    expect(done.status.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(done.event?.reason).toBe('BackupCompleted');
  });

  test('the third failed attempt fails the backup with the error in status', () => {
    const step = decideBackup(facts({ job: job('failed', { attempt: 3, result: { ok: false, error: 'EIO reading', retryable: true } }) }));
    if (step.do !== 'status') throw new Error(step.do);
    expect(step.status.phase).toBe('Failed');
    expect(step.status.error?.message).toMatch(/attempt 3.*EIO reading/);
    expect(step.event).toMatchObject({ type: 'Warning', reason: 'BackupFailed' });
  });
});

describe('verify (annotation backup.stowage.io/verify-requested)', () => {
  const ASKED = '2026-11-28T14:59:00Z';
  const done = (verification?: NonNullable<VolumeBackup['status']>['verification'], imported = false) =>
    fromSnap({ status: { phase: 'Completed', ...(imported ? { imported: true, backupId: 'b-elsewhere' } : {}), ...(verification ? { verification } : {}) } }, { annotations: { 'backup.stowage.io/verify-requested': ASKED } });
  const vjob = (state: DataJob['state'], result?: DataJob['result']): DataJob => ({ ...job(state, result ? { result } : {}), key: 'verify/uid-1', spec: { kind: 'verify', backupId: 'uid-1', targetPath: '/mnt/backups' } });
  test.each<{ rule: string; f: Partial<BackupFacts>; want: Record<string, unknown> }>([
    { rule: 'a request not yet answered queues a verify job on a node that reaches the target', f: { backup: done() }, want: { do: 'queueVerify', key: 'verify/uid-1', node: 'node-a' } },
    { rule: 'an imported backup is verified too, by its id in the target', f: { backup: done(undefined, true) }, want: { do: 'queueVerify', key: 'verify/uid-1', spec: { kind: 'verify', backupId: 'b-elsewhere', targetPath: '/mnt/backups' } } },
    { rule: 'no node reaches the target: waits', f: { backup: done(), reachableNodes: [] }, want: { do: 'wait' } },
    { rule: 'a running verify: waits', f: { backup: done(), verifyJob: vjob('running') }, want: { do: 'wait' } },
    { rule: 'an answered request does nothing more', f: { backup: done({ requestedAt: ASKED, result: 'Passed' }) }, want: { do: 'none' } },
    { rule: 'an answered request whose job is still on record forgets it', f: { backup: done({ requestedAt: ASKED, result: 'Passed' }), verifyJob: vjob('succeeded') }, want: { do: 'release', forget: 'verify/uid-1' } },
  ])('$rule', ({ f, want }) => {
    expect(decideBackup(facts(f))).toMatchObject(want);
  });

  test('a passed verify is written with the request it answers and a Normal event', () => {
    const step = decideBackup(facts({ backup: done(), verifyJob: vjob('succeeded', { ok: true, doneBytes: '100', totalBytes: '100', chunks: 3 }) }));
    if (step.do !== 'verified') throw new Error(step.do);
    expect(step.status.verification).toMatchObject({ requestedAt: ASKED, time: NOW, result: 'Passed', chunks: 3 });
    expect(step.status.phase).toBe('Completed');
    expect(step.event).toMatchObject({ type: 'Normal', reason: 'BackupVerified' });
    expect(step.forget).toBe('verify/uid-1');
  });

  test('a damaged chunk is named in status and in a BackupDamaged Warning', () => {
    const step = decideBackup(facts({ backup: done(), verifyJob: vjob('failed', { ok: false, error: 'backup uid-1: chunk abc is damaged (content hash is 00…)', damagedChunk: 'abc', retryable: false }) }));
    if (step.do !== 'verified') throw new Error(step.do);
    expect(step.status.verification).toMatchObject({ result: 'Damaged', damagedChunk: 'abc' });
    expect(step.event.type).toBe('Warning');
    expect(step.event.reason).toBe('BackupDamaged');
    expect(step.event.message).toContain('chunk abc');
  });
});

describe('sameStatus', () => {
  test.each([
    { rule: 'the same fields in another order are the same', a: { phase: 'InProgress', progress: 5 }, b: { progress: 5, phase: 'InProgress' }, want: true },
    { rule: 'another progress is not', a: { phase: 'InProgress', progress: 5 }, b: { phase: 'InProgress', progress: 6 }, want: false },
    { rule: "an error's time alone is not a change", a: { error: { message: 'x', time: 't1' } }, b: { error: { message: 'x', time: 't2' } }, want: true },
  ])('$rule', ({ a, b, want }) => expect(sameStatus(a, b)).toBe(want));
});

describe('backupSnapshotClass (the class of the snapshot taken for a claim)', () => {
  const vsc = (name: string, driver: string, isDefault = false, deletionPolicy = 'Delete') => ({
    apiVersion: 'snapshot.storage.k8s.io/v1',
    kind: 'VolumeSnapshotClass',
    metadata: { name, ...(isDefault ? { annotations: { 'snapshot.storage.kubernetes.io/is-default-class': 'true' } } : {}) },
    driver,
    deletionPolicy,
  });
  test.each([
    { rule: "the driver's default class: none named, the snapshot controller picks it", classes: [vsc('a', 'd', true), vsc('b', 'd')], want: {} },
    { rule: "no default but the driver's only class: that one", classes: [vsc('a', 'd'), vsc('x', 'other', true)], want: { name: 'a' } },
    { rule: 'no class for the driver: a problem naming it', classes: [vsc('x', 'other')], want: { problem: expect.stringContaining('no VolumeSnapshotClass for driver d') } },
    { rule: 'several classes and no default: the first by name that deletes its snapshots', classes: [vsc('c', 'd'), vsc('a', 'd', false, 'Retain'), vsc('b', 'd')], want: { name: 'b' } },
    { rule: 'only classes that retain and no default: a problem (the snapshot is deleted after the backup)', classes: [vsc('a', 'd', false, 'Retain')], want: { problem: expect.stringContaining('all retain their snapshots') } },
  ])('$rule', ({ classes, want }) => {
    expect(backupSnapshotClass(classes as never, 'd')).toEqual(want);
  });
});

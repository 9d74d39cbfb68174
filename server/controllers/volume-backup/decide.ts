// The VolumeBackup controller's decision: from the facts (the backup, its target, its
// source snapshot and claim, the snapshot's data on a node, the data jobs) the ONE next
// step. The controller acts and asks again until the step is to wait. Pure.
import type { DataJob, DataJobSpec } from '../../contracts/data-jobs';
import { backupSourceProtectionFinalizer, volumeBackupFinalizer } from '../../domain/well-known/finalizers';
import { conditionFailed, conditionProgressing, conditionReady } from '../../domain/well-known/conditions';
import { reasons } from '../../domain/well-known/event-reasons';
import { backupFormat, backupIdOf, jobVerdict, progressPercent, takenSnapshotName } from '../../domain/volume-backup';
import { parseQuantity, quantityToBytes } from '../../domain/quantity';
import type { BackupTarget } from '../../resources/backup-target/schema';
import { deepEqual } from '../../resources/field-errors';
import type { PersistentVolumeClaim } from '../../resources/persistent-volume-claim/schema';
import type { VolumeBackup } from '../../resources/volume-backup/schema';
import type { VolumeSnapshot } from '../../resources/volume-snapshot/schema';
import { metaTime } from '../../domain/meta-time';
import { annVerifyRequested } from '../../domain/well-known/annotations';
import type { VolumeSnapshotClass } from '../../resources/volume-snapshot-class/schema';
import { isDefaultSnapshotClass } from '../../resources/volume-snapshot-class/strategy';

export type BackupStatus = NonNullable<VolumeBackup['status']>;

/** Where the snapshot's data is: its node and path there, from the provisioner's asset record. */
export interface SnapshotData {
  provisioner: string;
  node: string;
  path: string;
  /** The PV the snapshot was taken of. */
  pvName?: string;
  /** Whether the record says the snapshot exists (not being made or removed). */
  ready: boolean;
}

export interface BackupFacts {
  backup: VolumeBackup;
  target?: BackupTarget;
  /** The claim whose data the backup holds (the spec's, or the snapshot's source claim). */
  claim?: PersistentVolumeClaim;
  /** The snapshot read: the one named, or the one Stowage took (by its deterministic name). */
  snapshot?: VolumeSnapshot;
  /** The snapshot's data on its node (undefined: no content, or no record Stowage can read). */
  data?: SnapshotData;
  /** The content's driver, for the message when its data cannot be read. */
  driver?: string;
  storageClassName?: string;
  /** The previous backup to build on, and its snapshot's path when still on the same node. */
  parent?: { backupId: string; sourcePath?: string };
  job?: DataJob;
  deleteJob?: DataJob;
  verifyJob?: DataJob;
  /** Nodes whose agents report the backup's target reachable. */
  reachableNodes: string[];
  installation: string;
  now: string;
}

export interface EventToRecord {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

export type Step =
  | { do: 'addFinalizer' }
  | { do: 'takeSnapshot'; name: string }
  | { do: 'protect'; snapshot?: string; claim?: string }
  | { do: 'queue'; key: string; node: string; spec: DataJobSpec; status: BackupStatus; event: EventToRecord }
  | { do: 'retry'; key: string; status: BackupStatus; event: EventToRecord }
  | { do: 'status'; status: BackupStatus; event?: EventToRecord }
  | { do: 'release'; unprotectSnapshot?: string; unprotectClaim?: string; deleteSnapshot?: string; forget?: string }
  | { do: 'queueDelete'; key: string; node: string; spec: DataJobSpec }
  | { do: 'queueVerify'; key: string; node: string; spec: DataJobSpec }
  | { do: 'verified'; status: BackupStatus; event: EventToRecord; forget: string }
  | { do: 'dropFinalizer'; forget: string[]; event?: EventToRecord }
  | { do: 'wait'; requeueMs: number; status?: BackupStatus; event?: EventToRecord }
  | { do: 'none' };

export const backupJobKey = (uid: string) => `backup/${uid}`;
export const deleteJobKey = (uid: string) => `delete/${uid}`;
export const verifyJobKey = (uid: string) => `verify/${uid}`;

/** How often a running job's progress is looked at (the job rows are not in the change log). */
export const POLL_MS = 2_000;
/** How often a waiting backup looks again besides the watch. */
export const WAIT_MS = 10_000;

const TERMINAL = new Set(['Completed', 'Failed']);

function conditions(prev: BackupStatus | undefined, phase: string, now: string, message?: string): BackupStatus['conditions'] {
  const want: [string, boolean, string][] = [
    [conditionReady, phase === 'Completed', phase === 'Completed' ? 'BackupCompleted' : phase],
    [conditionProgressing, phase === 'InProgress', phase],
    [conditionFailed, phase === 'Failed', phase === 'Failed' ? 'BackupFailed' : phase],
  ];
  return want.map(([type, on, reason]) => {
    const status = on ? 'True' : 'False';
    const old = prev?.conditions?.find((c) => c.type === type);
    const lastTransitionTime = old?.status === status && old.lastTransitionTime ? old.lastTransitionTime : now;
    return { type, status, reason, lastTransitionTime, ...(on && message ? { message } : {}) };
  });
}

/** The status with `phase` and fields set, conditions following the phase. */
function statusWith(f: BackupFacts, phase: string, fields: Partial<BackupStatus>, errorMessage?: string): BackupStatus {
  const prev = f.backup.status;
  const next: BackupStatus = { ...prev, ...fields, phase };
  if (errorMessage !== undefined) next.error = prev?.error?.message === errorMessage ? prev.error : { time: f.now, message: errorMessage };
  next.conditions = conditions(prev, phase, f.now, errorMessage);
  return next;
}

/** Same status (ignoring the error's and conditions' times): no write. */
export function sameStatus(a: BackupStatus | undefined, b: BackupStatus): boolean {
  // Key order is not meaning: the store may give the fields back in another order.
  const strip = (s: BackupStatus | undefined) => ({ ...s, error: s?.error?.message, conditions: s?.conditions?.map((c) => [c.type, c.status, c.reason, c.message]) });
  return deepEqual(strip(a), strip(b));
}

function wait(f: BackupFacts, message: string, requeueMs = WAIT_MS): Step {
  const status = statusWith(f, f.backup.status?.phase ?? 'Pending', { backupTargetName: f.backup.spec?.backupTargetName }, message);
  return sameStatus(f.backup.status, status)
    ? { do: 'wait', requeueMs }
    : { do: 'wait', requeueMs, status, event: { type: 'Normal', reason: reasons.backupWaiting, message } };
}

function fail(f: BackupFacts, message: string): Step {
  return { do: 'status', status: statusWith(f, 'Failed', { completionTime: f.now }, message), event: { type: 'Warning', reason: reasons.backupFailed, message } };
}

/** What a job tells about the source (so the status follows from the job row alone after a restart). */
function fromJob(job: DataJob): Partial<BackupStatus> {
  const spec = job.spec;
  if (spec.kind !== 'backup') return { node: job.node };
  const o = spec.origin;
  return {
    node: job.node,
    format: spec.format,
    snapshotName: o.snapshotName,
    sourceClaimName: o.claimName,
    pvName: o.pvName,
    storageClassName: o.storageClassName,
    provisioner: o.provisioner,
    sizeBytes: o.sizeBytes,
    startTime: metaTime(job.startedAt ?? job.createdAt),
  };
}

function progressOf(job: DataJob): Partial<BackupStatus> {
  const p = job.result?.ok ? job.result : job.progress;
  if (!p) return {};
  return { doneBytes: p.doneBytes, totalBytes: p.totalBytes, progress: progressPercent(p.doneBytes, p.totalBytes), ...(p.newBytes ? { newBytes: p.newBytes } : {}) };
}

/** Mirrors a backup job into the status. */
function mirror(f: BackupFacts, job: DataJob): Step {
  const name = f.backup.metadata.name;
  const base = { ...fromJob(job), ...progressOf(job), backupTargetName: f.backup.spec?.backupTargetName, attempts: job.attempt };
  const verdict = jobVerdict({ state: job.state, attempt: job.attempt, result: job.result ? { ok: job.result.ok, retryable: job.result.ok ? undefined : job.result.retryable } : undefined });
  const error = job.result && !job.result.ok ? job.result.error : undefined;
  if (verdict === 'succeeded') {
    const status = statusWith(f, 'Completed', { ...base, progress: 100, completionTime: metaTime(job.finishedAt ?? new Date(f.now)) });
    delete status.error;
    return { do: 'status', status, event: { type: 'Normal', reason: reasons.backupCompleted, message: `Backup ${name} is complete in target ${f.backup.spec?.backupTargetName}` } };
  }
  if (verdict === 'failed') {
    const message = `backup failed on node ${job.node} (attempt ${job.attempt}): ${error ?? 'unknown error'}`;
    return { do: 'status', status: statusWith(f, 'Failed', { ...base, completionTime: metaTime(job.finishedAt ?? new Date(f.now)) }, message), event: { type: 'Warning', reason: reasons.backupFailed, message } };
  }
  if (verdict === 'retry') {
    const message = `attempt ${job.attempt} failed on node ${job.node}, will retry: ${error ?? 'unknown error'}`;
    return { do: 'retry', key: job.key, status: statusWith(f, 'InProgress', base, message), event: { type: 'Warning', reason: reasons.backupFailed, message } };
  }
  const status = statusWith(f, 'InProgress', base, f.backup.status?.error?.message);
  if (!f.backup.status?.error) delete status.error;
  return sameStatus(f.backup.status, status) ? { do: 'wait', requeueMs: POLL_MS } : { do: 'status', status };
}

/** The source snapshot and claim carry protection while the backup reads; the taken snapshot goes afterwards. */
function releaseStep(f: BackupFacts, forgetJob: boolean): Step | undefined {
  const b = f.backup;
  const vs = f.snapshot;
  const taken = b.spec?.source?.persistentVolumeClaimName !== undefined;
  const step: Extract<Step, { do: 'release' }> = { do: 'release' };
  if (vs?.metadata.finalizers?.includes(backupSourceProtectionFinalizer)) step.unprotectSnapshot = vs.metadata.name;
  if (f.claim?.metadata.finalizers?.includes(backupSourceProtectionFinalizer)) step.unprotectClaim = f.claim.metadata.name;
  if (taken && vs && !vs.metadata.deletionTimestamp) step.deleteSnapshot = vs.metadata.name;
  if (forgetJob && f.job) step.forget = f.job.key;
  return Object.keys(step).length > 1 ? step : undefined;
}

function restoreSizeBytes(vs: VolumeSnapshot): string | undefined {
  const q = vs.status?.restoreSize;
  if (q === undefined) return undefined;
  const parsed = parseQuantity(String(q));
  return parsed ? String(quantityToBytes(parsed)) : undefined;
}

function decideDeletion(f: BackupFacts): Step {
  const b = f.backup;
  if (!b.metadata.finalizers?.includes(volumeBackupFinalizer)) return { do: 'none' };
  const name = b.metadata.name;
  if (b.status?.imported) {
    return { do: 'dropFinalizer', forget: [], event: { type: 'Normal', reason: reasons.backupDeleted, message: `Imported backup ${name} removed here; its data stays in target ${b.spec?.backupTargetName}` } };
  }
  // A running backup writes its manifest last: wait for it, or a delete now would be undone.
  if (f.job && (f.job.state === 'queued' || f.job.state === 'running')) return { do: 'wait', requeueMs: POLL_MS };
  const release = releaseStep(f, false);
  if (release) return release;
  const completed = b.status?.phase === 'Completed' || f.job?.state === 'succeeded';
  const forget = [f.job?.key, f.deleteJob?.key].filter((k): k is string => Boolean(k));
  if (!completed) return { do: 'dropFinalizer', forget };
  const targetPath = f.target?.spec?.path;
  if (!f.target || !targetPath) {
    return { do: 'dropFinalizer', forget, event: { type: 'Warning', reason: reasons.backupDeleted, message: `BackupTarget ${b.spec?.backupTargetName} no longer exists: the backup's data, if any is left there, was not removed` } };
  }
  const dj = f.deleteJob;
  if (!dj) {
    const node = [...f.reachableNodes].sort()[0];
    if (!node) return wait(f, `waiting for a node whose agent reaches BackupTarget ${f.target.metadata.name} to remove the backup's data`);
    return { do: 'queueDelete', key: deleteJobKey(b.metadata.uid ?? ''), node, spec: { kind: 'delete', backupId: b.metadata.uid ?? '', targetPath } };
  }
  if (dj.state === 'succeeded') {
    return { do: 'dropFinalizer', forget, event: { type: 'Normal', reason: reasons.backupDeleted, message: `Backup ${name} removed from target ${f.target.metadata.name}` } };
  }
  if (dj.state === 'failed') {
    const message = `removing the backup's data failed on node ${dj.node}, will retry: ${dj.result && !dj.result.ok ? dj.result.error : 'unknown error'}`;
    return { do: 'retry', key: dj.key, status: statusWith(f, b.status?.phase ?? 'Completed', {}, message), event: { type: 'Warning', reason: reasons.backupFailed, message } };
  }
  return { do: 'wait', requeueMs: POLL_MS };
}

/**
 * A verify asked for (annotation backup.stowage.io/verify-requested, a time) and not yet
 * answered: a verify job on a node that reaches the target, then its outcome in
 * status.verification and an event (BackupDamaged names the first damaged chunk).
 * Undefined: nothing to do about verifying.
 */
function decideVerify(f: BackupFacts): Step | undefined {
  const b = f.backup;
  const asked = b.metadata.annotations?.[annVerifyRequested];
  const job = f.verifyJob;
  if (!asked || b.status?.verification?.requestedAt === asked) return job && job.state !== 'queued' && job.state !== 'running' ? { do: 'release', forget: job.key } : undefined;
  const targetPath = f.target?.spec?.path;
  const name = b.metadata.name;
  const answer = (verification: NonNullable<BackupStatus['verification']>, event: EventToRecord): Step => ({
    do: 'verified',
    status: { ...b.status, verification: { requestedAt: asked, time: f.now, ...verification } },
    event,
    forget: verifyJobKey(b.metadata.uid ?? ''),
  });
  if (!job) {
    if (!f.target || !targetPath) return answer({ result: 'Failed', message: `BackupTarget ${b.spec?.backupTargetName} not found` }, { type: 'Warning', reason: reasons.backupDamaged, message: `Backup ${name} cannot be verified: BackupTarget ${b.spec?.backupTargetName} not found` });
    const node = [...f.reachableNodes].sort()[0];
    if (!node) return { do: 'wait', requeueMs: WAIT_MS };
    const backupId = backupIdOf(b);
    if (!backupId) return answer({ result: 'Failed', message: 'the backup does not know its id in the target' }, { type: 'Warning', reason: reasons.backupDamaged, message: `Backup ${name} cannot be verified: its id in the target is not known` });
    return { do: 'queueVerify', key: verifyJobKey(b.metadata.uid ?? ''), node, spec: { kind: 'verify', backupId, targetPath } };
  }
  if (job.state === 'queued' || job.state === 'running') return { do: 'wait', requeueMs: POLL_MS };
  const r = job.result;
  if (job.state === 'succeeded' && r?.ok) {
    return answer({ result: 'Passed', ...(r.chunks !== undefined ? { chunks: r.chunks } : {}), message: `every chunk read back and checked (${r.totalBytes} bytes)` }, { type: 'Normal', reason: reasons.backupVerified, message: `Backup ${name} verified: every chunk is as its id says` });
  }
  const error = r && !r.ok ? r.error : 'the verify job failed';
  const damaged = r && !r.ok ? r.damagedChunk : undefined;
  return answer(
    { result: damaged ? 'Damaged' : 'Failed', ...(damaged ? { damagedChunk: damaged } : {}), message: error },
    { type: 'Warning', reason: reasons.backupDamaged, message: damaged ? `Backup ${name} is damaged: ${error}` : `Backup ${name} could not be verified: ${error}` },
  );
}

export function decideBackup(f: BackupFacts): Step {
  const b = f.backup;
  if (b.metadata.deletionTimestamp) return decideDeletion(f);
  if (!b.metadata.finalizers?.includes(volumeBackupFinalizer)) return { do: 'addFinalizer' };
  const phase = b.status?.phase;
  if (phase === 'Completed') {
    const verify = decideVerify(f);
    if (verify) return verify;
  }
  if (b.status?.imported) return { do: 'none' };
  if (phase && TERMINAL.has(phase)) return releaseStep(f, true) ?? { do: 'none' };
  if (f.job) return mirror(f, f.job);

  const targetName = b.spec?.backupTargetName;
  if (!f.target || !f.target.spec?.path) return wait(f, `BackupTarget ${targetName ?? '(none)'} not found`);
  if (f.target.metadata.deletionTimestamp) return wait(f, `BackupTarget ${targetName} is being deleted`);

  const source = b.spec?.source ?? {};
  if (source.persistentVolumeClaimName !== undefined) {
    const claimName = source.persistentVolumeClaimName;
    if (!f.snapshot) {
      if (!f.claim) return wait(f, `PersistentVolumeClaim ${claimName} not found`);
      if (f.claim.status?.phase !== 'Bound') return wait(f, `PersistentVolumeClaim ${claimName} is not Bound`);
      return { do: 'takeSnapshot', name: takenSnapshotName(b.metadata.name ?? '', b.metadata.uid ?? '') };
    }
  }
  const vs = f.snapshot;
  if (!vs) return wait(f, `VolumeSnapshot ${source.volumeSnapshotName} not found`);
  if (vs.metadata.deletionTimestamp) return fail(f, `VolumeSnapshot ${vs.metadata.name} is being deleted`);
  if (vs.status?.readyToUse !== true) {
    const why = vs.status?.error?.message ? `: ${vs.status.error.message}` : '';
    return wait(f, `waiting for VolumeSnapshot ${vs.metadata.name} to be ready to use${why}`);
  }
  const protect: Extract<Step, { do: 'protect' }> = { do: 'protect' };
  if (!vs.metadata.finalizers?.includes(backupSourceProtectionFinalizer)) protect.snapshot = vs.metadata.name;
  if (f.claim && !f.claim.metadata.deletionTimestamp && !f.claim.metadata.finalizers?.includes(backupSourceProtectionFinalizer)) protect.claim = f.claim.metadata.name;
  if (protect.snapshot || protect.claim) return protect;

  const d = f.data;
  if (!d) return fail(f, `the data of VolumeSnapshot ${vs.metadata.name} is not on a node Stowage manages (driver ${f.driver ?? 'unknown'}): only btrfs, host-path and loop snapshots can be backed up`);
  const format = backupFormat(d.provisioner);
  if (!format) return fail(f, `snapshots of ${d.provisioner} cannot be backed up: only btrfs, host-path and loop snapshots can`);
  if (!d.ready) return wait(f, `waiting for the data of VolumeSnapshot ${vs.metadata.name} on node ${d.node}`);
  const sizeBytes = restoreSizeBytes(vs) ?? '0';
  const uid = b.metadata.uid ?? '';
  const spec: DataJobSpec = {
    kind: 'backup',
    backupId: uid,
    targetPath: f.target.spec.path,
    format,
    sourcePath: d.path,
    ...(f.parent ? { parentBackupId: f.parent.backupId, ...(f.parent.sourcePath ? { parentSourcePath: f.parent.sourcePath } : {}) } : {}),
    origin: {
      namespace: b.metadata.namespace ?? '',
      claimName: f.claim?.metadata.name ?? source.persistentVolumeClaimName ?? vs.spec?.source?.persistentVolumeClaimName ?? '',
      volumeBackupName: b.metadata.name ?? '',
      ...(d.pvName ? { pvName: d.pvName } : {}),
      snapshotName: vs.metadata.name,
      ...(f.storageClassName ? { storageClassName: f.storageClassName } : {}),
      provisioner: d.provisioner,
      sizeBytes,
      installation: f.installation,
    },
  };
  const status = statusWith(f, 'InProgress', {
    backupTargetName: targetName,
    node: d.node,
    snapshotName: vs.metadata.name,
    sourceClaimName: spec.origin.claimName,
    pvName: d.pvName,
    storageClassName: f.storageClassName,
    provisioner: d.provisioner,
    format,
    sizeBytes,
    startTime: f.now,
    progress: 0,
  });
  delete status.error;
  return {
    do: 'queue',
    key: backupJobKey(uid),
    node: d.node,
    spec,
    status,
    event: { type: 'Normal', reason: reasons.backupStarted, message: `Backing up VolumeSnapshot ${vs.metadata.name} on node ${d.node} to target ${targetName}${f.parent ? ` (incremental on ${f.parent.backupId})` : ''}` },
  };
}

/**
 * The class of the snapshot Stowage takes for a backup of a claim whose volume is of
 * `driver`: none named when the driver has a default class (the snapshot controller picks
 * it, as upstream, and reports several defaults as upstream does); with no default, the
 * first by name of the driver's classes with deletionPolicy Delete (the snapshot is
 * Stowage's own and is deleted after the backup, so its data must go with it); else what is
 * wrong, in words.
 */
export function backupSnapshotClass(classes: readonly VolumeSnapshotClass[], driver: string | undefined): { name?: string; problem?: string } {
  if (!driver) return {};
  const mine = classes.filter((c) => c.driver === driver && !c.metadata.deletionTimestamp);
  if (mine.some(isDefaultSnapshotClass)) return {};
  const deleting = mine.filter((c) => c.deletionPolicy === 'Delete').sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
  if (deleting.length > 0) return { name: deleting[0].metadata.name };
  if (mine.length === 0) return { problem: `no VolumeSnapshotClass for driver ${driver}: an administrator must create one before claims of it can be backed up` };
  return { problem: `the VolumeSnapshotClasses of driver ${driver} all retain their snapshots, and none is the default: mark one as the default (annotation snapshot.storage.kubernetes.io/is-default-class) or add one with deletionPolicy Delete` };
}

// What the local-volume manager does with one disk and its PV (seed 003, the central
// manager of the "Provisioner redesign"; after sig-storage-local-static-provisioner's
// pkg/discovery and pkg/deleter). Pure: the reconcile reads the state, this decides one
// step, the reconcile acts and looks again.
//
// The rules that keep a dirty disk from being handed out:
//   - a disk with an unfinished cleanup job (queued, running, failed, quarantined) never
//     gets a PV, whatever happened to its old PV;
//   - a used PV (it had a claim) never goes away without a cleanup job recorded first:
//     Released + Delete records the job, and the PV is deleted only once that job succeeded;
//     a used PV deleted by hand is held by the manager's finalizer until the job is recorded.
import type { PersistentVolume } from '../../resources/persistent-volume/schema';
import type { JobState, NewJob } from '../../store/cleanup-jobs';
import type { LocalClassConfig } from '../../domain/local-volume-config';
import { chooseCleanupMethod } from '../../domain/cleanup-method';
import { reasons } from '../../domain/well-known/event-reasons';
import { localCleanupFinalizer } from '../../domain/well-known/finalizers';
import { annDiskMissing, annLocalNode, annNodeNotReporting } from '../../domain/well-known/annotations';

export interface DiskFacts {
  present: boolean;
  eligible: boolean;
  reason?: string | null;
  /** What the entry is: a directory or mount point (Filesystem) or a block device (Block). */
  volumeMode?: 'Filesystem' | 'Block';
}

export interface EventSpec {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

export interface JobFacts {
  state: JobState;
  pvUid: string;
}

export interface DecideInput {
  /** What the node's agent last reported for the disk (undefined: never reported). */
  disk?: DiskFacts;
  /** The PV of that disk, if it exists. */
  pv?: PersistentVolume;
  /** Whether the PV's claim has let go of it (domain/volume-release). */
  released: boolean;
  /** The disk's unfinished job, if any. */
  openJob?: JobFacts;
  /** The newest job recorded for this PV object (by uid), if any. */
  pvJob?: JobFacts;
  /** The node reports (Ready True); false when its agent stopped reporting. */
  nodeReady: boolean;
  /** The class's reclaim policy, for a PV about to be created (default Delete). */
  classPolicy?: string;
}

export type Decision =
  | { action: 'none'; why: string }
  | { action: 'create' }
  | { action: 'recordCleanup'; quarantine?: string }
  | { action: 'deletePv'; why: string }
  | { action: 'removeFinalizer'; why: string }
  | { action: 'annotate'; set: Record<string, string | undefined>; event?: EventSpec }
  | { action: 'event'; event: EventSpec };

const wasUsed = (pv: PersistentVolume) => !!pv.spec?.claimRef?.uid;
const annotations = (pv: PersistentVolume) => pv.metadata.annotations ?? {};

export function decide(i: DecideInput): Decision {
  const { pv, disk } = i;
  if (!pv) {
    if (!disk) return { action: 'none', why: 'no disk reported' };
    if (!disk.present) return { action: 'none', why: 'the disk is gone' };
    if (!disk.eligible) return { action: 'none', why: `not eligible: ${disk.reason ?? 'no reason given'}` };
    if (i.openJob) return { action: 'none', why: `its cleanup has not finished (${i.openJob.state})` };
    if (!i.nodeReady) return { action: 'none', why: 'its node is not reporting' };
    return { action: 'create' };
  }

  const policy: string = pv.spec?.persistentVolumeReclaimPolicy ?? 'Delete';
  const finalizers: string[] = pv.metadata.finalizers ?? [];
  const held = finalizers.includes(localCleanupFinalizer);

  // Deleted (by hand, or by us after a wipe): let go only once the disk's fate is recorded.
  if (pv.metadata.deletionTimestamp) {
    if (!held) return { action: 'none', why: 'being deleted' };
    if (wasUsed(pv) && !i.pvJob && !i.openJob) {
      return policy === 'Delete'
        ? { action: 'recordCleanup' }
        : { action: 'recordCleanup', quarantine: `the volume (reclaim policy ${policy}) was deleted with its data; retry to wipe the disk and offer it again` };
    }
    return { action: 'removeFinalizer', why: 'the disk needs nothing more or its cleanup is recorded' };
  }

  const phase = pv.status?.phase;
  // Upstream's deleter (DeletePVs) on a Released volume it cannot reclaim: a Warning each pass.
  if (phase === 'Released' && policy === 'Recycle') {
    return { action: 'event', event: { type: 'Warning', reason: reasons.volumeUnsupportedReclaimPolicy, message: 'Volume has unsupported PersistentVolumeReclaimPolicy: Recycle' } };
  }
  // Upstream's deleter reclaims Released volumes only; Stowage also wipes a Failed one whose
  // policy is (set to) Delete, such as a Recycle volume the binder failed and an admin then
  // recycled from the reclaim center (upstream leaves it for the admin to delete by hand).
  if ((phase === 'Released' || phase === 'Failed') && i.released) {
    if (policy !== 'Delete') return { action: 'none', why: `reclaim policy is ${policy}: the admin decides` };
    if (!i.pvJob) return i.openJob ? { action: 'none', why: `another cleanup of the disk is open (${i.openJob.state})` } : { action: 'recordCleanup' };
    if (i.pvJob.state === 'succeeded') return { action: 'deletePv', why: 'the disk was wiped' };
    return { action: 'none', why: `cleanup ${i.pvJob.state}` };
  }

  const diskGone = !disk || !disk.present || !disk.eligible;
  const bound = !!pv.spec?.claimRef;
  if (diskGone && !bound && phase !== 'Bound') {
    return { action: 'deletePv', why: `the disk ${!disk || !disk.present ? 'is gone' : `is no longer eligible: ${disk.reason ?? ''}`}` };
  }

  const set: Record<string, string | undefined> = {};
  let event: EventSpec | undefined;
  const missingNow = diskGone ? 'true' : undefined;
  if (annotations(pv)[annDiskMissing] !== missingNow) {
    set[annDiskMissing] = missingNow;
    event = diskGone
      ? { type: 'Warning', reason: reasons.diskMissing, message: `the node's agent no longer reports the disk at ${pv.spec?.local?.path ?? '?'}; the claim keeps the volume` }
      : { type: 'Normal', reason: reasons.diskFound, message: 'the disk is reported again' };
  }
  const lostNow = i.nodeReady ? undefined : 'true';
  if (annotations(pv)[annNodeNotReporting] !== lostNow) {
    set[annNodeNotReporting] = lostNow;
    event ??= i.nodeReady
      ? { type: 'Normal', reason: reasons.nodeReporting, message: 'the node reports again' }
      : { type: 'Warning', reason: reasons.nodeNotReporting, message: `node ${annotations(pv)[annLocalNode] ?? ''} stopped reporting; the volume is kept` };
  }
  if (Object.keys(set).length > 0) return { action: 'annotate', set, event };
  return { action: 'none', why: `phase ${phase ?? 'unset'}, nothing to do` };
}

/**
 * Upstream discovery (discoverVolumesAtPath) on an entry that already has its PV: a Block PV
 * whose entry is now a directory gets a Warning `VolumeFailedDelete` "incorrect Volume Mode"
 * on every pass, and is otherwise left as it is. `containerPath` is the entry as the agent
 * sees it (mountDir/<entry>), the path upstream names.
 */
export function volumeModeWarning(pv: PersistentVolume | undefined, disk: DiskFacts | undefined, containerPath: string): EventSpec | undefined {
  if (!pv || !disk?.present || pv.spec?.volumeMode !== 'Block' || disk.volumeMode !== 'Filesystem') return undefined;
  return {
    type: 'Warning',
    reason: reasons.volumeFailedDelete,
    message: `incorrect Volume Mode: PV "${pv.metadata.name}" requires block mode but path "${containerPath}" was in fs mode`,
  };
}

/** How soon a Released volume of a class missing from the map is looked at again (upstream: each discovery pass). */
export const unknownClassRetryMs = 10_000;

export interface CleanupFacts {
  pvName: string;
  nodeName: string;
  hostPath: string;
  /** The volume whose disk is to be wiped. */
  pv: PersistentVolume;
  /** The disk's class: the one its report names, else the volume's. */
  className: string;
  /** What the disk is, as its agent reports it (undefined: not reported). */
  diskMode?: 'Filesystem' | 'Block';
  /** The class's entry in the node's storageClassMap; undefined when the class is no longer in it. */
  classConfig?: Pick<LocalClassConfig, 'blockCleanerCommand' | 'fsType'>;
  /** decide's quarantine reason, if the cleanup is recorded quarantined. */
  quarantine?: string;
}

/**
 *   waitForClass  the class is no longer in the storageClassMap: a Warning, and a look again later
 *   record        record this cleanup job (quarantined when `job.lastError` says why)
 */
export type CleanupStep = { action: 'waitForClass'; event: EventSpec; retryMs: number } | { action: 'record'; job: NewJob };

/** The cleanup job a recordCleanup decision records, after upstream's deleter. */
export function cleanupStep(f: CleanupFacts): CleanupStep {
  const cls = f.classConfig;
  if (!cls && !f.quarantine && !f.pv.metadata.deletionTimestamp) {
    // Upstream's deleter: a class no longer in the storageClassMap is not cleaned (nothing
    // says how); a Warning each pass, and the cleanup starts once the class is back.
    return {
      action: 'waitForClass',
      event: { type: 'Warning', reason: reasons.volumeFailedDelete, message: `Error cleaning PV "${f.pvName}": Unknown storage class name ${f.className}` },
      retryMs: unknownClassRetryMs,
    };
  }
  // What the disk is decides the cleanup (upstream deleter's GetVolumeMode of the path), not
  // the PV's volumeMode: a block device offered as a Filesystem volume is wiped as a device.
  const mode: 'Filesystem' | 'Block' = (f.diskMode ?? f.pv.spec?.volumeMode) === 'Block' ? 'Block' : 'Filesystem';
  const plan = chooseCleanupMethod(mode, cls?.blockCleanerCommand ?? []);
  const quarantine = f.quarantine ?? (plan.ok ? undefined : `no cleanup method: ${plan.message}`);
  const method = plan.ok ? plan.plan.method : mode === 'Block' ? 'fs-reset' : 'files';
  return {
    action: 'record',
    job: {
      nodeName: f.nodeName,
      pvName: f.pvName,
      pvUid: f.pv.metadata.uid ?? '',
      hostPath: f.hostPath,
      className: f.className,
      volumeMode: mode,
      method,
      command: plan.ok && plan.plan.method === 'custom' ? (plan.plan.command ?? []) : [],
      fsType: cls?.fsType ?? '',
      state: quarantine ? 'quarantined' : 'queued',
      lastError: quarantine,
    },
  };
}

/** The Event of a cleanup job just recorded (its id is the store's). */
export function cleanupRecordedEvent(job: NewJob, id: string): EventSpec {
  if (job.state === 'quarantined') return { type: 'Warning', reason: reasons.cleanupQuarantined, message: job.lastError ?? '' };
  return {
    type: 'Normal',
    reason: reasons.cleanupQueued,
    message: `cleanup ${id} (${job.method}) queued for ${job.hostPath} on node ${job.nodeName}; the volume is deleted when it succeeds`,
  };
}

// The VolumeBackup controller on the shared runtime. For each VolumeBackup (key
// <namespace>/<name>) it gathers the facts (the backup, its target, the snapshot it reads
// and that snapshot's claim, where the snapshot's data is on a node, the data jobs), asks
// decide.ts for the next step, acts, and asks again until the step is to wait.
//
// Restart-safe: everything is derived from objects and job rows. The snapshot taken for a
// claim has a name derived from the backup's uid, the jobs have keys derived from it, and a
// job queued twice is one job (DataJobQueue.ensure), so a kill -9 anywhere and a restart
// finish the work without doing anything twice.
import type { Logger } from 'pino';
import type { DataJobQueue } from '../../contracts/data-jobs';
import { isStowageError } from '../../domain/errors';
import { pickParent, takenSnapshotName, type BackupCandidate } from '../../domain/volume-backup';
import { backupSourceProtectionFinalizer, volumeBackupFinalizer } from '../../domain/well-known/finalizers';
import { labelBackupId, labelVolumeBackup } from '../../domain/well-known/labels';
import { SNAPSHOT_API_VERSION } from '../../resources/snapshot-fields';
import type { VolumeBackup } from '../../resources/volume-backup/schema';
import type { VolumeSnapshot } from '../../resources/volume-snapshot/schema';
import type { EventRecorder } from '../../services/event-recorder';
import { admitObjectQuota } from '../../services/quota-admission';
import { reasons } from '../../domain/well-known/event-reasons';
import type { ObjectStore } from '../../store/object-store';
import { dismissImport } from '../../store/backup-imports';
import { AssetStore } from '../../store/provisioned-assets';
import type { ControllerSpec, ReconcileContext, ReconcileResult } from '../runtime/controller';
import { event } from '../runtime/event';
import { write } from '../runtime/write';
import { backupJobKey, backupSnapshotClass, decideBackup, deleteJobKey, verifyJobKey, sameStatus, WAIT_MS, type BackupFacts, type BackupStatus, type EventToRecord, type SnapshotData, type Step } from './decide';
import { metaTime } from '../../domain/meta-time';

const VB = 'VolumeBackup';
const VS = 'VolumeSnapshot';
const PVC = 'PersistentVolumeClaim';
export const volumeBackupControllerName = 'volume-backup';

export interface VolumeBackupDeps {
  store: ObjectStore;
  log: Logger;
  /** The data jobs (server/store/data-jobs.ts in production). */
  jobs: DataJobQueue;
  /** This installation's id (store/installation.ts). */
  installation: () => Promise<string>;
  assets?: AssetStore;
  /** Its Event recorder (runtime/recorders.ts, keyed by its component). */
  events: EventRecorder;
  now?: () => Date;
}

type Deps = Required<VolumeBackupDeps>;

const keyOf = (namespace: string, name: string) => `${namespace}/${name}`;
/** Steps one reconcile takes at most before it looks again later. */
const MAX_STEPS = 12;

/** Where a snapshot's data is, from its content and the provisioner's asset record. */
async function snapshotData(d: Deps, vs: VolumeSnapshot | undefined): Promise<{ data?: SnapshotData; driver?: string }> {
  const contentName = vs?.status?.boundVolumeSnapshotContentName;
  if (!contentName) return {};
  const content = await d.store.tryGet('VolumeSnapshotContent', undefined, contentName);
  const driver = content?.spec?.driver;
  if (!content || !driver) return { driver };
  const rec = await d.assets.get(driver, contentName);
  if (!rec || typeof rec.details.path !== 'string') return { driver };
  const pvName = typeof rec.details.source === 'string' ? rec.details.source : content.spec?.source?.volumeHandle;
  return { driver, data: { provisioner: driver, node: rec.node, path: rec.details.path, pvName, ready: rec.state === 'created' } };
}

/** The previous Completed backup of the same volume in the same target, and its snapshot's path when still on `node`. */
async function parentOf(d: Deps, b: VolumeBackup, data: SnapshotData): Promise<BackupFacts['parent']> {
  const target = b.spec?.backupTargetName;
  if (!data.pvName || !target) return undefined;
  const all = (await d.store.list(VB, { namespace: b.metadata.namespace ?? '' })).items;
  const candidates: BackupCandidate[] = all.map((x) => ({
    uid: x.metadata.uid ?? '',
    pvName: x.status?.pvName,
    targetName: x.status?.backupTargetName,
    phase: x.status?.phase,
    completionTime: x.status?.completionTime,
    snapshotName: x.status?.snapshotName,
  }));
  // An imported backup's uid is not its id in the target: only backups made here are parents.
  const own = candidates.filter((c) => !all.find((x) => x.metadata.uid === c.uid)?.status?.imported);
  const parent = pickParent(own, data.pvName, target, b.metadata.uid ?? '');
  if (!parent) return undefined;
  const vs = parent.snapshotName ? await d.store.tryGet(VS, b.metadata.namespace, parent.snapshotName) : undefined;
  const prev = vs && vs.status?.readyToUse && !vs.metadata.deletionTimestamp ? (await snapshotData(d, vs)).data : undefined;
  return { backupId: parent.uid, ...(prev && prev.ready && prev.node === data.node ? { sourcePath: prev.path } : {}) };
}

async function gather(d: Deps, b: VolumeBackup): Promise<BackupFacts> {
  const ns = b.metadata.namespace ?? '';
  const source = b.spec?.source ?? {};
  const targetName = b.spec?.backupTargetName;
  const target = targetName ? await d.store.tryGet('BackupTarget', undefined, targetName) : undefined;
  const snapshotName = source.volumeSnapshotName ?? (source.persistentVolumeClaimName !== undefined ? takenSnapshotName(b.metadata.name ?? '', b.metadata.uid ?? '') : undefined);
  const snapshot = snapshotName ? await d.store.tryGet(VS, ns, snapshotName) : undefined;
  const claimName = source.persistentVolumeClaimName ?? snapshot?.spec?.source?.persistentVolumeClaimName;
  const claim = claimName ? await d.store.tryGet(PVC, ns, claimName) : undefined;
  const uid = b.metadata.uid ?? '';
  const [job, deleteJob, verifyJob] = await Promise.all([d.jobs.get(backupJobKey(uid)), d.jobs.get(deleteJobKey(uid)), d.jobs.get(verifyJobKey(uid))]);
  const facts: BackupFacts = {
    backup: b,
    target,
    claim,
    snapshot,
    job,
    deleteJob,
    verifyJob,
    reachableNodes: (target?.status?.nodes ?? []).filter((n) => n.reachable && n.node).map((n) => n.node!),
    installation: await d.installation(),
    now: metaTime(d.now()),
  };
  // Where the data is matters only until the job is queued.
  if (!job && !b.metadata.deletionTimestamp && !b.status?.imported && snapshot?.status?.readyToUse) {
    const { data, driver } = await snapshotData(d, snapshot);
    facts.data = data;
    facts.driver = driver;
    if (data?.pvName) {
      const pv = await d.store.tryGet('PersistentVolume', undefined, data.pvName);
      facts.storageClassName = pv?.spec?.storageClassName;
      facts.parent = await parentOf(d, b, data);
    }
  }
  return facts;
}

async function changeBackup(d: Deps, ctx: ReconcileContext, read: VolumeBackup, change: (b: VolumeBackup) => boolean, subresource?: 'status'): Promise<void> {
  await write(d, ctx, async (tx) => {
    const b = await tx.get(VB, read.metadata.namespace, read.metadata.name ?? '');
    if (!b || b.metadata.uid !== read.metadata.uid || !change(b)) return;
    await tx.update(b, subresource ? { subresource } : {});
  });
}

async function writeStatus(d: Deps, ctx: ReconcileContext, read: VolumeBackup, status: BackupStatus): Promise<void> {
  if (sameStatus(read.status, status)) return;
  await changeBackup(d, ctx, read, (b) => ((b.status = status), true), 'status');
}

/** Adds or removes `finalizer` on a snapshot or a claim of the backup's namespace. */
async function setFinalizer(d: Deps, ctx: ReconcileContext, kind: typeof VS | typeof PVC, namespace: string, name: string, on: boolean): Promise<void> {
  await write(d, ctx, async (tx) => {
    const o = (await tx.get(kind, namespace, name));
    if (!o) return;
    const has = o.metadata.finalizers?.includes(backupSourceProtectionFinalizer) ?? false;
    if (has === on) return;
    // An object on its way out takes no new finalizer (the store refuses it anyway).
    if (on && o.metadata.deletionTimestamp) return;
    o.metadata.finalizers = on ? [...(o.metadata.finalizers ?? []), backupSourceProtectionFinalizer] : (o.metadata.finalizers ?? []).filter((f) => f !== backupSourceProtectionFinalizer);
    await tx.update(o);
  });
}

async function record(d: Deps, b: VolumeBackup, e: EventToRecord | undefined): Promise<void> {
  if (e) await event(d, b, e.type, e.reason, e.message);
}

async function takeSnapshot(d: Deps, ctx: ReconcileContext, b: VolumeBackup, name: string): Promise<ReconcileResult | undefined> {
  const claimName = b.spec?.source?.persistentVolumeClaimName ?? '';
  const claim = await d.store.tryGet(PVC, b.metadata.namespace, claimName);
  const cls = claim?.spec?.storageClassName ? await d.store.tryGet('StorageClass', undefined, claim.spec.storageClassName) : undefined;
  const chosen = backupSnapshotClass(await d.store.current('VolumeSnapshotClass'), cls?.provisioner);
  if (chosen.problem) {
    await event(d, b, 'Warning', reasons.backupWaiting, chosen.problem);
    return { requeueAfter: WAIT_MS };
  }
  const vs: VolumeSnapshot = {
    apiVersion: SNAPSHOT_API_VERSION,
    kind: VS,
    metadata: { name, namespace: b.metadata.namespace, labels: { [labelVolumeBackup]: b.metadata.name ?? '' } },
    spec: { source: { persistentVolumeClaimName: claimName }, ...(chosen.name ? { volumeSnapshotClassName: chosen.name } : {}) },
  };
  try {
    await write(d, ctx, async (tx) => {
      // The namespace's quotas hold for the backup's snapshot as for a user's.
      if (!(await tx.get(VS, b.metadata.namespace, name))) await admitObjectQuota(tx, await tx.create(vs));
    });
  } catch (e) {
    if (isStowageError(e) && e.code === 'AlreadyExists') return undefined;
    // As upstream's controllers: a Warning on the backup, and tried again with backoff.
    if (isStowageError(e) && e.code === 'Forbidden') await event(d, b, 'Warning', reasons.failedCreate, `Error creating VolumeSnapshot ${name}: ${e.message}`);
    throw e;
  }
  return undefined;
}

/** Carries out one step; answers when to look again (undefined: decide again now). */
async function act(d: Deps, ctx: ReconcileContext, b: VolumeBackup, step: Step): Promise<ReconcileResult | 'done' | undefined> {
  const ns = b.metadata.namespace ?? '';
  switch (step.do) {
    case 'none':
      return 'done';
    case 'addFinalizer':
      await changeBackup(d, ctx, b, (x) => {
        if (x.metadata.finalizers?.includes(volumeBackupFinalizer) || x.metadata.deletionTimestamp) return false;
        x.metadata.finalizers = [...(x.metadata.finalizers ?? []), volumeBackupFinalizer];
        return true;
      });
      return undefined;
    case 'takeSnapshot':
      return takeSnapshot(d, ctx, b, step.name);
    case 'protect':
      if (step.snapshot) await setFinalizer(d, ctx, VS, ns, step.snapshot, true);
      if (step.claim) await setFinalizer(d, ctx, PVC, ns, step.claim, true);
      return undefined;
    case 'queue':
      // The job row is the intent: queued first, then the status says so (a restart between
      // finds the job and writes the status from it).
      await d.jobs.ensure(step.key, step.node, step.spec);
      await writeStatus(d, ctx, b, step.status);
      await record(d, b, step.event);
      return undefined;
    case 'retry':
      await d.jobs.retry(step.key);
      await writeStatus(d, ctx, b, step.status);
      await record(d, b, step.event);
      return undefined;
    case 'status':
      await writeStatus(d, ctx, b, step.status);
      await record(d, b, step.event);
      return undefined;
    case 'release':
      if (step.unprotectSnapshot) await setFinalizer(d, ctx, VS, ns, step.unprotectSnapshot, false);
      if (step.unprotectClaim) await setFinalizer(d, ctx, PVC, ns, step.unprotectClaim, false);
      if (step.deleteSnapshot) {
        const name = step.deleteSnapshot;
        await write(d, ctx, async (tx) => {
          const vs = await tx.get(VS, ns, name);
          if (vs && !vs.metadata.deletionTimestamp && vs.metadata.labels?.[labelVolumeBackup] === b.metadata.name) await tx.delete(VS, ns, name, { preconditions: { uid: vs.metadata.uid } });
        });
      }
      if (step.forget) await d.jobs.forget(step.forget);
      return undefined;
    case 'queueDelete':
    case 'queueVerify':
      await d.jobs.ensure(step.key, step.node, step.spec);
      return undefined;
    case 'verified':
      await writeStatus(d, ctx, b, step.status);
      await record(d, b, step.event);
      await d.jobs.forget(step.forget);
      return undefined;
    case 'dropFinalizer':
      // An imported backup removed here is not imported again while its target lists it.
      if (b.status?.imported && b.metadata.labels?.[labelBackupId] && b.spec?.backupTargetName) await dismissImport(d.store, b.spec.backupTargetName, b.metadata.labels[labelBackupId]);
      await record(d, b, step.event);
      await changeBackup(d, ctx, b, (x) => {
        if (!x.metadata.finalizers?.includes(volumeBackupFinalizer)) return false;
        x.metadata.finalizers = x.metadata.finalizers.filter((f) => f !== volumeBackupFinalizer);
        return true;
      });
      for (const key of step.forget) await d.jobs.forget(key);
      return 'done';
    case 'wait':
      if (step.status) await writeStatus(d, ctx, b, step.status);
      await record(d, b, step.event);
      return { requeueAfter: step.requeueMs };
  }
}

export async function syncBackup(d: Deps, ctx: ReconcileContext, namespace: string, name: string): Promise<ReconcileResult | void> {
  for (let i = 0; i < MAX_STEPS; i++) {
    const b = await d.store.tryGet(VB, namespace, name);
    if (!b) return;
    const step = decideBackup(await gather(d, b));
    const next = await act(d, ctx, b, step);
    if (next === 'done') return;
    if (next) return next;
  }
  // Many steps in one go (a backup created and queued at once): the rest a moment later.
  return { requeueAfter: 500 };
}

export function volumeBackupSpec(deps: VolumeBackupDeps, opts: { resyncMs?: number; concurrency?: number } = {}): ControllerSpec {
  const d: Deps = {
    ...deps,
    assets: deps.assets ?? new AssetStore(deps.store),
    now: deps.now ?? (() => new Date()),
  };
  const keys = async () => (await d.store.list(VB)).items.map((b) => keyOf(b.metadata.namespace ?? '', b.metadata.name ?? ''));
  return {
    name: volumeBackupControllerName,
    concurrency: opts.concurrency ?? 4,
    watch: {
      kinds: [VB, VS],
      keysFor: (e) => {
        if (e.kind === VB) return [keyOf(e.namespace ?? '', e.name)];
        // A snapshot taken for a backup: that backup. (Named snapshots are looked at on the backup's own requeue.)
        const owner = e.object?.metadata.labels?.[labelVolumeBackup];
        return owner ? [keyOf(e.namespace ?? '', owner)] : [];
      },
    },
    listKeys: keys,
    resync: { everyMs: opts.resyncMs ?? WAIT_MS * 3, listKeys: keys },
    reconcile: (key, ctx) => {
      const [namespace, name] = key.split('/');
      return syncBackup(d, ctx, namespace, name);
    },
  };
}

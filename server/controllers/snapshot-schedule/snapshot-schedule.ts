// The snapshot-schedule controller on the shared runtime: for each SnapshotSchedule (key
// <namespace>/<name>) it reads the namespace's claims and the schedule's snapshots, asks
// decide.ts what the current slot needs, creates the missing VolumeSnapshots under their
// deterministic names, deletes its own snapshots beyond `keep`, and writes the status. It
// then looks again when the next slot starts. In a namespace being deleted it does nothing
// (creates there are refused until the namespace controller has removed the schedule).
//
// Idempotent across restarts, replicas and leader changes: a slot's snapshot has one name, so
// whoever leads computes the same name and a second create finds it (or fails with
// AlreadyExists, which is the same outcome). Nothing is remembered in memory between looks.
import type { Logger } from 'pino';
import { isStowageError } from '../../domain/errors';
import { labelSnapshotSchedule, labelSnapshotSlot } from '../../domain/snapshot-schedule';
import { reasons } from '../../domain/well-known/event-reasons';
import type { SnapshotSchedule } from '../../resources/snapshot-schedule/schema';
import { SNAPSHOT_API_VERSION } from '../../resources/snapshot-fields';
import { admitBackupTarget } from '../../resources/backup-target/default-target';
import type { VolumeBackup } from '../../resources/volume-backup/schema';
import type { VolumeSnapshot } from '../../resources/volume-snapshot/schema';
import type { EventRecorder } from '../../services/event-recorder';
import { admitObjectQuota } from '../../services/quota-admission';
import type { ObjectStore } from '../../store/object-store';
import type { ControllerSpec, ReconcileContext, ReconcileResult } from '../runtime/controller';
import { event } from '../runtime/event';
import { write } from '../runtime/write';
import { type BackupToMake, decideSchedule, type ScheduleStatus, type SnapshotToTake } from './decide';

const SCHEDULE = 'SnapshotSchedule';
const VS = 'VolumeSnapshot';
const VB = 'VolumeBackup';
export const snapshotScheduleControllerName = 'snapshot-schedule';

export interface SnapshotScheduleDeps {
  store: ObjectStore;
  log: Logger;
  /** Its Event recorder (runtime/recorders.ts, keyed by its component). */
  events: EventRecorder;
  /** The clock (ms since the epoch); tests move it. */
  now?: () => number;
}

type Deps = Required<SnapshotScheduleDeps>;

const keyOf = (namespace: string, name: string) => `${namespace}/${name}`;

function snapshotFor(s: SnapshotSchedule, t: SnapshotToTake): VolumeSnapshot {
  const cls = s.spec?.snapshotClassName;
  return {
    apiVersion: SNAPSHOT_API_VERSION,
    kind: VS,
    metadata: { name: t.name, namespace: s.metadata.namespace, labels: { [labelSnapshotSchedule]: s.metadata.name ?? '', [labelSnapshotSlot]: t.stamp } },
    spec: { source: { persistentVolumeClaimName: t.claim }, ...(cls ? { volumeSnapshotClassName: cls } : {}) },
  };
}

/** Creates the slot's snapshot unless it exists; false when it already did (another replica, a restart). */
async function take(d: Deps, ctx: ReconcileContext, s: SnapshotSchedule, t: SnapshotToTake): Promise<boolean> {
  try {
    return await write(d, ctx, async (tx) => {
      if (await tx.get(VS, s.metadata.namespace, t.name)) return false;
      // The namespace's quotas hold for the schedule's snapshots as for a user's.
      await admitObjectQuota(tx, await tx.create(snapshotFor(s, t)));
      return true;
    });
  } catch (e) {
    if (isStowageError(e) && e.code === 'AlreadyExists') return false;
    // As upstream's controllers: a Warning on the schedule, and tried again with backoff.
    if (isStowageError(e) && e.code === 'Forbidden') await event(d, s, 'Warning', reasons.failedCreate, `Error creating: ${e.message}`);
    throw e;
  }
}

/** Deletes one of the schedule's snapshots, if it is still the schedule's and not going already. */
async function prune(d: Deps, ctx: ReconcileContext, s: SnapshotSchedule, name: string): Promise<boolean> {
  return write(d, ctx, async (tx) => {
    const vs = await tx.get(VS, s.metadata.namespace, name);
    if (!vs || vs.metadata.deletionTimestamp || vs.metadata.labels?.[labelSnapshotSchedule] !== s.metadata.name) return false;
    await tx.delete(VS, s.metadata.namespace, name);
    return true;
  });
}

/** Creates the backup of one of the schedule's snapshots unless it exists; false when it did, or no target can be had. */
async function backUp(d: Deps, ctx: ReconcileContext, s: SnapshotSchedule, b: BackupToMake): Promise<boolean> {
  const ns = s.metadata.namespace;
  try {
    const made = await write(d, ctx, async (tx): Promise<boolean | string> => {
      if (await tx.get(VB, ns, b.name)) return false;
      const target = s.spec?.backup?.targetName;
      const vb: VolumeBackup = {
        apiVersion: 'stowage.io/v1',
        kind: VB,
        metadata: { name: b.name, namespace: ns, labels: { [labelSnapshotSchedule]: s.metadata.name ?? '', [labelSnapshotSlot]: b.stamp } },
        spec: { source: { volumeSnapshotName: b.snapshot }, ...(target ? { backupTargetName: target } : {}) },
      };
      // As a user's create: the default target when none is named; refused when there is none.
      const refused = admitBackupTarget(vb, (await d.store.list('BackupTarget')).items);
      if (refused.length > 0) return `Error creating VolumeBackup ${b.name}: ${refused.map((e) => `${e.field}: ${e.message}`).join('; ')}`;
      await admitObjectQuota(tx, await tx.create(vb));
      return true;
    });
    if (typeof made === 'string') {
      await event(d, s, 'Warning', reasons.failedCreate, made);
      return false;
    }
    return made;
  } catch (e) {
    if (isStowageError(e) && e.code === 'AlreadyExists') return false;
    if (isStowageError(e) && e.code === 'Forbidden') await event(d, s, 'Warning', reasons.failedCreate, `Error creating: ${e.message}`);
    throw e;
  }
}

/** Deletes one of the schedule's backups, if it is still the schedule's, Completed, and not going already. */
async function pruneBackup(d: Deps, ctx: ReconcileContext, s: SnapshotSchedule, name: string): Promise<boolean> {
  return write(d, ctx, async (tx) => {
    const vb = await tx.get(VB, s.metadata.namespace, name);
    if (!vb || vb.metadata.deletionTimestamp || vb.metadata.labels?.[labelSnapshotSchedule] !== s.metadata.name || vb.status?.phase !== 'Completed') return false;
    await tx.delete(VB, s.metadata.namespace, name);
    return true;
  });
}

function sameStatus(a: SnapshotSchedule['status'], b: ScheduleStatus): boolean {
  return JSON.stringify(a ?? {}) === JSON.stringify(b);
}

async function writeStatus(d: Deps, ctx: ReconcileContext, read: SnapshotSchedule, status: ScheduleStatus): Promise<void> {
  if (sameStatus(read.status, status)) return;
  await write(d, ctx, async (tx) => {
    const s = await tx.get(SCHEDULE, read.metadata.namespace, read.metadata.name ?? '');
    if (!s || s.metadata.uid !== read.metadata.uid) return;
    s.status = status;
    await tx.update(s, { subresource: 'status' });
  });
}

export async function syncSchedule(d: Deps, ctx: ReconcileContext, namespace: string, name: string): Promise<ReconcileResult | void> {
  const schedule = await d.store.tryGet(SCHEDULE, namespace, name);
  if (!schedule) return;
  const ns = await d.store.tryGet('Namespace', undefined, namespace);
  const claims = (await d.store.list('PersistentVolumeClaim', { namespace })).items;
  const snapshots = (await d.store.list(VS, { namespace, labelSelector: `${labelSnapshotSchedule}=${name}` })).items;
  const backups = schedule.spec?.backup
    ? (await d.store.list(VB, { namespace, labelSelector: `${labelSnapshotSchedule}=${name}` })).items
    : [];
  const step = decideSchedule({ schedule, claims, snapshots, backups, now: d.now(), namespaceTerminating: Boolean(ns?.metadata.deletionTimestamp) });
  if (step.action === 'none') return;

  for (const t of step.take) {
    if (await take(d, ctx, schedule, t)) await event(d, schedule, 'Normal', reasons.snapshotTaken, `Created VolumeSnapshot ${t.name} of claim ${t.claim}`);
  }
  for (const n of step.prune) {
    if (await prune(d, ctx, schedule, n)) await event(d, schedule, 'Normal', reasons.snapshotPruned, `Deleted VolumeSnapshot ${n}: more than ${schedule.spec?.keep} snapshots of its claim`);
  }
  for (const b of step.backup) {
    if (await backUp(d, ctx, schedule, b)) await event(d, schedule, 'Normal', reasons.backupCreated, `Created VolumeBackup ${b.name} of snapshot ${b.snapshot}`);
  }
  for (const n of step.pruneBackups) {
    if (await pruneBackup(d, ctx, schedule, n)) await event(d, schedule, 'Normal', reasons.backupPruned, `Deleted VolumeBackup ${n}: more than ${schedule.spec?.backup?.keep} Completed backups of its claim`);
  }
  await writeStatus(d, ctx, schedule, step.status);
  return { requeueAfter: Math.max(step.requeueAfterMs, 1) };
}

export function snapshotScheduleSpec(deps: SnapshotScheduleDeps, opts: { resyncMs?: number; concurrency?: number } = {}): ControllerSpec {
  const d: Deps = {
    ...deps,
    now: deps.now ?? Date.now,
  };
  const keys = async () => (await d.store.list(SCHEDULE)).items.map((s) => keyOf(s.metadata.namespace ?? '', s.metadata.name ?? ''));
  return {
    name: snapshotScheduleControllerName,
    concurrency: opts.concurrency ?? 2,
    watch: {
      kinds: [SCHEDULE, VS, VB],
      keysFor: (e) => {
        if (e.kind === SCHEDULE) return [keyOf(e.namespace ?? '', e.name)];
        // A snapshot or backup of a schedule changed or deleted (a backup ending frees its snapshot): the schedule looks again.
        const owner = e.object?.metadata.labels?.[labelSnapshotSchedule];
        return owner ? [keyOf(e.namespace ?? '', owner)] : [];
      },
    },
    listKeys: keys,
    resync: { everyMs: opts.resyncMs ?? 60_000, listKeys: keys },
    reconcile: (key, ctx) => {
      const [namespace, name] = key.split('/');
      return syncSchedule(d, ctx, namespace, name);
    },
  };
}

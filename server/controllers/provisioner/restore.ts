// Provisioning a claim whose dataSourceRef is a VolumeBackup (backups-spec, "Restore"): the
// checks first (the backup exists in the namespace and is Completed, the format fits the
// class, the claim is large enough), then an empty volume through the plugin as usual, then
// a `restore/<pvName>` data job on the volume's node. The claim stays Pending meanwhile,
// with an event RestoreStarted and its progress in an annotation; the PV is saved (and the
// claim binds) only once the job succeeded. A failed restore is a Warning RestoreFailed
// naming the backup and the chunk; the half-filled volume is deleted through the plugin and
// the claim is not tried again until the failure mark is removed from it or a long backoff
// has passed.
import { dataSourceKind, dataSourceOf } from '../../domain/data-source';
import { checkRestore } from '../../domain/restore-from-backup';
import type { DataJob } from '../../contracts/data-jobs';
import type { ProvisionOptions, ProvisionedVolume, ProvisionerPlugin, ProvisionResult } from '../../provisioners/plugin';
import { failed, ProvisioningError } from '../../provisioners/plugin';
import type { PersistentVolumeClaim } from '../../resources/persistent-volume-claim/schema';
import type { StorageClass } from '../../resources/storage-class/schema';
import type { ReconcileContext, ReconcileResult } from '../runtime/controller';
import { event } from '../runtime/event';
import { write } from '../runtime/write';
import { errorText } from '../runtime/errors';
import type { ProvisioningDeps, RestoreDeps } from './deps';
import { saveVolume } from './save-volume';
import { labelHostname } from '../../domain/well-known/labels';
import { DataJobStore } from '../../store/data-jobs';
import type { ObjectStore } from '../../store/object-store';
import { backupIdOf } from '../../domain/volume-backup';

/** The claim's restore progress, in percent ("45"). */
export const annRestoreProgress = 'backup.stowage.io/restore-progress';
/** When the claim's last restore failed (RFC 3339): no new attempt until it is removed or RESTORE_RETRY_MS passed. */
export const annRestoreFailed = 'backup.stowage.io/restore-failed';
export const restoreReasons = { started: 'RestoreStarted', completed: 'RestoreCompleted', failed: 'RestoreFailed', waiting: 'RestoreWaiting' } as const;
export const RESTORE_RETRY_MS = 30 * 60_000;

const PVC = 'PersistentVolumeClaim';

/** Where the new volume's data lives on its node: its directory (files) or its image file (loop). */
export function destinationOf(v: ProvisionedVolume, format: 'files' | 'image'): string | undefined {
  if (format === 'image') return typeof v.asset.file === 'string' ? v.asset.file : undefined;
  const src = v.source as { local?: { path?: unknown }; hostPath?: { path?: unknown } };
  const p = src.local?.path ?? src.hostPath?.path;
  return typeof p === 'string' ? p : undefined;
}

/** The node a volume lives on: its node affinity's hostname, else the provisioner's own node. */
function nodeOfVolume(v: ProvisionedVolume, fallback: string): string {
  for (const t of v.nodeAffinity?.required?.nodeSelectorTerms ?? []) {
    for (const e of t.matchExpressions ?? []) if (e.key === labelHostname && e.operator === 'In' && e.values?.length === 1) return e.values[0];
  }
  return fallback;
}

async function annotate(d: ProvisioningDeps, ctx: ReconcileContext, claim: PersistentVolumeClaim, set: Record<string, string | undefined>): Promise<void> {
  await write(d, ctx, async (tx) => {
    const c = await tx.get(PVC, claim.metadata.namespace, claim.metadata.name!);
    if (!c || c.metadata.uid !== claim.metadata.uid || c.spec?.volumeName) return;
    const a = { ...(c.metadata.annotations ?? {}) };
    let changed = false;
    for (const [k, v] of Object.entries(set)) {
      if (a[k] === v) continue;
      changed = true;
      if (v === undefined) delete a[k];
      else a[k] = v;
    }
    if (!changed) return;
    c.metadata.annotations = a;
    await tx.update(c);
  });
}

function percent(job: DataJob): string {
  const done = BigInt(job.progress?.doneBytes ?? '0');
  const total = BigInt(job.progress?.totalBytes ?? '0');
  if (total === 0n) return '0';
  return String(Number((done * 100n) / total > 100n ? 100n : (done * 100n) / total));
}

async function provisionEmpty(plugin: ProvisionerPlugin, options: ProvisionOptions): Promise<ProvisionResult> {
  try {
    return await plugin.provision({ ...options, source: undefined });
  } catch (err) {
    return failed(err);
  }
}

/**
 * One look at a restoring claim. `fail` reports a ProvisioningFailed and throws (the
 * runtime's backoff); the answer asks to be looked at again while the job runs.
 */
export async function provisionRestore(
  d: ProvisioningDeps,
  ctx: ReconcileContext,
  claim: PersistentVolumeClaim,
  storageClass: StorageClass,
  plugin: ProvisionerPlugin,
  pvName: string,
  options: ProvisionOptions,
  fail: (error: unknown) => Promise<never>,
): Promise<ReconcileResult | void> {
  const r = d.restores;
  if (!r) return fail(new ProvisioningError('restoring a volume from a VolumeBackup is not available in this installation'));
  const ns = claim.metadata.namespace ?? '';
  const name = dataSourceOf(claim)?.name ?? '';
  const key = `restore/${pvName}`;
  const failedAt = claim.metadata.annotations?.[annRestoreFailed];
  if (failedAt) {
    const left = Date.parse(failedAt) + RESTORE_RETRY_MS - Date.now();
    if (Number.isFinite(left) && left > 0) return { requeueAfter: left };
  }
  let job = await r.jobs.get(key);
  if (!job) {
    const backup = await r.backups.get(ns, name);
    const check = checkRestore(name, backup, plugin.name, options.requestBytes);
    if (!check.ok && check.wait) {
      await event(d, claim, 'Normal', restoreReasons.waiting, check.message);
      return { requeueAfter: 10_000 };
    }
    if (!check.ok) return fail(new ProvisioningError(check.message));
    // A loop volume's image is attached (and its filesystem mounted) as soon as it is made:
    // writing a backup's image under it would corrupt both. Until the loop plugin can take
    // the image before it attaches it, an image restore is refused rather than risked.
    if (check.format === 'image') return fail(new ProvisioningError(`restoring VolumeBackup "${name}" (an image) into a loop class is not available yet`));
    const targetPath = await r.targetPath(check.targetName);
    if (!targetPath) {
      await event(d, claim, 'Normal', restoreReasons.waiting, `backup target "${check.targetName}" of VolumeBackup "${name}" does not exist`);
      return { requeueAfter: 10_000 };
    }
    const made = await provisionEmpty(plugin, options);
    if (made.state !== 'finished' || !made.volume) {
      if (made.state === 'inBackground') return { requeueAfter: made.retryAfterMs ?? d.backgroundPollMs };
      return fail(made.error ?? new Error(`${plugin.name} returned no volume`));
    }
    const destinationPath = destinationOf(made.volume, check.format);
    if (!destinationPath) return fail(new ProvisioningError(`${plugin.name} did not say where the volume's data lives; cannot restore into it`));
    job = await r.jobs.ensure(key, nodeOfVolume(made.volume, d.node), { kind: 'restore', backupId: check.backupId, targetPath, format: check.format, destinationPath });
    await annotate(d, ctx, claim, { [annRestoreProgress]: '0', [annRestoreFailed]: undefined });
    await event(d, claim, 'Normal', restoreReasons.started, `Restoring volume ${pvName} from VolumeBackup "${name}"`);
  }
  switch (job.state) {
    case 'queued':
    case 'running':
      await annotate(d, ctx, claim, { [annRestoreProgress]: percent(job) });
      return { requeueAfter: r.pollMs ?? 1_000 };
    case 'succeeded': {
      // The plugin's provisioning is idempotent (its intent record): the same volume again.
      const again = await provisionEmpty(plugin, options);
      if (again.state !== 'finished' || !again.volume) return fail(again.error ?? new Error(`${plugin.name} returned no volume`));
      await annotate(d, ctx, claim, { [annRestoreProgress]: '100' });
      const out = await saveVolume(d, ctx, claim, storageClass, plugin, pvName, again.volume);
      await event(d, claim, 'Normal', restoreReasons.completed, `Restored volume ${pvName} from VolumeBackup "${name}"`);
      await r.jobs.forget(key);
      return out;
    }
    case 'failed': {
      const res = job.result && !job.result.ok ? job.result : undefined;
      const chunk = res?.damagedChunk ? ` (chunk ${res.damagedChunk})` : '';
      await event(d, claim, 'Warning', restoreReasons.failed, `Restoring from VolumeBackup "${name}" failed${chunk}: ${res?.error ?? 'the restore job failed'}`);
      const record = await d.assets.get(plugin.name, pvName);
      if (record) {
        try {
          await plugin.deleteAsset(record);
        } catch (err) {
          d.log.warn({ err: errorText(err), pv: pvName }, 'could not delete a volume whose restore failed; the sweep will retry');
          return { requeueAfter: 10_000 };
        }
      }
      await annotate(d, ctx, claim, { [annRestoreFailed]: new Date().toISOString(), [annRestoreProgress]: undefined });
      await r.jobs.forget(key);
      return { requeueAfter: RESTORE_RETRY_MS };
    }
  }
}

/**
 * Forgets the restore job of a claim restored from a backup whose volume exists (saved, or
 * bound): the reconcile that saved it forgets the job right after, but one that stopped in
 * between (a failed event write, a restart) would leave the finished job behind for good,
 * since a provisioned claim never comes back to the restore. Idempotent; other claims cost nothing.
 */
export async function forgetFinishedRestore(d: ProvisioningDeps, claim: PersistentVolumeClaim, pvName: string): Promise<void> {
  if (!d.restores || dataSourceKind(claim) !== 'backup') return;
  await d.restores.jobs.forget(`restore/${pvName}`);
}

/** The default RestoreDeps: VolumeBackups and BackupTargets read from the store as plain objects, jobs in data_jobs. */
export function storeRestores(store: ObjectStore): RestoreDeps {
  return {
    backups: {
      async get(namespace, name) {
        const b = await store.tryGet('VolumeBackup', namespace, name);
        const id = b ? backupIdOf(b) : undefined;
        if (!b || !id) return undefined;
        const st = (b as { status?: Record<string, unknown> }).status ?? {};
        const s = (k: string) => (typeof st[k] === 'string' ? (st[k]) : undefined);
        const format = s('format');
        return {
          uid: id,
          phase: s('phase'),
          backupTargetName: s('backupTargetName'),
          ...(format === 'files' || format === 'image' ? { format } : {}),
          sizeBytes: s('sizeBytes'),
        };
      },
    },
    async targetPath(name) {
      const t = await store.tryGet('BackupTarget', undefined, name);
      const p = (t as { spec?: { path?: unknown } } | undefined)?.spec?.path;
      return typeof p === 'string' && p.startsWith('/') ? p : undefined;
    },
    jobs: new DataJobStore(store),
  };
}

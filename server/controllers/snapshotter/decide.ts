// What upstream's CSI snapshotter sidecar (external-snapshotter pkg/sidecar-controller) does
// with a VolumeSnapshotContent of its driver, as pure decisions: take, check, delete or
// release the physical snapshot. The snapshotter (snapshotter.ts) reads the facts, one of
// these picks the step, it acts through the plugin and the runtime.
import type { VolumeSnapshotContent } from '../../resources/volume-snapshot-content/schema';
import type { VolumeSnapshot } from '../../resources/volume-snapshot/schema';
import { annDeletionSecretRefName, annDeletionSecretRefNamespace, annVolumeSnapshotBeingDeleted } from '../../domain/well-known/annotations';
import { volumeSnapshotContentFinalizer } from '../../domain/well-known/finalizers';

const has = (finalizers: string[] | undefined, f: string) => (finalizers ?? []).includes(f);

/**
 *   none     nothing for the snapshotter
 *   take     take the snapshot of the volume (the content's volumeHandle), then write the content's status
 *   check    a pre-provisioned content not ready yet: ask the driver about its snapshotHandle and
 *            write the content's status (upstream checkandUpdateContentStatus)
 *   delete   deletionPolicy Delete: delete the snapshot, then drop the content finalizer
 *   release  deletionPolicy Retain: keep the snapshot (forget its record), drop the content finalizer
 */
export type SnapshotterAction =
  | { action: 'none'; why: string }
  | { action: 'take'; volumeHandle: string }
  | { action: 'check'; snapshotHandle: string }
  | { action: 'delete' }
  | { action: 'release' };

/** upstream sidecar shouldDelete: an unbound pre-provisioned content, or one whose snapshot is being deleted (or gone). */
function shouldDelete(c: VolumeSnapshotContent, named: VolumeSnapshot | undefined): boolean {
  const uid = c.spec?.volumeSnapshotRef?.uid;
  if (c.spec?.source?.snapshotHandle !== undefined && !uid) return true;
  if (c.metadata.annotations?.[annVolumeSnapshotBeingDeleted] !== undefined) return true;
  return !named || named.metadata.uid !== uid;
}

/** One step of the snapshotter for a content of its driver (upstream sidecar syncContent). */
export function decideSnapshotter(c: VolumeSnapshotContent, named: VolumeSnapshot | undefined): SnapshotterAction {
  if (c.metadata.deletionTimestamp) {
    if (!has(c.metadata.finalizers, volumeSnapshotContentFinalizer)) return { action: 'none', why: 'deleted, without the content finalizer' };
    if (!shouldDelete(c, named)) return { action: 'none', why: 'deleted while its snapshot is not: waits for the snapshot' };
    return c.spec?.deletionPolicy === 'Delete' ? { action: 'delete' } : { action: 'release' };
  }
  const volumeHandle = c.spec?.source?.volumeHandle;
  if (volumeHandle === undefined) {
    const snapshotHandle = c.spec?.source?.snapshotHandle;
    if (snapshotHandle === undefined) return { action: 'none', why: 'no source' };
    if (c.status?.readyToUse === true) return { action: 'none', why: 'pre-provisioned, ready' };
    return { action: 'check', snapshotHandle };
  }
  if (c.status?.readyToUse === true && c.status.snapshotHandle) return { action: 'none', why: 'taken and ready' };
  return { action: 'take', volumeHandle };
}

/** What the driver knows of a snapshot: an in-tree plugin's snapshot record (kind snapshot, its path the handle). */
export interface SnapshotRecordFacts {
  state: string;
  details: Record<string, unknown>;
  updatedAt: Date;
}

export type ContentStatusCheck =
  | { ok: true; status: NonNullable<VolumeSnapshotContent['status']> }
  | { ok: false; message: string };

/**
 * upstream sidecar checkandUpdateContentStatusOperation for a pre-provisioned content: the
 * driver's answer for the snapshotHandle (GetSnapshotStatus: ListSnapshots by id) as the
 * content's status, or upstream's error ("can not find snapshot for snapshotID <handle>"),
 * recorded as SnapshotContentCheckandUpdateFailed.
 */
export function checkContentStatus(c: VolumeSnapshotContent, handle: string, records: readonly SnapshotRecordFacts[]): ContentStatusCheck {
  const r = records.find((x) => x.details.kind === 'snapshot' && x.details.path === handle);
  if (!r) return { ok: false, message: `Failed to check and update snapshot content: can not find snapshot for snapshotID ${handle}` };
  const ready = r.state === 'created';
  const takenAt = typeof r.details.takenAt === 'string' ? new Date(r.details.takenAt) : r.updatedAt;
  const size = Number(String(r.details.sizeBytes ?? '0'));
  const status: NonNullable<VolumeSnapshotContent['status']> = {
    ...structuredClone(c.status ?? {}),
    snapshotHandle: handle,
    readyToUse: ready,
    creationTime: c.status?.creationTime ?? (Number.isNaN(takenAt.getTime()) ? Date.now() : takenAt.getTime()) * 1e6,
    restoreSize: Number.isFinite(size) && size >= 0 ? size : 0,
  };
  if (ready) delete status.error;
  return { ok: true, status };
}

export type ContentSecretRef = { ok: true; ref?: { name: string; namespace: string } } | { ok: false; message: string };

/** upstream sidecar GetCredentialsFromAnnotation: the Secret a content's deletion-secret annotations name, if any. */
export function contentSecretRef(c: VolumeSnapshotContent): ContentSecretRef {
  const a = c.metadata.annotations ?? {};
  const name = a[annDeletionSecretRefName];
  const namespace = a[annDeletionSecretRefNamespace];
  if (name === undefined || namespace === undefined) return { ok: true };
  if (!name || !namespace) return { ok: false, message: `cannot retrieve secrets for snapshot content ${JSON.stringify(c.metadata.name ?? '')}, err: secret name or namespace not specified` };
  return { ok: true, ref: { name, namespace } };
}

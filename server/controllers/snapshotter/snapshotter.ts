// The snapshotter (upstream external-snapshotter's CSI sidecar, for the in-tree plugins):
// for each VolumeSnapshotContent of a driver this process has a plugin for, it takes the
// snapshot of the content's volume (the plugin writes its intent record first, named after
// the content), writes the content's status (snapshotHandle, creationTime, restoreSize,
// readyToUse; an error as upstream's SnapshotCreationFailed), and when the content is
// deleted it deletes the snapshot (deletionPolicy Delete) or keeps it (Retain) before
// dropping the content finalizer. A pre-provisioned content (a snapshotHandle) gets its
// status from the plugin's snapshot record of that handle (upstream checkandUpdateContentStatus). Runs beside the provisioner, with its plugins, so a
// node-local plugin acts only on its own node's volumes. Keys vsc/<name>.
import type { PersistentVolume } from '../../resources/persistent-volume/schema';
import type { VolumeSnapshotContent } from '../../resources/volume-snapshot-content/schema';
import type { VolumeSnapshot } from '../../resources/volume-snapshot/schema';
import { quantityFromJSON, quantityToBytes } from '../../domain/quantity';
import { volumeSnapshotContentFinalizer } from '../../domain/well-known/finalizers';
import { reasons } from '../../domain/well-known/event-reasons';
import type { CopyProgress, SnapshotOps } from '../../provisioners/plugin';
import { annSnapshotCopyProgress } from '../../domain/well-known/annotations';
import type { ProvisioningDeps } from '../provisioner/deps';
import type { ControllerSpec, ReconcileContext, ReconcileResult } from '../runtime/controller';
import { errorText } from '../runtime/errors';
import { event } from '../runtime/event';
import { write } from '../runtime/write';
import { checkContentStatus, contentSecretRef, decideSnapshotter } from './decide';
import { maskValues } from '../../domain/redaction';
import { secretData } from '../../resources/secret/strategy';
import { RETRY } from '../runtime/retry';

const VSC = 'VolumeSnapshotContent';
export const snapshotterName = 'csi-snapshotter';
const key = (name: string) => `vsc/${name}`;

export type SnapshotterDeps = Pick<ProvisioningDeps, 'store' | 'plugins' | 'assets' | 'events' | 'log' | 'backgroundPollMs'>;

/** Changes the content as read now (by uid); `change` returns false for "nothing to write". */
async function changeContent(d: SnapshotterDeps, ctx: ReconcileContext, read: VolumeSnapshotContent, change: (c: VolumeSnapshotContent) => boolean, status = false): Promise<void> {
  await write(d, ctx, async (t) => {
    const c = await t.get(VSC, undefined, read.metadata.name ?? '');
    if (!c || c.metadata.uid !== read.metadata.uid || !change(c)) return;
    await t.update(c, status ? { subresource: 'status' } : {});
  });
}

const dropFinalizer = (c: VolumeSnapshotContent) => {
  if (!(c.metadata.finalizers ?? []).includes(volumeSnapshotContentFinalizer)) return false;
  c.metadata.finalizers = c.metadata.finalizers!.filter((f) => f !== volumeSnapshotContentFinalizer);
  return true;
};

/**
 * upstream GetCredentialsFromAnnotation: the data of the Secret the content's
 * deletion-secret annotations name (read here only, handed to the plugin, never written
 * anywhere); `why` words the failure as the operation does.
 */
async function credentials(d: SnapshotterDeps, c: VolumeSnapshotContent, why: string): Promise<Record<string, string> | undefined> {
  const name = c.metadata.name ?? '';
  const ref = contentSecretRef(c);
  const fail = (m: string) => new Error(`${why} for content ${name}: ${JSON.stringify(m)}`);
  if (!ref.ok) throw fail(ref.message);
  if (!ref.ref) return undefined;
  const secret = await d.store.tryGet('Secret', ref.ref.namespace, ref.ref.name);
  if (!secret) throw fail(`cannot get credentials for snapshot content ${JSON.stringify(name)}`);
  return secretData(secret);
}

/** An error's text with the Secret's values masked: a plugin's message never shows them. */
const hiddenText = (err: unknown, secrets: Record<string, string> | undefined) => maskValues(errorText(err), Object.values(secrets ?? {}));

/** Takes the snapshot of the content's volume and records the outcome on the content. */
async function take(d: SnapshotterDeps, ctx: ReconcileContext, ops: SnapshotOps, c: VolumeSnapshotContent, volumeHandle: string): Promise<ReconcileResult | void> {
  const name = c.metadata.name ?? '';
  let secrets: Record<string, string> | undefined;
  try {
    secrets = await credentials(d, c, 'failed to get input parameters to create snapshot');
    const pv: PersistentVolume | undefined = await d.store.tryGet('PersistentVolume', undefined, volumeHandle);
    if (!pv) throw new Error(`failed to get the volume ${volumeHandle}: persistentvolume "${volumeHandle}" not found`);
    const size = quantityFromJSON(pv.spec?.capacity?.storage);
    const result = await ops.create({ contentName: name, pvName: volumeHandle, sizeBytes: size ? quantityToBytes(size) : 0n, onProgress: progressOnSnapshot(d, c), ...(secrets ? { secrets } : {}) });
    if (result.state === 'ignored') return;
    if (result.state === 'inBackground') return { requeueAfter: result.retryAfterMs ?? d.backgroundPollMs };
    const s = result.snapshot;
    await changeContent(d, ctx, c, (x) => {
      x.status = {
        ...x.status,
        snapshotHandle: s.handle,
        creationTime: x.status?.creationTime ?? s.createdAt.getTime() * 1e6,
        restoreSize: Number(s.sizeBytes),
        readyToUse: true,
      };
      delete x.status.error;
      return true;
    }, true);
  } catch (err) {
    const message = `Failed to create snapshot: ${hiddenText(err, secrets)}`;
    await changeContent(d, ctx, c, (x) => {
      if (x.status?.error?.message === message) return false;
      x.status = { ...x.status, readyToUse: false, error: { time: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'), message } };
      return true;
    }, true);
    await event(d, c, 'Warning', reasons.snapshotCreationFailed, message);
    throw err;
  }
}

/**
 * A copy's progress, as the annotation snapshot.stowage.io/copy-progress on the content's
 * VolumeSnapshot (the object its owner reads): written in order, one write at a time, the
 * latest figure winning; never an error of the snapshot.
 */
function progressOnSnapshot(d: SnapshotterDeps, c: VolumeSnapshotContent): (p: CopyProgress) => void {
  const ref = c.spec?.volumeSnapshotRef;
  let pending: string | undefined;
  let running = false;
  const flush = async (): Promise<void> => {
    running = true;
    for (let conflicts = 0; pending !== undefined && conflicts < 10; ) {
      const value = pending;
      pending = undefined;
      try {
        // Guarded by the version read: after a conflict (the controllers write the snapshot too) the figure is written again, unless a newer one came.
        // A direct write, not the runtime's `write`: the figure comes from the plugin's
        // progress callback while the copy runs, and may land after the reconcile that
        // started the copy has returned (there is no reconcile to attribute it to), and the
        // snapshotter does not watch VolumeSnapshots, so there is no echo of its own to skip.
        const vs = ref?.name && ref.namespace ? await d.store.tryGet('VolumeSnapshot', ref.namespace, ref.name) : undefined;
        if (vs && vs.metadata.uid === ref?.uid && vs.metadata.annotations?.[annSnapshotCopyProgress] !== value) {
          vs.metadata.annotations = { ...vs.metadata.annotations, [annSnapshotCopyProgress]: value };
          await d.store.update(vs);
        }
      } catch (err) {
        conflicts++;
        pending ??= value;
        d.log.debug({ err, content: c.metadata.name }, 'copy progress not written; trying again');
      }
    }
    running = false;
  };
  return (p) => {
    pending = `${p.copiedBytes}/${p.totalBytes}`;
    if (!running) void flush();
  };
}

export async function syncSnapshotter(d: SnapshotterDeps, ctx: ReconcileContext, name: string): Promise<ReconcileResult | void> {
  const c = await d.store.tryGet(VSC, undefined, name);
  if (!c) return;
  const ops = d.plugins.get(c.spec?.driver ?? '')?.snapshots;
  if (!ops) return;
  const ref = c.spec?.volumeSnapshotRef;
  const named: VolumeSnapshot | undefined = ref?.name && ref.namespace ? await d.store.tryGet('VolumeSnapshot', ref.namespace, ref.name) : undefined;
  const step = decideSnapshotter(c, named);
  ctx.log.debug({ content: name, step: step.action }, 'snapshotter step');
  switch (step.action) {
    case 'none':
      return;
    case 'take':
      return take(d, ctx, ops, c, step.volumeHandle);
    case 'check': {
      const records = await d.assets.list({ plugin: c.spec?.driver ?? '' });
      const checked = checkContentStatus(c, step.snapshotHandle, records);
      if (checked.ok) {
        await changeContent(d, ctx, c, (x) => {
          x.status = checked.status;
          return true;
        }, true);
        // Being taken still: look again.
        return checked.status.readyToUse ? undefined : { requeueAfter: d.backgroundPollMs };
      }
      await changeContent(d, ctx, c, (x) => {
        if (x.status?.error?.message === checked.message) return false;
        x.status = { ...x.status, readyToUse: false, error: { time: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'), message: checked.message } };
        return true;
      }, true);
      await event(d, c, 'Warning', reasons.snapshotContentCheckandUpdateFailed, checked.message);
      return { requeueAfter: d.backgroundPollMs };
    }
    case 'delete': {
      let secrets: Record<string, string> | undefined;
      try {
        // Upstream asks the driver (with the Secret) only for a snapshot that was taken.
        if (c.status?.snapshotHandle) secrets = await credentials(d, c, 'failed to get input parameters to delete snapshot');
        // A snapshot on another node is that node's snapshotter's to delete.
        if ((await ops.delete(name, secrets)) === 'ignored') return;
      } catch (err) {
        const message = `Failed to delete snapshot: ${hiddenText(err, secrets)}`;
        await event(d, c, 'Warning', reasons.snapshotDeleteError, message);
        throw err;
      }
      await changeContent(d, ctx, c, dropFinalizer);
      return;
    }
    case 'release': {
      const record = (await d.assets.byPv(name)).find((r) => r.plugin === c.spec?.driver);
      if (record) await d.assets.release(record);
      await changeContent(d, ctx, c, dropFinalizer);
      return;
    }
  }
}

export function snapshotterSpec(d: SnapshotterDeps, opts: { concurrency?: number; resyncMs?: number; baseDelayMs?: number; maxDelayMs?: number } = {}): ControllerSpec {
  const drivers = new Set([...d.plugins.values()].filter((p) => p.snapshots).map((p) => p.name));
  const keys = async () => (await d.store.list(VSC)).items.filter((c) => drivers.has(c.spec?.driver ?? '')).map((c) => key(c.metadata.name ?? ''));
  return {
    name: snapshotterName,
    concurrency: opts.concurrency ?? 4,
    baseDelayMs: opts.baseDelayMs ?? RETRY.external.baseDelayMs,
    maxDelayMs: opts.maxDelayMs ?? RETRY.external.maxDelayMs,
    watch: {
      kinds: [VSC],
      keysFor: (e) => (e.kind === VSC && e.type !== 'DELETED' && drivers.has(e.object.spec?.driver ?? '') ? [key(e.name)] : []),
    },
    listKeys: keys,
    resync: { everyMs: opts.resyncMs ?? 60_000, listKeys: keys },
    reconcile: async (k, ctx) => (k.startsWith('vsc/') ? syncSnapshotter(d, ctx, k.slice(4)) : undefined),
  };
}

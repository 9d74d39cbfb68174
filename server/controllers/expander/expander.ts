// The expand controller (the external-resizer protocol, in-tree) on the shared runtime,
// keyed pvc/<namespace>/<name>. A Bound claim that asks for more than its capacity, whose
// volume an in-tree plugin on this node made, goes through the resizer's stages, each
// written to the claim before the work it names:
//   Resizing (allocatedResources = request, ControllerResizeInProgress; event Resizing)
//   -> the plugin grows the asset; the PV's capacity is updated
//   -> FileSystemResizePending (NodeResizePending; event FileSystemResizeRequired) when a
//      filesystem must grow too, then the filesystem grows (event FileSystemResizeSuccessful)
//   -> status.capacity = the new size, stage conditions gone (event VolumeResizeSuccessful).
// A failure is written to the claim (ControllerResizeError, event VolumeResizeFailed) and
// retried with backoff. Volumes of out-of-tree provisioners are left to their resizer,
// which does the same over the API.
import { timestampNow } from '../../resources/metadata';
import type { PersistentVolumeClaim } from '../../resources/persistent-volume-claim/schema';
import { keyPages } from '../../store/volume-queries';
import { keysByPage, type ControllerSpec, type ReconcileContext } from '../runtime/controller';
import { event } from '../runtime/event';
import { write } from '../runtime/write';
import { errorText } from '../runtime/errors';
import type { ProvisioningDeps } from '../provisioner/deps';
import { reasons } from '../../domain/well-known/event-reasons';
import { capacityQuantity, expansionWanted, statusFor, type Stage } from './decide';
import { annDynamicallyProvisioned } from '../../domain/well-known/annotations';
import { RETRY } from '../runtime/retry';

const PVC = 'PersistentVolumeClaim';
const PV = 'PersistentVolume';
export const expanderName = 'volume-expander';

/** Writes the claim's status for a stage (fresh read in the transaction; same uid only). */
async function setStage(d: ProvisioningDeps, ctx: ReconcileContext, claim: PersistentVolumeClaim, stage: Stage): Promise<PersistentVolumeClaim | undefined> {
  return write(d, ctx, async (tx) => {
    const c = await tx.get(PVC, claim.metadata.namespace, claim.metadata.name!);
    if (!c || c.metadata.uid !== claim.metadata.uid) return undefined;
    c.status = statusFor(c, stage, timestampNow());
    return tx.update(c, { subresource: 'status' });
  });
}

async function setVolumeCapacity(d: ProvisioningDeps, ctx: ReconcileContext, name: string, capacity: string): Promise<void> {
  await write(d, ctx, async (tx) => {
    const v = await tx.get(PV, undefined, name);
    if (!v || v.spec?.capacity?.storage === capacity) return;
    v.spec = { ...v.spec, capacity: { ...(v.spec?.capacity ?? {}), storage: capacity } };
    await tx.update(v);
  });
}

export async function expandClaim(d: ProvisioningDeps, ctx: ReconcileContext, namespace: string, name: string): Promise<void> {
  const claim = await d.store.tryGet(PVC, namespace, name);
  if (!claim) return;
  const bytes = expansionWanted(claim);
  if (bytes === undefined) return;
  // expansionWanted answers only for a Bound claim with a volumeName.
  const pv = await d.store.tryGet(PV, undefined, claim.spec!.volumeName!);
  const plugin = pv ? d.plugins.get(pv.metadata.annotations?.[annDynamicallyProvisioned] ?? '') : undefined;
  if (!pv || !plugin?.expand) return; // not ours: an out-of-tree resizer's job
  const pvName = pv.metadata.name!;

  const resizing = await setStage(d, ctx, claim, { kind: 'resizing' });
  if (!resizing) return;
  await event(d, resizing, 'Normal', reasons.resizing, `External resizer is resizing volume ${pvName}`);
  let result;
  try {
    result = await plugin.expand(pv, bytes);
  } catch (err) {
    const message = `resize volume "${pvName}" by resizer "${plugin.name}" failed: ${errorText(err)}`;
    const failed = await setStage(d, ctx, resizing, { kind: 'failed', message });
    await event(d, failed ?? resizing, 'Warning', reasons.volumeResizeFailed, message);
    throw err;
  }
  if (!result) return; // the asset lives on another node: its controllers grow it
  const capacity = capacityQuantity(claim, result.capacityBytes);
  await setVolumeCapacity(d, ctx, pvName, capacity);

  let current = resizing;
  if (result.fileSystemResizeRequired && plugin.expandFilesystem) {
    const pending = await setStage(d, ctx, current, { kind: 'fsPending' });
    if (!pending) return;
    current = pending;
    await event(d, current, 'Normal', reasons.fileSystemResizeRequired, 'Require file system resize of volume on node');
    try {
      await plugin.expandFilesystem(pv);
    } catch (err) {
      const message = `MountVolume.NodeExpandVolume failed for volume "${pvName}" : ${errorText(err)}`;
      await event(d, current, 'Warning', reasons.fileSystemResizeFailed, message);
      throw err;
    }
    await event(d, current, 'Normal', reasons.fileSystemResizeSuccessful, `MountVolume.NodeExpandVolume succeeded for volume "${pvName}" ${d.node}`);
  }
  const done = await setStage(d, ctx, current, { kind: 'done', capacity });
  if (!done) return;
  await event(d, done, 'Normal', reasons.volumeResizeSuccessful, 'Resize volume succeeded');
  if (result.note) await event(d, done, 'Normal', reasons.expansionAccountingOnly, result.note);
}

export function expanderSpec(d: ProvisioningDeps, opts: { resyncMs?: number; baseDelayMs?: number; maxDelayMs?: number } = {}): ControllerSpec {
  const keys = () => keysByPage(keyPages(d.store, PVC, { phases: ['Bound'] }), (r) => `pvc/${r.namespace}/${r.name}`);
  return {
    name: expanderName,
    concurrency: 2,
    // It grows volumes through the plugins (and their filesystems on the node), so it backs off
    // as the others that call out do: upstream's external-resizer uses the same exponential
    // 1 s .. 5 min failure rate limiter. (It took the work queue's 5 ms .. ~17 min before.)
    baseDelayMs: opts.baseDelayMs ?? RETRY.external.baseDelayMs,
    maxDelayMs: opts.maxDelayMs ?? RETRY.external.maxDelayMs,
    watch: { kinds: [PVC], keysFor: (e) => (e.kind !== PVC || e.type === 'DELETED' || !expansionWanted(e.object) ? [] : [`pvc/${e.namespace}/${e.name}`]) },
    listKeys: keys,
    resync: { everyMs: opts.resyncMs ?? 60_000, listKeys: keys },
    reconcile: async (key, ctx) => {
      const [, namespace, name] = key.split('/');
      if (namespace && name) await expandClaim(d, ctx, namespace, name);
    },
  };
}

// The deleter on the shared runtime (seed 000 "Controller workflow for deleting volumes",
// upstream deleteVolumeOperation): a Released volume with reclaim policy Delete that one of
// Stowage's plugins provisioned has its asset deleted by that plugin (named by
// pv.kubernetes.io/provisioned-by), and only then is the PV object deleted. A failure moves
// the PV to Failed with the message, records VolumeFailedDelete and is retried with
// backoff. Volumes of external provisioners are theirs; Retain keeps the volume and its data.
import type { Logger } from 'pino';
import { AssetStore } from '../../store/provisioned-assets';
import type { PluginRegistry } from '../../provisioners/registry';
import type { EventRecorder } from '../../services/event-recorder';
import type { ProvisionerPlugin } from '../../provisioners/plugin';
import type { PersistentVolume } from '../../resources/persistent-volume/schema';
import type { KubeObject } from '../../resources/types';
import type { ChangeEvent } from '../../store/change-feed';
import type { ObjectStore } from '../../store/object-store';
import { keyPages } from '../../store/volume-queries';
import { keysByPage, type ControllerSpec, type ReconcileContext, type ReconcileResult } from '../runtime/controller';
import { event } from '../runtime/event';
import { write } from '../runtime/write';
import { errorText } from '../runtime/errors';
import { reasons } from '../../domain/well-known/event-reasons';
import { agentWaitRetryMs, settleAsset } from '../provisioner/sweep';
import { deleterAction } from './decide';
import { annDynamicallyProvisioned } from '../../domain/well-known/annotations';
import { pvControllerFinalizer } from '../../domain/well-known/finalizers';
import { RETRY } from '../runtime/retry';

const PV = 'PersistentVolume';
const PVC = 'PersistentVolumeClaim';
export const deleterName = 'persistentvolume-deleter';

/** What the deleter uses, and nothing of the provisioner's settings. */
export interface DeleterDeps {
  store: ObjectStore;
  /** The plugins that delete assets, by provisioner name. */
  plugins: PluginRegistry;
  /** Intent records: forgotten with the PV, or settled when the PV is already gone. */
  assets: AssetStore;
  events: EventRecorder;
  log: Logger;
  /** The node whose assets this process may touch. */
  node: string;
}

const without = (list: string[] | undefined, item: string) => (list ?? []).filter((f) => f !== item);

async function dropFinalizer(d: DeleterDeps, ctx: ReconcileContext, pv: PersistentVolume): Promise<void> {
  await write(d, ctx, async (tx) => {
    const cur = await tx.get(PV, undefined, pv.metadata.name!);
    if (!cur || cur.metadata.uid !== pv.metadata.uid || !cur.metadata.finalizers?.includes(pvControllerFinalizer)) return;
    cur.metadata.finalizers = without(cur.metadata.finalizers, pvControllerFinalizer);
    await tx.update(cur);
  });
}

/** Upstream updateVolumePhaseWithEvent(VolumeFailed): the user sees why, while we retry. */
async function markFailed(d: DeleterDeps, ctx: ReconcileContext, pv: PersistentVolume, message: string): Promise<KubeObject> {
  if (pv.status?.phase === 'Failed' && pv.status?.message === message) return pv;
  const saved = await write(d, ctx, async (tx) => {
    const cur = await tx.get(PV, undefined, pv.metadata.name!);
    if (!cur || cur.metadata.uid !== pv.metadata.uid) return undefined;
    cur.status = { ...cur.status, phase: 'Failed', message };
    return tx.update(cur, { subresource: 'status' });
  });
  return saved ?? pv;
}

/** The asset is gone: delete the PV object, let go of it, and forget the record, in one commit. */
async function deleteObject(d: DeleterDeps, ctx: ReconcileContext, pv: PersistentVolume, plugin: ProvisionerPlugin): Promise<void> {
  const name = pv.metadata.name!;
  await write(d, ctx, async (tx) => {
    const cur = await tx.get(PV, undefined, name);
    if (!cur || cur.metadata.uid !== pv.metadata.uid) return;
    if (!cur.metadata.deletionTimestamp) await tx.delete(PV, undefined, name, { preconditions: { uid: pv.metadata.uid } });
    const after = await tx.get(PV, undefined, name);
    if (after?.metadata.finalizers?.includes(pvControllerFinalizer)) {
      after.metadata.finalizers = without(after.metadata.finalizers, pvControllerFinalizer);
      await tx.update(after);
    }
    await d.assets.remove({ id: AssetStore.idOf(plugin.name, name) }, tx);
  });
}

export async function reclaimVolume(d: DeleterDeps, ctx: ReconcileContext, name: string): Promise<ReconcileResult | void> {
  const pv = await d.store.tryGet(PV, undefined, name);
  if (!pv) {
    // The PV object is gone: settle what its records say (a retained asset is released).
    // An agent's removal is not waited for here: looked at again later, holding no worker.
    let again: number | undefined;
    for (const r of await d.assets.byPv(name)) {
      if ((await settleAsset(d, r, { onlyAfterPv: true, noWait: true })) === 'waiting') again = Math.min(again ?? Infinity, agentWaitRetryMs(r));
    }
    return again === undefined ? undefined : { requeueAfter: again };
  }
  const plugin = d.plugins.get(pv.metadata.annotations?.[annDynamicallyProvisioned] ?? '');
  const ref = pv.spec?.claimRef;
  const claim = ref?.name ? await d.store.tryGet(PVC, ref.namespace ?? '', ref.name) : undefined;
  const decision = deleterAction(pv, claim, plugin !== undefined);
  if (decision.action === 'dropFinalizer') return dropFinalizer(d, ctx, pv);
  if (decision.action !== 'delete' || !plugin) return;

  if (plugin.agentBacked) {
    // Its node's agent was asked already (an earlier attempt timed out) and has not reported:
    // look again later instead of waiting on a node that may not report at all.
    const r = await d.assets.get(plugin.name, name);
    if (r?.state === 'deleting' && r.details.removed !== true) return { requeueAfter: agentWaitRetryMs(r) };
  }
  let result;
  try {
    result = await plugin.delete(pv);
  } catch (err) {
    const failed = await markFailed(d, ctx, pv, errorText(err));
    await event(d, failed, 'Warning', reasons.volumeFailedDelete, errorText(err));
    throw err;
  }
  if (result === 'ignored') {
    // Not this node's asset (or not Stowage's at all): another instance, or nobody, deletes it.
    d.log.info({ pv: name, plugin: plugin.name }, 'volume deletion ignored by its plugin');
    return;
  }
  await deleteObject(d, ctx, pv, plugin);
  d.log.info({ pv: name, plugin: plugin.name }, 'deleted a released volume and its asset');
}

export interface DeleterSpecOptions {
  concurrency?: number;
  resyncMs?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
}

export function deleterSpec(d: DeleterDeps, opts: DeleterSpecOptions = {}): ControllerSpec {
  const keys = () => keysByPage(keyPages(d.store, PV, { phases: ['Released', 'Failed'] }), (r) => `pv/${r.name}`);
  return {
    name: deleterName,
    concurrency: opts.concurrency ?? 4,
    baseDelayMs: opts.baseDelayMs ?? RETRY.external.baseDelayMs,
    maxDelayMs: opts.maxDelayMs ?? RETRY.external.maxDelayMs,
    watch: {
      kinds: [PV],
      // A volume gone (its records settle), or one the decision may act on as it now is;
      // most changes (a bound volume's status, usage, annotations) are not the deleter's.
      keysFor: (e: ChangeEvent) => {
        if (e.kind !== PV) return [];
        const pv = e.object;
        const plugin = d.plugins.get(pv.metadata?.annotations?.[annDynamicallyProvisioned] ?? '');
        return e.type === 'DELETED' || deleterAction(pv, undefined, plugin !== undefined).action !== 'none' ? [`pv/${e.name}`] : [];
      },
    },
    listKeys: keys,
    resync: { everyMs: opts.resyncMs ?? 60_000, listKeys: keys },
    reconcile: async (key, ctx) => {
      if (!key.startsWith('pv/')) return;
      return reclaimVolume(d, ctx, key.slice(3));
    },
  };
}

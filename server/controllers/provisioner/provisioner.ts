// The provisioning controller on the shared runtime: keys pvc/<namespace>/<name> for claims
// handed to an in-tree plugin, plus one key, `sweep`, that settles stale intent records.
// On start it first settles every record of this node (crash recovery), before any worker
// provisions anything. A record whose settling waits on a node agent (an agent-backed
// removal) is not waited for there: it gets a key of its own, asset/<plugin>/<pv>, looked
// at again with a growing delay until the agent reports it done; and node-gone/<node>, on
// a Node's deletion, ends the records that waited on that node's agent (node-gone.ts).
import type { ChangeEvent } from '../../store/change-feed';
import type { ControllerSpec, ReconcileContext, ReconcileResult } from '../runtime/controller';
import type { ProvisioningDeps } from './deps';
import { provisionClaim } from './provision-claim';
import { claimsOfClass, claimsToProvision } from '../../store/provisioning-queries';
import { agentWaitRetryMs, settleAsset, sweepAssets, type SweepReport } from './sweep';
import { endRecordsOfGoneNode } from './node-gone';
import type { AssetRecord } from '../../store/provisioned-assets';
import type { PersistentVolumeClaim } from '../../resources/persistent-volume-claim/schema';
import { annBetaStorageProvisioner, annStorageProvisioner } from '../../domain/well-known/annotations';
import { dataSourceKind } from '../../domain/data-source';
import { pvcCloneFinalizer } from '../../domain/well-known/finalizers';
import { RETRY } from '../runtime/retry';

export const provisionerName = 'persistentvolume-provisioner';
export const sweepKey = 'sweep';

const claimKey = (r: { namespace: string; name: string }) => `pvc/${r.namespace}/${r.name}`;
const assetKey = (r: Pick<AssetRecord, 'plugin' | 'pvName'>) => `asset/${r.plugin}/${r.pvName}`;

export interface ProvisionerSpecOptions {
  concurrency?: number;
  /** How often pending claims are listed again and the sweep runs (ms, default 60 s). */
  resyncMs?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
}

/**
 * The claims whose volume an agent has just made (its intent record created, no PV yet):
 * the provisioner is woken by the records' signal instead of asking the plugin again and
 * again while the agent works.
 */
function agentWakeups(d: ProvisioningDeps, waitingKeys: ReadonlySet<string>): ControllerSpec['wakeups'] {
  const signals = d.assets.signals;
  const agentBacked = [...d.plugins.values()].filter((p) => p.agentBacked).map((p) => p.name);
  if (!signals || agentBacked.length === 0) return undefined;
  return {
    subscribe: (wake) => signals.subscribe(wake),
    keys: async () => {
      // Records waiting on their agent are looked at as soon as some record changed.
      const keys: string[] = [...waitingKeys];
      for (const plugin of agentBacked) {
        for (const r of await d.assets.awaitingPv(plugin)) {
          const ref = typeof r.details.claim === 'string' ? r.details.claim : '';
          const slash = ref.indexOf('/');
          if (slash > 0) keys.push(claimKey({ namespace: ref.slice(0, slash), name: ref.slice(slash + 1) }));
        }
      }
      return keys;
    },
  };
}

/** Whether a claim, as a change shows it, may still be provisioned by one of `plugins`. */
export function mayNeedProvisioning(claim: PersistentVolumeClaim | undefined, plugins: readonly string[]): boolean {
  const a = claim?.metadata?.annotations ?? {};
  const handedTo = a[annStorageProvisioner] ?? a[annBetaStorageProvisioner];
  return handedTo !== undefined && plugins.includes(handedTo) && !claim?.spec?.volumeName && !claim?.metadata?.deletionTimestamp;
}

/** A clone (its data source a claim) or a claim still protected as a clone's source. */
function concernsCloning(claim: PersistentVolumeClaim | undefined): boolean {
  return Boolean(claim) && (dataSourceKind(claim!) === 'clone' || (claim!.metadata?.finalizers ?? []).includes(pvcCloneFinalizer));
}

export function provisionerSpec(d: ProvisioningDeps, opts: ProvisionerSpecOptions = {}): ControllerSpec {
  const names = [...d.plugins.keys()];
  let recovered = false;
  /** The asset keys of records waiting on their node's agent (woken by the records' signal). */
  const waitingKeys = new Set<string>();

  /** One record waiting on its node's agent (`<plugin>/<pv>`): settled without waiting, or looked at again later. */
  async function settleWaiting(id: string): Promise<ReconcileResult | void> {
    // A plugin's name has slashes (stowage.io/btrfs), a PV's name none.
    const slash = id.lastIndexOf('/');
    if (slash <= 0) return;
    const r = await d.assets.get(id.slice(0, slash), id.slice(slash + 1));
    waitingKeys.delete(`asset/${id}`);
    if (!r) return;
    // The node is gone: nobody will ever act on the record.
    if (r.state === 'deleting' && (await endRecordsOfGoneNode(d, r.node, [r])) > 0) return;
    const settled = await settleAsset(d, r, { noWait: true });
    if (settled === 'waiting') {
      waitingKeys.add(assetKey(r));
      return { requeueAfter: agentWaitRetryMs(r) };
    }
  }
  return {
    wakeups: agentWakeups(d, waitingKeys),
    name: provisionerName,
    // Reconciles mostly wait on the database or an agent: many at once, as upstream's
    // external-provisioner runs many workers, so a burst of claims is begun in step.
    concurrency: opts.concurrency ?? 16,
    baseDelayMs: opts.baseDelayMs ?? RETRY.external.baseDelayMs,
    maxDelayMs: opts.maxDelayMs ?? RETRY.external.maxDelayMs,
    watch: {
      kinds: ['PersistentVolumeClaim', 'StorageClass', 'Node'],
      keysFor: (e: ChangeEvent) => {
        if (e.kind === 'Node') return e.type === 'DELETED' ? [`node-gone/${e.name}`] : [];
        if (e.type === 'DELETED') return [];
        if (e.kind === 'StorageClass') return [`sc/${e.name}`];
        // Only a claim that may still need us (handed to one of our plugins, unbound, not
        // being deleted), or one the cloning protection concerns (a clone, bound or not,
        // releases its source; a source keeps its finalizer until no clone is Pending); a
        // bound claim's other changes (finalizers, status) are not ours.
        if (e.kind !== 'PersistentVolumeClaim') return [];
        const claim = e.object;
        // A claim restored from a backup too: once bound, its finished restore job is forgotten.
        return mayNeedProvisioning(claim, names) || concernsCloning(claim) || dataSourceKind(claim) === 'backup' ? [claimKey(e)] : [];
      },
    },
    listKeys: async () => {
      // Crash recovery, once, before the workers start: nothing of ours is in flight yet.
      // Records waiting on an agent are not waited for here: they get keys of their own.
      let waiting: string[] = [];
      if (!recovered) {
        waiting = (await sweepAssets(d, 0)).waiting.map(assetKey);
        for (const k of waiting) waitingKeys.add(k);
        recovered = true;
      }
      return [...waiting, ...(await claimsToProvision(d.store, names)).map(claimKey)];
    },
    resync: {
      everyMs: opts.resyncMs ?? 60_000,
      listKeys: async () => [...(await claimsToProvision(d.store, names)).map(claimKey), sweepKey],
    },
    reconcile: async (key: string, ctx: ReconcileContext): Promise<ReconcileResult | void> => {
      if (key === sweepKey) {
        const report: SweepReport = await sweepAssets(d, d.sweepGraceMs);
        for (const r of report.waiting) {
          waitingKeys.add(assetKey(r));
          if (!ctx.isQueued(assetKey(r))) ctx.enqueue(assetKey(r), agentWaitRetryMs(r));
        }
        return;
      }
      if (key.startsWith('node-gone/')) {
        await endRecordsOfGoneNode(d, key.slice('node-gone/'.length));
        return;
      }
      if (key.startsWith('asset/')) return settleWaiting(key.slice('asset/'.length));
      if (key.startsWith('sc/')) {
        for (const c of await claimsOfClass(d.store, key.slice(3))) ctx.enqueue(claimKey(c));
        return;
      }
      const [kind, namespace, name] = key.split('/');
      if (kind !== 'pvc' || namespace === undefined || !name) return;
      return provisionClaim(d, ctx, namespace, name);
    },
  };
}

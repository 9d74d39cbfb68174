// stowage.io/btrfs: one btrfs subvolume per claim, `<pool>/pvc-<uid>`, in the pool the
// class names (parameter `pool`), on the node the claim is placed on; its size is a qgroup
// limit, so a write past it fails with "Disk quota exceeded". The subvolume is made,
// limited and removed by that node's agent, never by this process: the plugin writes the
// intent record (the agent's only instruction), then waits, with a deadline, for the
// agent's report on it. A wait that runs out leaves the record; the next attempt (or the
// sweep) continues from it, so a crash of either side finishes or undoes the work.
//
// The PV is a `local` volume at the subvolume, with node affinity to that node.
import type { PersistentVolume } from '../resources/persistent-volume/schema';
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';
import type { AssetRecord, AssetStore } from '../store/provisioned-assets';
import type { Logger } from 'pino';
import { poolVolumePath, type PoolAssetDetails } from '../domain/btrfs-pool';
import { pooledPromises, roomiestNode, roomOnNode, withCurrentPromises } from '../domain/pool-capacity';
import type { CSIStorageCapacity } from '../resources/csi-storage-capacity/schema';
import { labelHostname } from '../domain/well-known/labels';
import { poolPathProblems } from '../resources/storage-class/in-tree-parameters';
import { btrfsProvisioner } from '../domain/well-known/provisioners';
import {
  failed,
  nodeLocalClaimProblems,
  nodeSelectorLabels,
  pinToNode,
  ProvisioningError,
  unknownParameters,
  type ProvisionerPlugin,
  type SnapshotOps,
  type VolumeContentSource,
} from './plugin';
import { btrfsCapabilities } from '../domain/provisioner-capabilities';
import { SNAPSHOT_RECORD, snapshotByHandle } from './node-local';
import { notEnoughReplicaNodes, pickReplicaNodes, replicationParameters } from '../domain/replication';

const knownParameters = ['pool', 'replicas', 'replicationInterval'] as const;

/** A subvolume on one node: one node at a time, files only; snapshots, restores and clones are btrfs snapshots. */

export interface BtrfsDeps {
  assets: AssetStore;
  log?: Logger;
  /** How long one call waits for the node's agent before giving the work back (ms, default 10 s). */
  agentWaitMs?: number;
  /** How often the record is read while waiting (ms, default 50). */
  pollMs?: number;
  /**
   * A create does not hold a provisioner worker while the agent works: the claim is asked
   * again after half the record's age, at least `createRetryMs` and at most
   * `createRetryMaxMs`, so many creates are in the agent's hands at once. When the store
   * signals record changes (the provisioner is woken as soon as the agent reports, see
   * provisioner.ts), that is only a fallback: defaults 1 s and 10 s; else 100 ms and 1 s.
   */
  createRetryMs?: number;
  createRetryMaxMs?: number;
  /** The published CSIStorageCapacity objects (the pools' room per node and class). */
  capacities?: () => Promise<CSIStorageCapacity[]>;
}

const detailsOf = (r: AssetRecord) => r.details as PoolAssetDetails;

export function createBtrfsPlugin(deps: BtrfsDeps): ProvisionerPlugin {
  const name = btrfsProvisioner;
  const waitMs = deps.agentWaitMs ?? 10_000;
  const pollMs = deps.pollMs ?? 50;

  /** Reads the record until `done` holds for it (or it is gone), or the deadline passes. */
  async function waitForAgent(pvName: string, done: (r: AssetRecord | undefined) => boolean): Promise<AssetRecord | undefined | false> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const r = await deps.assets.get(name, pvName);
      if (done(r)) return r;
      if (Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  }

  const notYet = (what: string, r: AssetRecord | undefined) =>
    new Error(`waiting for the agent of node "${r?.node ?? '?'}" to ${what}${r?.error ? ` (last error: ${r.error})` : ''}`);

  function validateParameters(parameters: Record<string, string>, claim: PersistentVolumeClaim): string[] {
    const problems = unknownParameters(name, parameters, knownParameters);
    problems.push(...poolPathProblems(name, parameters.pool));
    problems.push(...replicationParameters(parameters).problems);
    if ((claim.spec?.volumeMode ?? 'Filesystem') === 'Block') problems.push(`${name} makes subvolumes; it cannot provision a volume with volumeMode Block`);
    return problems;
  }

  /**
   * How soon a create in the agent's hands is asked about again: soon while young, less often
   * as it ages; seldom when the agent's report wakes the asker (`woken`), as a fallback only.
   */
  const retryAfter = (r: AssetRecord, woken = false) =>
    Math.min(deps.createRetryMaxMs ?? (woken ? 10_000 : 1000), Math.max(deps.createRetryMs ?? (woken ? 1000 : 100), Math.round((Date.now() - r.createdAt.getTime()) / 2)));

  /** The subvolume a restore or a clone is a snapshot of: the snapshot's or the volume's, in the class's pool. */
  async function sourceSubvolume(source: VolumeContentSource, pool: string): Promise<AssetRecord> {
    const name = source.kind === 'snapshot' ? source.contentName : source.pvName;
    const what = source.kind === 'snapshot' ? `snapshot content ${name}` : `volume ${name}`;
    // A pre-provisioned content names a snapshot by its handle only (upstream restores by snapshotHandle).
    const r = (await deps.assets.get(btrfsProvisioner, name)) ?? (source.kind === 'snapshot' ? await snapshotByHandle(deps.assets, btrfsProvisioner, source.handle) : undefined);
    if (!r || r.state !== 'created') throw new ProvisioningError(`${what} has no subvolume of ${btrfsProvisioner}`);
    if (source.kind === 'snapshot' && detailsOf(r).path !== source.handle) throw new ProvisioningError(`snapshot handle ${source.handle} is not available`);
    if (detailsOf(r).pool !== pool) throw new ProvisioningError(`${what} is in pool ${String(detailsOf(r).pool)}; the StorageClass's pool is ${pool} (a btrfs snapshot stays in its pool)`);
    return r;
  }

  const snapshots: SnapshotOps = {
    async create(req) {
      const volume = await deps.assets.get(name, req.pvName);
      if (!volume || volume.state !== 'created') throw new Error(`volume ${req.pvName} has no subvolume on record`);
      const v = detailsOf(volume);
      const path = poolVolumePath(v.pool!, req.contentName);
      const planned: PoolAssetDetails & Record<string, unknown> = {
        kind: SNAPSHOT_RECORD,
        source: req.pvName,
        className: v.className,
        pool: v.pool,
        path,
        from: v.path,
        readOnly: true,
        limitBytes: '0',
        sizeBytes: String(req.sizeBytes),
      };
      const { record } = await deps.assets.begin({ plugin: name, pvName: req.contentName, node: volume.node, details: planned });
      if (record.state === 'deleting') throw new Error(`the snapshot ${req.contentName} is being removed`);
      if (record.state === 'creating') return { state: 'inBackground', retryAfterMs: retryAfter(record), progress: `waiting for the agent of node "${record.node}"${record.error ? ` (last error: ${record.error})` : ''}` };
      return { state: 'ready', snapshot: { handle: path, sizeBytes: BigInt(String(record.details.sizeBytes ?? '0')), createdAt: record.updatedAt } };
    },
    async delete(contentName) {
      const record = await deps.assets.get(name, contentName);
      if (!record) return 'deleted';
      return snapshots.deleteRecord(record);
    },
    async deleteRecord(record) {
      await removeThroughAgent(record);
      await deps.assets.remove(record);
      return 'deleted';
    },
  };

  /** Removes the subvolume through the agent: marks the record deleting, waits for "removed". */
  async function removeThroughAgent(record: AssetRecord): Promise<void> {
    const deleting = await deps.assets.markDeleting(record);
    if (detailsOf(deleting).removed) return;
    const r = await waitForAgent(record.pvName, (x) => !x || detailsOf(x).removed === true);
    if (r === false) throw notYet(`remove subvolume ${String(detailsOf(record).path)}`, deleting);
  }

  return {
    name,
    capabilities: btrfsCapabilities,
    agentBacked: true,
    validateParameters,

    async provision(o) {
      const problems = validateParameters(o.parameters, o.claim);
      if (problems.length > 0) return failed(new ProvisioningError(problems.join('; ')));
      const className = o.storageClass.metadata.name ?? '';
      let already = await deps.assets.get(name, o.pvName);
      if (already?.state === 'deleting' && detailsOf(already).removed) {
        // A subvolume given up earlier (a failed save, another node) is gone: start afresh.
        await deps.assets.remove(already);
        already = undefined;
      }
      if (already && already.state !== 'deleting' && o.selectedNode && already.node !== o.selectedNode && !already.details.pvUid) {
        // Begun on a node the claim is no longer placed on: undo there first.
        await deps.assets.markDeleting(already);
        return failed(new Error(`the subvolume of ${o.pvName} was begun on node "${already.node}"; removing it before making it on "${o.selectedNode}"`), 'noChange');
      }
      let node = already?.node ?? o.selectedNode;
      let from: string | undefined;
      if (o.source && !already) {
        // A restore or a clone is a snapshot of a subvolume: on its node, in its pool.
        try {
          const src = await sourceSubvolume(o.source, o.parameters.pool);
          if (o.selectedNode && o.selectedNode !== src.node) throw new ProvisioningError(`the source of the claim's data is on node "${src.node}", the claim was placed on node "${o.selectedNode}"`);
          node = src.node;
          from = detailsOf(src).path;
        } catch (err) {
          return failed(err);
        }
      }
      if (!already) {
        // Nothing promised yet: the pool must have room now (placement may have raced another pod).
        const promises = pooledPromises(await deps.assets.promisedByPool(name));
        const capacities = withCurrentPromises((await deps.capacities?.()) ?? [], promises);
        if (!node) {
          // Immediate: the node with the most room.
          node = roomiestNode(capacities, className, o.requestBytes);
          if (!node) return failed(new ProvisioningError(`no node has room for ${String(o.requestBytes)} bytes in the pool of StorageClass "${className}" (${o.parameters.pool})`));
        } else {
          const room = roomOnNode(capacities, className, { [labelHostname]: node });
          if (room !== undefined && room < o.requestBytes) {
            return failed(new ProvisioningError(`the pool ${o.parameters.pool} on node "${node}" has room for ${String(room)} bytes, the claim asks for ${String(o.requestBytes)}`), 'reschedule');
          }
        }
      }
      if (!node) return failed(new Error('no node chosen'));
      const replication = replicationParameters(o.parameters).value;
      let replicaNodes: string[] = [];
      if (!already && replication.replicas > 1) {
        // Every replica needs another node with room in the class's pool: a claim that cannot
        // have them stays Pending, with the reason.
        const capacities = withCurrentPromises((await deps.capacities?.()) ?? [], pooledPromises(await deps.assets.promisedByPool(name)));
        const others = [...new Set(capacities.filter((c) => c.storageClassName === className).map((c) => c.nodeTopology?.matchLabels?.[labelHostname]).filter((n): n is string => !!n && n !== node))];
        const candidates = others.map((n) => ({ node: n, ready: true, roomBytes: roomOnNode(capacities, className, { [labelHostname]: n }) }));
        replicaNodes = pickReplicaNodes(candidates, [{ node }], replication.replicas - 1, o.requestBytes);
        if (replicaNodes.length < replication.replicas - 1) return failed(new ProvisioningError(notEnoughReplicaNodes(className, replication.replicas - 1, replicaNodes.length)), 'reschedule');
      }
      const nodeProblems = nodeLocalClaimProblems(name, o.claim, node);
      if (nodeProblems.length > 0) return failed(new ProvisioningError(nodeProblems.join('; ')));
      const pool = o.parameters.pool;
      const path = poolVolumePath(pool, o.pvName);
      const planned: PoolAssetDetails & Record<string, unknown> = {
        className,
        pool,
        path,
        limitBytes: String(o.requestBytes),
        ...(from ? { from } : {}),
        ...(replication.replicas > 1 ? { replicas: replication.replicas, intervalSeconds: replication.intervalSeconds, epoch: 0, seq: 0, replicaNodes } : {}),
      };
      const { record, existed } = already ? { record: already, existed: true } : await deps.assets.begin({
        plugin: name,
        pvName: o.pvName,
        claimUid: o.claim.metadata.uid,
        claim: `${o.claim.metadata.namespace ?? ''}/${o.claim.metadata.name ?? ''}`,
        node,
        details: { ...planned },
      });
      if (existed) {
        if (record.state === 'deleting') return failed(new Error(`the subvolume of ${o.pvName} is being removed; will try again`), 'noChange');
        if (record.claimUid !== (o.claim.metadata.uid ?? null)) return failed(new Error(`a volume named ${o.pvName} already exists for another claim`));
      }
      if (record.state === 'creating') {
        // Asked again soon while the record is young, less often as it ages: many claims in
        // the agent's hands at once must not keep every provisioner worker busy asking.
        // Woken by the agent's report when the provisioner has a wake-up source: the retry is only a fallback.
        return { ...failed(notYet(`create subvolume ${path}`, record), 'inBackground'), retryAfterMs: retryAfter(record, deps.assets.signals !== undefined) };
      }
      const made = record;
      if (!made || made.state !== 'created') return failed(new Error(`the subvolume of ${o.pvName} was given up meanwhile; will try again`), 'noChange');
      const d = detailsOf(made);
      const where = made.node;
      return {
        state: 'finished',
        volume: {
          capacityBytes: BigInt(d.appliedBytes ?? d.limitBytes ?? '0'),
          volumeMode: 'Filesystem',
          source: { local: { path: d.path ?? path } },
          nodeAffinity: pinToNode(where),
          labels: nodeSelectorLabels(name, o.selector, where).labels,
          asset: { pool: d.pool, path: d.path, node: where },
        },
      };
    },

    async expand(pv: PersistentVolume, bytes: bigint) {
      const record = await deps.assets.get(name, pv.metadata.name ?? '');
      if (!record || record.state !== 'created') return undefined;
      const want = String(bytes);
      if (detailsOf(record).limitBytes !== want && BigInt(detailsOf(record).limitBytes ?? '0') < bytes) await deps.assets.setDetails(record, { limitBytes: want });
      const r = await waitForAgent(record.pvName, (x) => !x || BigInt(detailsOf(x).appliedBytes ?? '0') >= bytes);
      if (r === false) throw notYet(`raise the qgroup limit of ${String(detailsOf(record).path)} to ${want} bytes`, record);
      if (!r) throw new Error(`the subvolume of ${record.pvName} is gone`);
      return { capacityBytes: BigInt(detailsOf(r).appliedBytes!), fileSystemResizeRequired: false };
    },

    async delete(pv) {
      const record = await deps.assets.get(name, pv.metadata.name ?? '');
      // No record: Stowage did not make this subvolume, or released it: not ours to touch.
      if (!record) return 'ignored';
      await removeThroughAgent(record);
      return 'deleted';
    },

    async deleteAsset(record) {
      await removeThroughAgent(record);
      await deps.assets.remove(record);
      return 'deleted';
    },

    snapshots,
  };
}

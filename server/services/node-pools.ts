// What a node agent may do with btrfs pools (stowage.io/btrfs), for its own node only:
// read its pools (the btrfs classes' `pool` paths) and the volumes whose intent records
// ask it to act, report what it did to each, and report its pools. The provisioner plugin
// writes the intent record before anything is asked of the agent; the agent only ever
// settles records of its node, and only paths `<pool>/pvc-<uid>` of those pools.
import type { PoolAssignment, PoolReport, PoolVolumeDone, PoolVolumeWork, PoolWork } from '../contracts/agent';
import { isAllowed, nodeMayActFor, type NodePrincipal, type Principal } from '../domain/authorization';
import { silencedCapacity } from '../domain/pool-capacity';
import { poolBound, poolReportProblems } from '../domain/pool-report-check';
import { reasons } from '../domain/well-known/event-reasons';
import { agentApiComponent } from '../domain/well-known/components';
import type { Node } from '../resources/node/schema';
import { EventRecorder } from './event-recorder';
import { logger } from './logger';
import { isPoolVolumeName, poolCapacityName, poolVolumePath, promisedBytes, reportedRoom, type PoolAssetDetails } from '../domain/btrfs-pool';
import { bytesToQuantity, formatQuantity } from '../domain/quantity';
import { usageOf, usageUpdate, withUsage } from '../domain/volume-usage';
import { annPoolAllocated, annPoolFree, annPoolPath, annPoolProblem, annPoolTotal } from '../domain/well-known/annotations';
import { labelHostname, labelPoolNode } from '../domain/well-known/labels';
import type { CSIStorageCapacity } from '../resources/csi-storage-capacity/schema';
import { StowageError } from '../domain/errors';
import { inParallel } from '../domain/in-parallel';
import { answerVersion } from './answer-version';
import { btrfsProvisioner } from '../domain/well-known/provisioners';
import { poolPathProblems } from '../resources/storage-class/in-tree-parameters';
import type { ObjectStore } from '../store/object-store';
import { AssetStore, type AssetRecord } from '../store/provisioned-assets';
import { poolReportHistory, type PoolReportRow } from '../store/pool-reports';

const MAX_POOLS = 256;
/** Volumes handed to an agent (or reported by it) in one answer. */
const MAX_WORK = 1000;
/** Results of one pass recorded at once. */
const RESULTS_AT_ONCE = 8;
/** The longest a work request is held open for a change. */
export const MAX_WAIT_MS = 30_000;
const DECIMAL_RE = /^\d{1,30}$/;
const bad = (m: string) => new StowageError('BadRequest', m);

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The pools of every btrfs class (valid `pool` parameters only). */
export async function poolAssignments(store: ObjectStore): Promise<PoolAssignment[]> {
  // From memory where the controllers keep the classes, else a plain read of those committed
  // now (one statement, where a list first settles the change log).
  const classes = await store.recentAll('StorageClass');
  return classes
    .filter((c) => c.provisioner === btrfsProvisioner && typeof c.parameters?.pool === 'string' && poolPathProblems(btrfsProvisioner, c.parameters.pool).length === 0)
    .map((c) => ({ className: c.metadata.name!, path: c.parameters!.pool }));
}

/** What the agent must do for a record, if anything. */
export function workOf(r: AssetRecord): PoolVolumeWork | undefined {
  const d = r.details as PoolAssetDetails;
  if (typeof d.pool !== 'string' || typeof d.limitBytes !== 'string') return undefined;
  const base = {
    pvName: r.pvName,
    pool: d.pool,
    path: poolVolumePath(d.pool, r.pvName),
    limitBytes: d.limitBytes,
    ...(d.subvolumeId ? { subvolumeId: d.subvolumeId } : {}),
    ...(typeof d.from === 'string' ? { from: d.from } : {}),
    ...(d.readOnly === true ? { readOnly: true } : {}),
  };
  if (r.state === 'deleting') return d.removed ? undefined : { ...base, want: 'absent' };
  if (r.state === 'creating' || d.appliedBytes !== d.limitBytes) return { ...base, want: 'present' };
  return undefined;
}

export class NodePoolService {
  readonly assets: AssetStore;
  /** Per volume, the used bytes its PV was last seen (or made) to show, and when. */
  private readonly shownUsage = new Map<string, { bytes: string; at: number }>();

  constructor(private readonly store: ObjectStore) {
    this.assets = new AssetStore(store);
  }

  private check(p: NodePrincipal, node: string): void {
    if (!nodeMayActFor(p, node)) throw new StowageError('Forbidden', `node "${p.nodeName}" may not act for node "${node}"`, { kind: 'nodes', name: node });
  }

  /**
   * The node's pools, and the volumes of its records that want the agent to act. With
   * `waitMs`, a long-poll: when nothing wants the agent now, the answer waits (up to
   * MAX_WAIT_MS) for a record to change and looks again, so the agent hears of a new
   * volume at once instead of at its next poll. The caller is checked before anything is read.
   */
  async work(p: NodePrincipal, node: string, opts: { waitMs?: number; seen?: string; signal?: AbortSignal } = {}): Promise<PoolWork> {
    this.check(p, node);
    const deadline = Date.now() + Math.max(0, Math.min(opts.waitMs ?? 0, MAX_WAIT_MS));
    const signals = this.assets.signals;
    for (;;) {
      // Subscribed before looking, so a change between the look and the wait is not missed.
      let changed = false;
      const unsubscribe = signals?.subscribe(() => (changed = true));
      try {
        const volumes = (await this.assets.agentWork(btrfsProvisioner, node, MAX_WORK)).map(workOf).filter((w): w is PoolVolumeWork => w !== undefined);
        const version = answerVersion(volumes);
        const left = deadline - Date.now();
        // Held while there is nothing to do, or nothing but what the agent already has in hand.
        const news = volumes.length > 0 && version !== opts.seen;
        if (news || left <= 0 || !signals || opts.signal?.aborted) return { pools: await poolAssignments(this.store), volumes, version };
        if (!changed) await signals.next(left, opts.signal);
      } finally {
        unsubscribe?.();
      }
    }
  }

  /** Several volumes settled (or not) at once: one answer per result, in order. */
  async volumesDone(p: NodePrincipal, node: string, body: unknown): Promise<{ results: ({ recorded: boolean } | { error: string })[] }> {
    this.check(p, node);
    const raw = isPlainObject(body) ? body.results : undefined;
    if (!Array.isArray(raw) || raw.length > MAX_WORK) throw bad(`results must be a list of at most ${MAX_WORK}`);
    const results: ({ recorded: boolean } | { error: string })[] = [];
    // Several records at once (each its own write): a pass's many results are not one round trip after another.
    await inParallel([...raw.keys()], RESULTS_AT_ONCE, async (i) => {
      const r: unknown = raw[i];
      const pvName = isPlainObject(r) && typeof r.pvName === 'string' ? r.pvName : '';
      try {
        results[i] = await this.volumeDone(p, node, pvName, r);
      } catch (err) {
        if (!(err instanceof StowageError)) throw err;
        results[i] = { error: err.message };
      }
    });
    return { results };
  }

  /** The agent settled (or failed to settle) one volume of its node. */
  async volumeDone(p: NodePrincipal, node: string, pvName: string, body: unknown): Promise<{ recorded: boolean }> {
    this.check(p, node);
    if (!isPoolVolumeName(pvName)) throw bad(`"${pvName}" is not a volume name`);
    const record = await this.assets.get(btrfsProvisioner, pvName);
    if (!record || record.node !== node) {
      throw new StowageError('NotFound', `no ${btrfsProvisioner} volume "${pvName}" on node "${node}"`, { kind: 'persistentvolumes', name: pvName });
    }
    const done = (isPlainObject(body) ? body : {}) as Partial<PoolVolumeDone>;
    if (done.state === 'failed') {
      await this.assets.noteError(record, `node "${node}": ${typeof done.error === 'string' ? done.error.slice(0, 1000) : 'failed'}`);
      return { recorded: true };
    }
    if (done.state === 'absent') {
      if (record.state !== 'deleting') throw new StowageError('Conflict', `volume "${pvName}" is not being deleted`);
      return { recorded: await this.assets.markRemoved(record) };
    }
    if (done.state !== 'present' || typeof done.limitBytes !== 'string' || !DECIMAL_RE.test(done.limitBytes)) throw bad('state must be present, absent or failed; present needs limitBytes');
    if (record.state === 'deleting') return { recorded: false };
    const subvolumeId = typeof done.subvolumeId === 'string' && /^\d{1,20}$/.test(done.subvolumeId) ? done.subvolumeId : undefined;
    await this.assets.markCreated(record, { appliedBytes: done.limitBytes, ...(subvolumeId ? { subvolumeId } : {}) });
    return { recorded: true };
  }

  /** The agent's view of its pools; each must be a pool of a btrfs class. */
  async report(p: NodePrincipal, node: string, body: unknown): Promise<{ accepted: number }> {
    this.check(p, node);
    const raw = isPlainObject(body) ? body.pools : undefined;
    if (!Array.isArray(raw) || raw.length > MAX_POOLS) throw bad(`pools must be a list of at most ${MAX_POOLS}`);
    const known = await poolAssignments(this.store);
    const reports = raw.map((r) => parseReport(r, known));
    // What the node may claim: each pool held to its own filesystem's figures and to the node's bound.
    const nodeObject = await this.store.tryGet('Node', undefined, node);
    const bound = poolBound(nodeObject?.metadata.annotations);
    const refused = reports.map((r) => ({ r, problems: poolReportProblems(r, bound) })).filter((x) => x.problems.length > 0);
    if (refused.length === 0) {
      await this.publish(node, reports);
      return { accepted: reports.length };
    }
    // Refused whole: the pools it named offer no room (their reason says why) until a report holds.
    const why = refused.map(({ r, problems }) => `pool ${r.path} of class ${r.className}: ${problems.join('; ')}`).join('; ');
    await this.publish(
      node,
      reports.map((r) => ({ className: r.className, path: r.path, usable: false, reason: `report refused: ${refusedReason(r, refused)}` })),
    );
    if (nodeObject) await this.recordRefusal(nodeObject, why);
    throw new StowageError('Invalid', `pool report of node "${node}" refused: ${why}`);
  }

  /**
   * For admins: what `node` reported of its pools over time (each change of a pool's
   * published figures, a refused report's reason included), newest first. Needs the
   * right to read Nodes.
   */
  async reportHistory(p: Principal, node: string, limit = 200): Promise<PoolReportRow[]> {
    if (!isAllowed(p, 'get', 'Node')) {
      throw new StowageError('Forbidden', `nodes "${node}" is forbidden: User "${p.name}" cannot get resource "nodes" in API group "" at the cluster scope`, { kind: 'nodes', name: node, group: '' });
    }
    return poolReportHistory(this.store, CAPACITY_NAMESPACE, node, Math.max(1, Math.min(limit, 1000)));
  }

  /** A Warning Event on the Node and a log line; never fails the call. */
  private async recordRefusal(nodeObject: Node, why: string): Promise<void> {
    logger.warn({ node: nodeObject.metadata.name, why }, 'pool report refused');
    try {
      await new EventRecorder(this.store, agentApiComponent, logger).record(nodeObject, 'Warning', reasons.poolReportRefused, `Pool report refused: ${why}`.slice(0, 1024));
    } catch (err) {
      logger.warn({ err, node: nodeObject.metadata.name }, 'could not record a pool report refusal');
    }
  }

  /**
   * One CSIStorageCapacity per reported pool (per node and class), in kube-system: the room
   * for new volumes, counting every volume's limit (those being created too) as taken.
   * Written only when something changed; those of classes no longer reported are deleted.
   */
  async publish(node: string, reports: PoolReport[]): Promise<void> {
    const records = await this.assets.list({ plugin: btrfsProvisioner, node });
    const existing = (await this.store.list('CSIStorageCapacity', { namespace: CAPACITY_NAMESPACE, labelSelector: `${labelPoolNode}=${node}` })).items;
    if (reports.length > 0 && !(await this.store.tryGet('Namespace', undefined, CAPACITY_NAMESPACE))) {
      await this.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: CAPACITY_NAMESPACE } }).catch(() => {});
    }
    const wanted = new Set<string>();
    // A node that is not Ready (or gone) offers no room, whatever its agent still says.
    const nodeObject = await this.store.tryGet('Node', undefined, node);
    for (const r of reports) {
      const allocated = records.filter((x) => (x.details as PoolAssetDetails).pool === r.path).reduce((sum, x) => sum + promisedBytes(x.details as PoolAssetDetails), 0n);
      const reported = capacityObject(node, r, allocated);
      const silenced = silencedCapacity(reported, nodeObject);
      if (silenced === 'delete') continue;
      const object = silenced ?? reported;
      const name = object.metadata.name!;
      wanted.add(name);
      const cur = existing.find((c) => c.metadata.name === name);
      if (!cur) {
        await this.store.create(object);
      } else if (cur.capacity !== object.capacity || JSON.stringify(cur.metadata.annotations ?? {}) !== JSON.stringify(object.metadata.annotations)) {
        await this.store.update({ ...cur, capacity: object.capacity, maximumVolumeSize: object.maximumVolumeSize, metadata: { ...cur.metadata, annotations: object.metadata.annotations } });
      }
    }
    for (const c of existing) {
      if (!wanted.has(c.metadata.name!)) await this.store.delete('CSIStorageCapacity', CAPACITY_NAMESPACE, c.metadata.name!).catch(() => {});
    }
    await this.recordUsage(records, reports);
  }

  /**
   * Used bytes of this node's volumes, from their qgroups, onto their PVs (the annotations
   * the claim and volume pages, the lists and the Capacity page read); at most one write per
   * volume every USAGE_INTERVAL_MS, none when unchanged. A volume whose PV already showed
   * the same bytes is not read again for USAGE_RECHECK_MS (this process remembers it), so a
   * report about many quiet volumes does not read every PV.
   */
  private async recordUsage(records: AssetRecord[], reports: PoolReport[]): Promise<void> {
    const ours = new Map(records.filter((r) => r.state === 'created' && r.details.pvUid).map((r) => [r.pvName, r]));
    const now = Date.now();
    if (this.shownUsage.size > 100_000) this.shownUsage.clear();
    for (const report of reports) {
      for (const [pvName, used] of Object.entries(report.usedBytes ?? {})) {
        const record = ours.get(pvName);
        if (!record || (record.details as PoolAssetDetails).pool !== report.path) continue;
        const shown = this.shownUsage.get(pvName);
        if (shown && shown.bytes === used && now - shown.at < USAGE_RECHECK_MS) continue;
        const pv = await this.store.recent('PersistentVolume', undefined, pvName);
        if (!pv || pv.metadata.uid !== record.details.pvUid || pv.metadata.deletionTimestamp) continue;
        const measured = { bytes: BigInt(used), partial: false };
        const update = usageUpdate(pv, measured, now, USAGE_INTERVAL_MS);
        if (!update) {
          const prev = usageOf(pv);
          if (prev && prev.bytes === measured.bytes && !prev.partial) this.shownUsage.set(pvName, { bytes: used, at: now });
          continue;
        }
        pv.metadata.annotations = withUsage(pv.metadata.annotations, update);
        try {
          await this.store.update(pv);
          this.shownUsage.set(pvName, { bytes: used, at: now });
        } catch {
          // a newer write wins; the next report tries again
        }
      }
    }
  }
}

/** Why a pool is shown unusable after a refused report: its own problems, or those of the report it came in. */
function refusedReason(r: PoolReport, refused: { r: PoolReport; problems: string[] }[]): string {
  const own = refused.find((x) => x.r === r);
  return own ? own.problems.join('; ') : 'another pool of the same report claimed more than its node may';
}

/** How long a volume's PV, seen showing the bytes reported, is not read again while they stay the same. */
export const USAGE_RECHECK_MS = 60_000;

/** The least time between two usage writes of one volume. */
export const USAGE_INTERVAL_MS = 5_000;

/** Where pools' capacity objects live (upstream: the CSI driver's namespace). */
export const CAPACITY_NAMESPACE = 'kube-system';

const quantity = (b: bigint) => formatQuantity(bytesToQuantity(b));

function capacityObject(node: string, r: PoolReport, allocated: bigint): CSIStorageCapacity {
  const room = reportedRoom(r, allocated);
  const annotations: Record<string, string> = { [annPoolPath]: r.path, [annPoolAllocated]: String(allocated) };
  if (r.usable) {
    annotations[annPoolTotal] = r.totalBytes ?? '0';
    annotations[annPoolFree] = r.freeBytes ?? '0';
  } else {
    annotations[annPoolProblem] = r.reason ?? 'not usable';
  }
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'CSIStorageCapacity',
    metadata: { name: poolCapacityName(node, r.className), namespace: CAPACITY_NAMESPACE, labels: { [labelPoolNode]: node }, annotations },
    storageClassName: r.className,
    nodeTopology: { matchLabels: { [labelHostname]: node } },
    capacity: quantity(room),
    maximumVolumeSize: quantity(room),
  };
}

function parseReport(raw: unknown, known: PoolAssignment[]): PoolReport {
  if (!isPlainObject(raw)) throw bad('each pool must be an object');
  const { className, path } = raw;
  if (typeof className !== 'string' || typeof path !== 'string' || !known.some((k) => k.className === className && k.path === path)) {
    throw bad(`pool ${JSON.stringify(path)} of class ${JSON.stringify(className)} is not the pool of a ${btrfsProvisioner} StorageClass`);
  }
  const num = (v: unknown, f: string) => {
    if (v === undefined) return undefined;
    if (typeof v !== 'string' || !DECIMAL_RE.test(v)) throw bad(`${f} must be a decimal string`);
    return v;
  };
  if (raw.usable !== true) {
    return { className, path, usable: false, reason: typeof raw.reason === 'string' ? raw.reason.slice(0, 500) : 'not usable' };
  }
  const used: Record<string, string> = {};
  if (raw.usedBytes !== undefined) {
    if (!isPlainObject(raw.usedBytes) || Object.keys(raw.usedBytes).length > 100_000) throw bad('usedBytes must be a map');
    for (const [k, v] of Object.entries(raw.usedBytes)) if (isPoolVolumeName(k)) used[k] = num(v, `usedBytes.${k}`)!;
  }
  let filesystem: PoolReport['filesystem'];
  if (raw.filesystem !== undefined) {
    const f = raw.filesystem;
    if (!isPlainObject(f)) throw bad('filesystem must be an object');
    filesystem = { blockSize: num(f.blockSize, 'filesystem.blockSize') ?? '0', blocks: num(f.blocks, 'filesystem.blocks') ?? '0', availableBlocks: num(f.availableBlocks, 'filesystem.availableBlocks') ?? '0' };
  }
  return {
    className,
    path,
    usable: true,
    totalBytes: num(raw.totalBytes, 'totalBytes') ?? '0',
    freeBytes: num(raw.freeBytes, 'freeBytes') ?? '0',
    ...(filesystem ? { filesystem } : {}),
    usedBytes: used,
  };
}

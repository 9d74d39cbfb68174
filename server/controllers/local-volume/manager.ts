// The local-volume manager on the shared runtime (seed 003 "Provisioner redesign": the
// central part that owns PV objects for local disks; node agents only discover and clean).
// One key per disk, `pv/<pv name>` (names are hashed from node, class and entry, so the
// PV name is the disk's identity). The reconcile reads the disk's report, its PV, its
// cleanup jobs and its node, lets `decide` (decide.ts) pick one step, and act.ts does it:
//   create          the PV (a failure is retried: the disk is "handled" only by its PV)
//   recordCleanup   a cleanup job row, BEFORE anything may wipe the disk
//   deletePv        after the wipe succeeded (then discovery re-creates it Available),
//                   or to withdraw an Available PV whose disk is gone
//   removeFinalizer let a PV deleted by hand go once its disk's fate is recorded
//   annotate        mark/unmark "disk missing" and "node not reporting", with an Event
//   event           upstream's warning about a Released volume it cannot reclaim (Recycle)
// Besides, a Block PV whose entry is now a directory gets upstream discovery's warning.
// Disk reports and job changes are not objects, so a 1 s poll of what changed feeds the
// queue besides the PV and Node watches.
import path from 'node:path';
import type { Logger } from 'pino';
import type { LocalClassConfig } from '../../domain/local-volume-config';
import { isNodeReady } from '../../domain/node-lifecycle';
import { isVolumeReleased } from '../../domain/volume-release';
import type { NodeAgentService } from '../../services/node-agent';
import type { ChangeEvent } from '../../store/change-feed';
import type { ObjectStore } from '../../store/object-store';
import type { ControllerSpec, ReconcileContext } from '../runtime/controller';
import type { EventRecorder } from '../../services/event-recorder';
import type { EventRecorders } from '../runtime/recorders';
import { decide, volumeModeWarning, type DiskFacts } from './decide';
import { act, type DiskScene } from './act';
import { isLocalVolume } from './volume';
import { defaultLocalPvOptions, parseLocalPvOptions, type LocalPvOptions } from '../../domain/local-pv-options';
import { localVolumeConfigName, localVolumeConfigNamespace } from '../../resources/config-map/strategy';
import { localVolumeProvisionerName } from '../../domain/well-known/provisioners';
import { annLocalNode } from '../../domain/well-known/annotations';
import { labelLocalNode } from '../../domain/well-known/labels';

/** The ConfigMap's provisioner-wide keys (checked when it was written; the defaults if it cannot be read). */
async function pvOptions(store: ObjectStore): Promise<LocalPvOptions> {
  const cm = await store.tryGet('ConfigMap', localVolumeConfigNamespace, localVolumeConfigName);
  const parsed = parseLocalPvOptions(cm?.data);
  return parsed.ok ? parsed.options : defaultLocalPvOptions;
}

const PV = 'PersistentVolume';
export const localVolumeManagerName = 'local-volume-manager';

export interface LocalVolumeManagerDeps {
  store: ObjectStore;
  agents: NodeAgentService;
  log: Logger;
  /** The Event recorders (runtime/recorders.ts): the manager reports as each node's provisioner name. */
  recorders: Pick<EventRecorders, 'for'>;
}

/** Reads what one disk's reconcile needs; undefined when there is nothing to look at. */
async function readDisk(d: LocalVolumeManagerDeps, ctx: ReconcileContext, pvName: string): Promise<DiskScene | undefined> {
  const { store, agents } = d;
  const disk = await agents.disks.byPvName(pvName);
  const pv = await store.tryGet(PV, undefined, pvName);
  if (pv && !isLocalVolume(pv)) {
    ctx.log.warn({ pv: pvName }, 'a PV that is not a local volume has the name of a discovered disk; leaving both alone');
    return undefined;
  }
  const nodeName = disk?.nodeName ?? pv?.metadata.annotations?.[annLocalNode];
  const hostPath = disk?.hostPath ?? pv?.spec?.local?.path;
  if (!nodeName || !hostPath) return undefined;
  const node = await store.tryGet('Node', undefined, nodeName);
  // The ConfigMap's options are read only when a step needs them (most reconciles change nothing).
  let options: Promise<LocalPvOptions> | undefined;
  const optionsNow = () => (options ??= pvOptions(store));
  // Upstream's static provisioner reports as its provisioner name, one per node (without the
  // node's uid under useNodeNameOnly).
  const provisionerName = async () => localVolumeProvisionerName(nodeName, (await optionsNow()).useNodeNameOnly ? undefined : node?.metadata.uid);
  const events = { record: async (...a: Parameters<EventRecorder['record']>) => d.recorders.for(await provisionerName()).record(...a) };
  return { pvName, nodeName, hostPath, disk, pv, node, options: optionsNow, provisionerName, events };
}

export async function reconcileDisk(d: LocalVolumeManagerDeps, ctx: ReconcileContext, pvName: string): Promise<{ requeueAfter?: number } | void> {
  const scene = await readDisk(d, ctx, pvName);
  if (!scene) return;
  const { pv, disk, nodeName, hostPath } = scene;
  const openJob = await d.agents.jobs.openForDisk(nodeName, hostPath);
  const pvJob = pv?.metadata.uid ? await d.agents.jobs.latestForPvUid(pv.metadata.uid) : undefined;
  const ref = pv?.spec?.claimRef;
  const claim = ref?.name ? await d.store.tryGet('PersistentVolumeClaim', ref.namespace ?? '', ref.name) : undefined;
  const facts: DiskFacts | undefined = disk ? { present: disk.present, eligible: disk.eligible, reason: disk.reason, volumeMode: disk.volumeMode } : undefined;
  if (pv && disk && volumeModeWarning(pv, facts, '')) {
    const cls = (await d.agents.configOf(nodeName)).classes.find((c: LocalClassConfig) => c.className === disk.className);
    const warning = volumeModeWarning(pv, facts, cls ? path.posix.join(cls.mountDir, disk.entryName) : hostPath)!;
    await scene.events.record(pv, warning.type, warning.reason, warning.message);
  }
  const decision = decide({
    disk: facts,
    pv,
    released: pv ? isVolumeReleased(pv, claim) : false,
    openJob: openJob ? { state: openJob.state, pvUid: openJob.pvUid } : undefined,
    pvJob: pvJob ? { state: pvJob.state, pvUid: pvJob.pvUid } : undefined,
    nodeReady: isNodeReady(scene.node),
  });
  ctx.log.debug({ pv: pvName, decision }, 'local volume decision');
  return act(d, ctx, scene, decision);
}

export interface LocalVolumeManagerOptions {
  concurrency?: number;
  /** How often disk reports and cleanup jobs are polled for changes (ms; default 1000). */
  pollMs?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
}

export function localVolumeManagerSpec(d: LocalVolumeManagerDeps, opts: LocalVolumeManagerOptions = {}): ControllerSpec {
  const allKeys = async () => {
    const names = new Set(await d.agents.disks.pvNames());
    const pvs = await d.store.list(PV, { labelSelector: labelLocalNode });
    for (const pv of pvs.items) names.add(pv.metadata.name!);
    return [...names].map((n) => `pv/${n}`);
  };
  // Disk reports and jobs are polled for changes; each change is queued once (the poll
  // window overlaps, so a change time already queued is skipped).
  let since: Date | undefined;
  let ticks = 0;
  const queuedAt = new Map<string, number>();
  const changedKeys = async () => {
    ticks++;
    if (since === undefined || ticks % 60 === 0) {
      const r = await d.agents.disks.changedSince(new Date(8.64e15));
      since = new Date(r.now.getTime() - 5_000);
      queuedAt.clear();
      return allKeys();
    }
    const disks = await d.agents.disks.changedSince(since);
    const jobs = await d.agents.jobs.changedSince(since);
    // Overlap by a few seconds: a row written before `now` may commit after this read.
    since = new Date(disks.now.getTime() - 5_000);
    const keys: string[] = [];
    for (const c of [...disks.changes, ...jobs]) {
      if ((queuedAt.get(c.pvName) ?? -1) >= c.at) continue;
      queuedAt.set(c.pvName, c.at);
      keys.push(`pv/${c.pvName}`);
    }
    if (queuedAt.size > 200_000) queuedAt.clear();
    return keys;
  };
  return {
    name: localVolumeManagerName,
    concurrency: opts.concurrency ?? 16,
    baseDelayMs: opts.baseDelayMs ?? 500,
    maxDelayMs: opts.maxDelayMs ?? 60_000,
    watch: {
      kinds: [PV, 'Node'],
      keysFor: (e: ChangeEvent) => {
        if (e.kind === 'Node') return [`node/${e.name}`];
        return e.kind === PV && isLocalVolume(e.object) ? [`pv/${e.name}`] : [];
      },
    },
    listKeys: allKeys,
    resync: { everyMs: opts.pollMs ?? 1000, listKeys: changedKeys },
    reconcile: async (key, ctx) => {
      if (key.startsWith('pv/')) return reconcileDisk(d, ctx, key.slice(3));
      if (key.startsWith('node/')) {
        const node = key.slice(5);
        const names = new Set(await d.agents.disks.pvNamesOfNode(node));
        const pvs = await d.store.list(PV, { labelSelector: `${labelLocalNode}=${node}` });
        for (const pv of pvs.items) names.add(pv.metadata.name!);
        for (const n of names) ctx.enqueue(`pv/${n}`);
      }
    },
  };
}


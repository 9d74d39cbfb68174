// The local-volume manager on the shared runtime (seed 003 "Provisioner redesign": the
// central part that owns PV objects for local disks; node agents only discover and clean).
// One key per disk, `pv/<pv name>` (names are hashed from node, class and entry, so the
// PV name is the disk's identity). The reconcile reads the disk's report, its PV, its
// cleanup jobs and its node, lets `decide` pick one step, and does it:
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
import { chooseCleanupMethod } from '../../domain/cleanup-method';
import { isNodeReady } from '../../domain/node-lifecycle';
import { isVolumeReleased } from '../../domain/volume-release';
import { StowageError } from '../../domain/errors';
import type { NodeAgentService } from '../../services/node-agent';
import type { ChangeEvent } from '../../store/change-feed';
import type { ObjectStore } from '../../store/object-store';
import type { ControllerSpec, ReconcileContext } from '../runtime/controller';
import { write } from '../runtime/write';
import { EventRecorder } from '../../services/event-recorder';
import { decide, volumeModeWarning } from './decide';
import { isLocalVolume, nodeSettings, planLocalVolume } from './volume';
import { defaultLocalPvOptions, parseLocalPvOptions, type LocalPvOptions } from '../../domain/local-pv-options';
import { localVolumeConfigName, localVolumeConfigNamespace } from '../../resources/config-map/strategy';

/** The ConfigMap's provisioner-wide keys (checked when it was written; the defaults if it cannot be read). */
async function pvOptions(store: ObjectStore): Promise<LocalPvOptions> {
  const cm = await store.tryGet('ConfigMap', localVolumeConfigNamespace, localVolumeConfigName);
  const parsed = parseLocalPvOptions(cm?.data);
  return parsed.ok ? parsed.options : defaultLocalPvOptions;
}
import { localVolumeProvisionerName } from '../../domain/well-known/provisioners';
import { localCleanupFinalizer } from '../../domain/well-known/finalizers';
import { annLocalNode } from '../../domain/well-known/annotations';
import { labelLocalNode } from '../../domain/well-known/labels';
import { reasons } from '../../domain/well-known/event-reasons';

const PV = 'PersistentVolume';
/** How soon a Released volume of a class missing from the map is looked at again (upstream: each discovery pass). */
const unknownClassRetryMs = 10_000;
export const localVolumeManagerName = 'local-volume-manager';

export interface LocalVolumeManagerDeps {
  store: ObjectStore;
  agents: NodeAgentService;
  log: Logger;
  events?: EventRecorder;
}

const without = (list: string[] | undefined, item: string) => (list ?? []).filter((f) => f !== item);

export async function reconcileDisk(d: LocalVolumeManagerDeps, ctx: ReconcileContext, pvName: string): Promise<{ requeueAfter?: number } | void> {
  const { store, agents } = d;
  const disk = await agents.disks.byPvName(pvName);
  const found = await store.tryGet(PV, undefined, pvName);
  if (found && !isLocalVolume(found)) {
    ctx.log.warn({ pv: pvName }, 'a PV that is not a local volume has the name of a discovered disk; leaving both alone');
    return;
  }
  const pv = found;
  const nodeName = disk?.nodeName ?? pv?.metadata.annotations?.[annLocalNode];
  const hostPath = disk?.hostPath ?? pv?.spec?.local?.path;
  if (!nodeName || !hostPath) return;
  const openJob = await agents.jobs.openForDisk(nodeName, hostPath);
  const pvJob = pv?.metadata.uid ? await agents.jobs.latestForPvUid(pv.metadata.uid) : undefined;
  const ref = pv?.spec?.claimRef;
  const claim = ref?.name ? await store.tryGet('PersistentVolumeClaim', ref.namespace ?? '', ref.name) : undefined;
  const node = await store.tryGet('Node', undefined, nodeName);
  // The ConfigMap's options are read only when a step needs them (most reconciles change nothing).
  let options: LocalPvOptions | undefined;
  const optionsNow = async () => (options ??= await pvOptions(store));
  // Upstream's static provisioner reports as its provisioner name, one per node (without the
  // node's uid under useNodeNameOnly).
  const provisionerName = async () => localVolumeProvisionerName(nodeName, (await optionsNow()).useNodeNameOnly ? undefined : node?.metadata.uid);
  let recorder = d.events;
  const events = { record: async (...a: Parameters<EventRecorder['record']>) => (recorder ??= new EventRecorder(store, await provisionerName(), d.log)).record(...a) };
  const facts = disk ? { present: disk.present, eligible: disk.eligible, reason: disk.reason, volumeMode: disk.volumeMode } : undefined;
  if (pv && volumeModeWarning(pv, facts, '')) {
    const cls = (await agents.configOf(nodeName)).classes.find((c: LocalClassConfig) => c.className === disk!.className);
    const warning = volumeModeWarning(pv, facts, cls ? path.posix.join(cls.mountDir, disk!.entryName) : hostPath)!;
    await events.record(pv, warning.type, warning.reason, warning.message);
  }
  const decision = decide({
    disk: facts,
    pv,
    released: pv ? isVolumeReleased(pv, claim) : false,
    openJob: openJob ? { state: openJob.state, pvUid: openJob.pvUid } : undefined,
    pvJob: pvJob ? { state: pvJob.state, pvUid: pvJob.pvUid } : undefined,
    // The schema lets a condition's type and status be any string; isNodeReady only compares them.
    nodeReady: isNodeReady(node),
  });
  ctx.log.debug({ pv: pvName, decision }, 'local volume decision');

  switch (decision.action) {
    case 'none':
      return;
    case 'event':
      await events.record(pv!, decision.event.type, decision.event.reason, decision.event.message);
      return;
    case 'create': {
      const sc = await store.tryGet('StorageClass', undefined, disk!.className);
      const config = (await agents.configOf(nodeName)).classes.find((c: LocalClassConfig) => c.className === disk!.className);
      const onNode = await store.list(PV, { labelSelector: `${labelLocalNode}=${nodeName}` });
      const plan = planLocalVolume({
        disk: disk!,
        config,
        storageClass: sc,
        provisionerName: await provisionerName(),
        nodeSettings: nodeSettings(await optionsNow(), { name: nodeName, uid: node?.metadata.uid, labels: node?.metadata.labels }),
        volumesOnNode: onNode.items,
      });
      if ('blocked' in plan) {
        ctx.log.info({ pv: pvName, node: nodeName, path: hostPath }, plan.blocked);
        return;
      }
      const created = await store.create(plan.pv).catch((e) => {
        if ((e as { code?: string }).code === 'AlreadyExists') return undefined;
        throw e; // retried with backoff; the disk stays unhandled until its PV exists
      });
      if (created) {
        ctx.wrote(created.metadata.resourceVersion);
        d.log.debug({ pv: pvName, node: nodeName, path: hostPath }, 'created a local volume');
      }
      return;
    }
    case 'recordCleanup': {
      const className = disk?.className ?? pv!.spec?.storageClassName ?? '';
      const cls = (await agents.configOf(nodeName)).classes.find((c: LocalClassConfig) => c.className === className);
      if (!cls && !decision.quarantine && !pv!.metadata.deletionTimestamp) {
        // Upstream's deleter: a class no longer in the storageClassMap is not cleaned (nothing
        // says how); a Warning each pass, and the cleanup starts once the class is back.
        await events.record(pv!, 'Warning', reasons.volumeFailedDelete, `Error cleaning PV "${pvName}": Unknown storage class name ${className}`);
        return { requeueAfter: unknownClassRetryMs };
      }
      // What the disk is decides the cleanup (upstream deleter's GetVolumeMode of the path), not
      // the PV's volumeMode: a block device offered as a Filesystem volume is wiped as a device.
      const mode: 'Filesystem' | 'Block' = (disk?.volumeMode ?? pv!.spec?.volumeMode) === 'Block' ? 'Block' : 'Filesystem';
      const plan = chooseCleanupMethod(mode, cls?.blockCleanerCommand ?? []);
      const quarantine = decision.quarantine ?? (plan.ok ? undefined : `no cleanup method: ${plan.message}`);
      const method = plan.ok ? plan.plan.method : mode === 'Block' ? 'fs-reset' : 'files';
      const { job, created } = await agents.jobs.record({
        nodeName,
        pvName,
        pvUid: pv!.metadata.uid ?? '',
        hostPath,
        className,
        volumeMode: mode,
        method,
        command: plan.ok && plan.plan.method === 'custom' ? (plan.plan.command ?? []) : [],
        fsType: cls?.fsType ?? '',
        state: quarantine ? 'quarantined' : 'queued',
        lastError: quarantine,
      });
      if (created) {
        await events.record(
          pv!,
          quarantine ? 'Warning' : 'Normal',
          quarantine ? reasons.cleanupQuarantined : reasons.cleanupQueued,
          quarantine ?? `cleanup ${job.id} (${method}) queued for ${hostPath} on node ${nodeName}; the volume is deleted when it succeeds`,
        );
      }
      return;
    }
    case 'deletePv': {
      await write(d, ctx, async (tx) => {
        const cur = await tx.get(PV, undefined, pvName);
        if (!cur || cur.metadata.uid !== pv!.metadata.uid) return;
        // Unchanged since we decided (a binder may have just bound an Available volume).
        if (cur.metadata.resourceVersion !== pv!.metadata.resourceVersion) throw new StowageError('Conflict', 'the volume changed; deciding again');
        if (cur.metadata.finalizers?.includes(localCleanupFinalizer)) {
          cur.metadata.finalizers = without(cur.metadata.finalizers, localCleanupFinalizer);
          await tx.update(cur);
        }
        if (!cur.metadata.deletionTimestamp) await tx.delete(PV, undefined, pvName, { preconditions: { uid: pv!.metadata.uid } });
      });
      d.log.debug({ pv: pvName, why: decision.why }, 'deleted a local volume');
      return;
    }
    case 'removeFinalizer': {
      await write(d, ctx, async (tx) => {
        const cur = await tx.get(PV, undefined, pvName);
        if (!cur || cur.metadata.uid !== pv!.metadata.uid || !cur.metadata.finalizers?.includes(localCleanupFinalizer)) return;
        cur.metadata.finalizers = without(cur.metadata.finalizers, localCleanupFinalizer);
        await tx.update(cur);
      });
      return;
    }
    case 'annotate': {
      const saved = await write(d, ctx, async (tx) => {
        const cur = await tx.get(PV, undefined, pvName);
        if (!cur || cur.metadata.uid !== pv!.metadata.uid) return undefined;
        const ann = { ...(cur.metadata.annotations ?? {}) };
        for (const [k, v] of Object.entries(decision.set)) {
          if (v === undefined) delete ann[k];
          else ann[k] = v;
        }
        cur.metadata.annotations = ann;
        return tx.update(cur);
      });
      if (saved && decision.event) await events.record(saved, decision.event.type, decision.event.reason, decision.event.message);
      return;
    }
  }
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


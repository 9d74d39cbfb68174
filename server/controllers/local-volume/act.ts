// What the local-volume manager does once decide.ts has picked the step for a disk: each
// step's writes (through the runtime's `write`, or the agents' job store) and its Event.
// The choices inside a step are pure too: the cleanup job in `cleanupStep`, the PV in
// `planLocalVolume` (volume.ts).
import type { Logger } from 'pino';
import type { LocalClassConfig } from '../../domain/local-volume-config';
import type { LocalPvOptions } from '../../domain/local-pv-options';
import { StowageError } from '../../domain/errors';
import { localCleanupFinalizer } from '../../domain/well-known/finalizers';
import { labelLocalNode } from '../../domain/well-known/labels';
import type { Node } from '../../resources/node/schema';
import type { PersistentVolume } from '../../resources/persistent-volume/schema';
import type { EventRecorder } from '../../services/event-recorder';
import type { NodeAgentService } from '../../services/node-agent';
import type { DiskRow } from '../../store/local-disks';
import type { ObjectStore } from '../../store/object-store';
import type { ReconcileContext } from '../runtime/controller';
import { write } from '../runtime/write';
import { cleanupRecordedEvent, cleanupStep, type Decision } from './decide';
import { nodeSettings, planLocalVolume } from './volume';

const PV = 'PersistentVolume';

export interface ActDeps {
  store: ObjectStore;
  agents: NodeAgentService;
  log: Logger;
}

/** One disk as its reconcile read it, with what a step may still need to read. */
export interface DiskScene {
  pvName: string;
  nodeName: string;
  hostPath: string;
  /** The agent's report of the disk, if any. */
  disk?: DiskRow;
  pv?: PersistentVolume;
  node?: Node;
  /** The ConfigMap's provisioner-wide options (read once, when first asked). */
  options(): Promise<LocalPvOptions>;
  /** The node's provisioner name, the PVs' provisioned-by and the Events' component. */
  provisionerName(): Promise<string>;
  events: Pick<EventRecorder, 'record'>;
}

const without = (list: string[] | undefined, item: string) => (list ?? []).filter((f) => f !== item);

/** The class's entry in the node's storageClassMap, if it is still there. */
async function classConfig(d: ActDeps, s: DiskScene, className: string): Promise<LocalClassConfig | undefined> {
  return (await d.agents.configOf(s.nodeName)).classes.find((c: LocalClassConfig) => c.className === className);
}

export async function act(d: ActDeps, ctx: ReconcileContext, s: DiskScene, decision: Decision): Promise<{ requeueAfter?: number } | void> {
  switch (decision.action) {
    case 'none':
      return;
    case 'event':
      await s.events.record(s.pv!, decision.event.type, decision.event.reason, decision.event.message);
      return;
    case 'create':
      return createPv(d, ctx, s);
    case 'recordCleanup':
      return recordCleanup(d, s, decision.quarantine);
    case 'deletePv':
      await deletePv(d, ctx, s);
      d.log.debug({ pv: s.pvName, why: decision.why }, 'deleted a local volume');
      return;
    case 'removeFinalizer':
      await write(d, ctx, async (tx) => {
        const cur = await tx.get(PV, undefined, s.pvName);
        if (!cur || cur.metadata.uid !== s.pv!.metadata.uid || !cur.metadata.finalizers?.includes(localCleanupFinalizer)) return;
        cur.metadata.finalizers = without(cur.metadata.finalizers, localCleanupFinalizer);
        await tx.update(cur);
      });
      return;
    case 'annotate': {
      const saved = await write(d, ctx, async (tx) => {
        const cur = await tx.get(PV, undefined, s.pvName);
        if (!cur || cur.metadata.uid !== s.pv!.metadata.uid) return undefined;
        const ann = { ...(cur.metadata.annotations ?? {}) };
        for (const [k, v] of Object.entries(decision.set)) {
          if (v === undefined) delete ann[k];
          else ann[k] = v;
        }
        cur.metadata.annotations = ann;
        return tx.update(cur);
      });
      if (saved && decision.event) await s.events.record(saved, decision.event.type, decision.event.reason, decision.event.message);
      return;
    }
  }
}

async function createPv(d: ActDeps, ctx: ReconcileContext, s: DiskScene): Promise<void> {
  const disk = s.disk!; // decide creates only for a reported disk
  const sc = await d.store.tryGet('StorageClass', undefined, disk.className);
  const onNode = await d.store.list(PV, { labelSelector: `${labelLocalNode}=${s.nodeName}` });
  const plan = planLocalVolume({
    disk,
    config: await classConfig(d, s, disk.className),
    storageClass: sc,
    provisionerName: await s.provisionerName(),
    nodeSettings: nodeSettings(await s.options(), { name: s.nodeName, uid: s.node?.metadata.uid, labels: s.node?.metadata.labels }),
    volumesOnNode: onNode.items,
  });
  if ('blocked' in plan) {
    ctx.log.info({ pv: s.pvName, node: s.nodeName, path: s.hostPath }, plan.blocked);
    return;
  }
  const created = await write(d, ctx, (tx) => tx.create(plan.pv)).catch((e) => {
    if ((e as { code?: string }).code === 'AlreadyExists') return undefined;
    throw e; // retried with backoff; the disk stays unhandled until its PV exists
  });
  if (created) {
    d.log.debug({ pv: s.pvName, node: s.nodeName, path: s.hostPath }, 'created a local volume');
  }
}

/** Records the disk's cleanup job (before anything may wipe it), with its Event. */
async function recordCleanup(d: ActDeps, s: DiskScene, quarantine: string | undefined): Promise<{ requeueAfter?: number } | void> {
  const pv = s.pv!; // decide records a cleanup only for a volume
  const className = s.disk?.className ?? pv.spec?.storageClassName ?? '';
  const step = cleanupStep({
    pvName: s.pvName,
    nodeName: s.nodeName,
    hostPath: s.hostPath,
    pv,
    className,
    diskMode: s.disk?.volumeMode,
    classConfig: await classConfig(d, s, className),
    quarantine,
  });
  if (step.action === 'waitForClass') {
    await s.events.record(pv, step.event.type, step.event.reason, step.event.message);
    return { requeueAfter: step.retryMs };
  }
  const { job, created } = await d.agents.jobs.record(step.job);
  if (created) {
    const e = cleanupRecordedEvent(step.job, job.id);
    await s.events.record(pv, e.type, e.reason, e.message);
  }
}

/** Deletes the volume (its finalizer first), if it is still the version decided on. */
async function deletePv(d: ActDeps, ctx: ReconcileContext, s: DiskScene): Promise<void> {
  const pv = s.pv!;
  await write(d, ctx, async (tx) => {
    const cur = await tx.get(PV, undefined, s.pvName);
    if (!cur || cur.metadata.uid !== pv.metadata.uid) return;
    // Unchanged since we decided (a binder may have just bound an Available volume).
    if (cur.metadata.resourceVersion !== pv.metadata.resourceVersion) throw new StowageError('Conflict', 'the volume changed; deciding again');
    if (cur.metadata.finalizers?.includes(localCleanupFinalizer)) {
      cur.metadata.finalizers = without(cur.metadata.finalizers, localCleanupFinalizer);
      await tx.update(cur);
    }
    if (!cur.metadata.deletionTimestamp) await tx.delete(PV, undefined, s.pvName, { preconditions: { uid: pv.metadata.uid } });
  });
}

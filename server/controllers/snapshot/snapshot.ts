// The snapshot controller on the shared runtime (upstream external-snapshotter's common
// controller): VolumeSnapshots bound to their VolumeSnapshotContents, both ways, their
// status, the default class, deletion by deletionPolicy and the snapshot finalizers. Keys
// vs/<namespace>/<name> and vsc/<name>. A snapshot of a claim gets its content created
// here (snapcontent-<uid>, with the claim's pvc-as-source-protection finalizer first);
// the snapshotter of the content's driver (../snapshotter/snapshotter.ts, the CSI sidecar's part) takes,
// deletes or keeps the physical snapshot and drops the content finalizer. Contents of a
// driver without an in-tree snapshotter lose that finalizer here, once their snapshot is
// gone or being deleted.
import type { Logger } from 'pino';
import type { EventRecorder } from '../../services/event-recorder';
import type { ObjectStore } from '../../store/object-store';
import type { PersistentVolume } from '../../resources/persistent-volume/schema';
import type { VolumeSnapshotClass } from '../../resources/volume-snapshot-class/schema';
import type { VolumeSnapshotContent } from '../../resources/volume-snapshot-content/schema';
import type { VolumeSnapshot } from '../../resources/volume-snapshot/schema';
import { annDynamicallyProvisioned, annVolumeSnapshotBeingDeleted } from '../../domain/well-known/annotations';
import { reasons } from '../../domain/well-known/event-reasons';
import { pvcAsSnapshotSourceFinalizer, volumeSnapshotContentFinalizer } from '../../domain/well-known/finalizers';
import type { ControllerSpec, ReconcileContext } from '../runtime/controller';
import { event } from '../runtime/event';
import { write } from '../runtime/write';
import { errorText } from '../runtime/errors';
import { capabilitiesOf, inTreeProvisionerNames } from '../../domain/provisioner-capabilities';
import {
  claimsRestoringFrom,
  contentToCreate,
  ensureClaimSourceFinalizer,
  decideContent,
  decideSnapshot,
  decideSnapshotClass,
  errorAction,
  releaseClaimSourceFinalizer,
  type ClassFacts,
} from './decide';
import { dynamicContentName, type SnapshotEvent } from './objects';

const VS = 'VolumeSnapshot';
const VSC = 'VolumeSnapshotContent';
const PVC = 'PersistentVolumeClaim';
export const snapshotControllerName = 'snapshot-controller';
/** How soon a snapshot whose step failed (missing content, misbinding, pending restore) is looked at again. */
const RETRY_MS = 5_000;

export interface SnapshotControllerDeps {
  store: ObjectStore;
  log: Logger;
  /** Its Event recorder (runtime/recorders.ts, keyed by its component). */
  events: EventRecorder;
}

type Deps = SnapshotControllerDeps;

const vsKey = (ns: string, name: string) => `vs/${ns}/${name}`;
const vscKey = (name: string) => `vsc/${name}`;
const timeNow = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Reads a snapshot again under its lock and applies `change` when it is still the version decided on. */
async function changeSnapshot(d: Deps, ctx: ReconcileContext, read: VolumeSnapshot, change: (vs: VolumeSnapshot) => void, status = false): Promise<boolean> {
  return write(d, ctx, async (t) => {
    const vs = await t.get(VS, read.metadata.namespace, read.metadata.name ?? '');
    if (!vs || vs.metadata.uid !== read.metadata.uid || vs.metadata.resourceVersion !== read.metadata.resourceVersion) return false;
    change(vs);
    await t.update(vs, status ? { subresource: 'status' } : {});
    return true;
  });
}

async function changeContent(d: Deps, ctx: ReconcileContext, name: string, change: (c: VolumeSnapshotContent) => boolean): Promise<boolean> {
  return write(d, ctx, async (t) => {
    const c = await t.get(VSC, undefined, name);
    if (!c || !change(c)) return false;
    await t.update(c);
    return true;
  });
}

async function emit(d: Deps, obj: VolumeSnapshot | VolumeSnapshotContent, events: SnapshotEvent[]): Promise<void> {
  for (const e of events) await event(d, obj, e.type, e.reason, e.message);
}

/** The driver of a claim's volume, for the default class (upstream pvDriverFromSnapshot). */
async function sourceDriver(d: Deps, vs: VolumeSnapshot): Promise<ClassFacts['sourceDriver']> {
  const name = vs.spec?.source?.persistentVolumeClaimName;
  if (name === undefined) return undefined;
  const claim = await d.store.tryGet(PVC, vs.metadata.namespace, name);
  if (!claim) return { error: `failed to retrieve PVC ${name} from the lister: "persistentvolumeclaim \\"${name}\\" not found"` };
  const pvName = claim.spec?.volumeName;
  if (!pvName) return { error: `the PVC ${name} is not yet bound to a PV, will not attempt to take a snapshot` };
  const pv: PersistentVolume | undefined = await d.store.tryGet('PersistentVolume', undefined, pvName);
  const driver = pv?.spec?.csi?.driver ?? pv?.metadata.annotations?.[annDynamicallyProvisioned];
  return driver ? { driver } : { error: `snapshotting non-CSI volumes is not supported, snapshot:${vs.metadata.namespace}/${vs.metadata.name}` };
}

/** upstream checkandRemovePVCFinalizer: the source claim's finalizer goes once no snapshot of it is being taken. */
async function releaseSourceClaim(d: Deps, ctx: ReconcileContext, vs: VolumeSnapshot, skipThis: boolean): Promise<void> {
  const name = vs.spec?.source?.persistentVolumeClaimName;
  if (name === undefined) return;
  const claim = await d.store.tryGet(PVC, vs.metadata.namespace, name);
  if (!claim) return;
  const snapshots = (await d.store.list(VS, { namespace: vs.metadata.namespace })).items;
  if (releaseClaimSourceFinalizer(claim, snapshots, skipThis ? vs.metadata.name : undefined).action !== 'remove') return;
  await write(d, ctx, async (t) => {
    const c = await t.get(PVC, claim.metadata.namespace, name);
    if (!c || c.metadata.uid !== claim.metadata.uid) return;
    c.metadata.finalizers = (c.metadata.finalizers ?? []).filter((f) => f !== pvcAsSnapshotSourceFinalizer);
    await t.update(c);
  });
}

/** Whether a driver's snapshots are taken in-tree (and whether it can take them at all); undefined: an external driver. */
export function inTreeSnapshots(driver: string): boolean | undefined {
  return inTreeProvisionerNames.has(driver) ? capabilitiesOf(driver).snapshots === true : undefined;
}

/**
 * upstream createSnapshotContent: the claim's finalizer (whatever comes next), then the
 * content; or the error, with no content made (false: look again a little later, as
 * upstream's resync does).
 */
async function createContent(d: Deps, ctx: ReconcileContext, read: VolumeSnapshot, classes: VolumeSnapshotClass[], now: string): Promise<boolean> {
  const claimName = read.spec?.source?.persistentVolumeClaimName;
  const claim = claimName !== undefined ? await d.store.tryGet(PVC, read.metadata.namespace, claimName) : undefined;
  const volume = claim?.spec?.volumeName ? await d.store.tryGet('PersistentVolume', undefined, claim.spec.volumeName) : undefined;
  // ensurePVCFinalizer first: a claim that is not bound yet (or a class that is wrong) still
  // gets its protection, kept while the snapshot is not ready.
  if (claim && ensureClaimSourceFinalizer(claim).action === 'add') {
    await write(d, ctx, async (t) => {
      const c = await t.get(PVC, claim.metadata.namespace, claim.metadata.name ?? '');
      if (!c || c.metadata.uid !== claim.metadata.uid || c.metadata.deletionTimestamp || (c.metadata.finalizers ?? []).includes(pvcAsSnapshotSourceFinalizer)) return;
      c.metadata.finalizers = [...(c.metadata.finalizers ?? []), pvcAsSnapshotSourceFinalizer];
      await t.update(c);
    });
  }
  const choice = contentToCreate({ snapshot: read, classes, claim, volume, canSnapshot: inTreeSnapshots });
  if (!choice.ok) {
    const step = errorAction(read, true, choice.reason, choice.message, now);
    if (step.action === 'error' && (await changeSnapshot(d, ctx, read, (vs) => (vs.status = step.status), true))) await emit(d, read, [step.event]);
    return false;
  }
  try {
    await write(d, ctx, (t) => t.create(choice.content));
  } catch (err) {
    if ((err as { code?: string }).code !== 'AlreadyExists') {
      await event(d, read, 'Warning', reasons.createSnapshotContentFailed, `Error creating volume snapshot content object for snapshot ${namespaceName(read)}: ${errorText(err)}.`);
      throw err;
    }
    return true;
  }
  await event(d, read, 'Normal', reasons.creatingSnapshot, `Waiting for a snapshot ${namespaceName(read)} to be created by the CSI driver.`);
  // Its echo is not handed back to this controller: the content gets its finalizer on this look.
  ctx.enqueue(vscKey(choice.content.metadata.name ?? ''));
  return true;
}

const namespaceName = (vs: VolumeSnapshot) => `${vs.metadata.namespace ?? ''}/${vs.metadata.name ?? ''}`;

export async function syncSnapshot(d: Deps, ctx: ReconcileContext, namespace: string, name: string): Promise<void> {
  const read = await d.store.tryGet(VS, namespace, name);
  if (!read) return;
  const again = () => ctx.enqueue(vsKey(namespace, name), RETRY_MS);
  // The echo of this reconcile's own writes is not reconciled: each step looks again itself.
  const next = () => ctx.enqueue(vsKey(namespace, name));
  const now = timeNow();

  // checkAndUpdateSnapshotClass
  const classes = (await d.store.list('VolumeSnapshotClass')).items;
  const cls = decideSnapshotClass({ snapshot: read, classes, sourceDriver: read.spec?.volumeSnapshotClassName === undefined ? await sourceDriver(d, read) : undefined });
  if (cls.action === 'setClass') {
    await changeSnapshot(d, ctx, read, (vs) => (vs.spec = { ...vs.spec, volumeSnapshotClassName: cls.className }));
    next();
    return;
  }
  if (cls.action === 'error' && !cls.proceed) {
    const step = errorAction(read, false, cls.event.reason, cls.message, now);
    if (step.action === 'error' && (await changeSnapshot(d, ctx, read, (vs) => (vs.status = step.status), true))) await emit(d, read, [step.event]);
    again();
    return;
  }

  await releaseSourceClaim(d, ctx, read, false);
  const names = [read.spec?.source?.volumeSnapshotContentName, read.status?.boundVolumeSnapshotContentName, dynamicContentName(read)].filter((n): n is string => Boolean(n));
  const contents = new Map<string, VolumeSnapshotContent>();
  for (const n of new Set(names)) {
    const c = await d.store.tryGet(VSC, undefined, n);
    if (c) contents.set(n, c);
  }
  const restoring = read.metadata.deletionTimestamp ? claimsRestoringFrom(read, (await d.store.list(PVC, { namespace })).items) : [];
  const step = decideSnapshot({ snapshot: read, content: (n) => contents.get(n), restoringClaims: restoring, now });
  ctx.log.debug({ snapshot: `${namespace}/${name}`, step: step.action }, 'snapshot step');

  switch (step.action) {
    case 'none':
      return;
    case 'createContent':
      if (await createContent(d, ctx, read, classes, now)) next();
      else again();
      return;
    case 'error':
      if (await changeSnapshot(d, ctx, read, (vs) => (vs.status = step.status), true)) await emit(d, read, [step.event]);
      again();
      return;
    case 'pending':
      await emit(d, read, [step.event]);
      again();
      return;
    case 'addFinalizers':
      await changeSnapshot(d, ctx, read, (vs) => (vs.metadata.finalizers = [...(vs.metadata.finalizers ?? []), ...step.finalizers]));
      next();
      return;
    case 'bindContent': {
      const bound = await changeContent(d, ctx, step.contentName, (c) => {
        const ref = c.spec?.volumeSnapshotRef;
        if (!c.spec || !ref || ref.name !== read.metadata.name || ref.namespace !== namespace || (ref.uid && ref.uid !== step.uid)) return false;
        ref.uid = step.uid;
        if (step.className !== undefined) c.spec.volumeSnapshotClassName = step.className;
        return true;
      });
      // The snapshot takes its status on the next look; the content gets its finalizer on its own.
      ctx.enqueue(vscKey(step.contentName));
      ctx.enqueue(vsKey(namespace, name), bound ? 0 : RETRY_MS);
      return;
    }
    case 'updateStatus':
      if (await changeSnapshot(d, ctx, read, (vs) => (vs.status = step.status), true)) await emit(d, read, step.events);
      next();
      return;
    case 'finishDeletion': {
      if (step.annotateContent) {
        await changeContent(d, ctx, step.annotateContent, (c) => {
          c.metadata.annotations = { ...c.metadata.annotations, [annVolumeSnapshotBeingDeleted]: 'yes' };
          return true;
        });
      }
      if (step.deleteContent) {
        await write(d, ctx, async (t) => {
          const c = await t.get(VSC, undefined, step.deleteContent!);
          if (c && !c.metadata.deletionTimestamp) await t.delete(VSC, undefined, step.deleteContent!);
        });
      }
      if (step.removeFinalizers.length > 0) {
        await releaseSourceClaim(d, ctx, read, true);
        await changeSnapshot(d, ctx, read, (vs) => (vs.metadata.finalizers = (vs.metadata.finalizers ?? []).filter((f) => !step.removeFinalizers.includes(f))));
      }
      if (step.annotateContent) ctx.enqueue(vscKey(step.annotateContent));
      if (step.deleteContent) ctx.enqueue(vscKey(step.deleteContent));
      next();
      return;
    }
  }
}

export async function syncContent(d: Deps, ctx: ReconcileContext, name: string): Promise<void> {
  const c = await d.store.tryGet(VSC, undefined, name);
  if (!c) return;
  const ref = c.spec?.volumeSnapshotRef;
  const named = ref?.name && ref.namespace ? await d.store.tryGet(VS, ref.namespace, ref.name) : undefined;
  if (c.metadata.deletionTimestamp) {
    // The sidecar's part, with nothing physical to delete: the finalizer goes once the
    // content's snapshot is gone or being deleted (or it was never bound).
    const vs = named && named.metadata.uid === ref?.uid ? named : undefined;
    // A driver with an in-tree snapshotter: the snapshotter deletes or keeps the snapshot and drops the finalizer.
    const snapshotter = inTreeSnapshots(c.spec?.driver ?? '') !== undefined;
    if (!snapshotter && (c.metadata.finalizers ?? []).includes(volumeSnapshotContentFinalizer) && (!vs || vs.metadata.deletionTimestamp)) {
      await changeContent(d, ctx, name, (x) => {
        x.metadata.finalizers = (x.metadata.finalizers ?? []).filter((f) => f !== volumeSnapshotContentFinalizer);
        return true;
      });
    }
    if (ref?.name && ref.namespace) ctx.enqueue(vsKey(ref.namespace, ref.name));
    return;
  }
  const step = decideContent(c, named);
  const lookAgain = () => {
    ctx.enqueue(vscKey(name));
    if (ref?.name && ref.namespace) ctx.enqueue(vsKey(ref.namespace, ref.name));
  };
  switch (step.action) {
    case 'none':
      return;
    case 'invalid':
      await emit(d, c, [step.event]);
      return;
    case 'addFinalizer':
      await changeContent(d, ctx, name, (x) => {
        if (x.metadata.deletionTimestamp || (x.metadata.finalizers ?? []).includes(volumeSnapshotContentFinalizer)) return false;
        x.metadata.finalizers = [...(x.metadata.finalizers ?? []), volumeSnapshotContentFinalizer];
        return true;
      });
      lookAgain();
      return;
    case 'markBeingDeleted':
      await changeContent(d, ctx, name, (x) => {
        x.metadata.annotations = { ...x.metadata.annotations, [annVolumeSnapshotBeingDeleted]: 'yes' };
        return true;
      });
      lookAgain();
      return;
    case 'syncSnapshot':
      if (ref?.name && ref.namespace) ctx.enqueue(vsKey(ref.namespace, ref.name));
      return;
  }
}

export function snapshotControllerSpec(deps: SnapshotControllerDeps, opts: { concurrency?: number; resyncMs?: number } = {}): ControllerSpec {
  const d: Deps = deps;
  const keys = async () => [
    ...(await d.store.list(VS)).items.map((s) => vsKey(s.metadata.namespace ?? '', s.metadata.name ?? '')),
    ...(await d.store.list(VSC)).items.map((c) => vscKey(c.metadata.name ?? '')),
  ];
  return {
    name: snapshotControllerName,
    concurrency: opts.concurrency ?? 4,
    watch: {
      kinds: [VS, VSC, PVC],
      keysFor: (e) => {
        if (e.kind === VS) {
          const vs = e.object;
          const content = vs.status?.boundVolumeSnapshotContentName ?? vs.spec?.source?.volumeSnapshotContentName;
          return [...(e.type === 'DELETED' ? [] : [vsKey(e.namespace ?? '', e.name)]), ...(content ? [vscKey(content)] : [])];
        }
        if (e.kind === VSC) {
          const ref = e.object.spec?.volumeSnapshotRef;
          return [...(e.type === 'DELETED' ? [] : [vscKey(e.name)]), ...(ref?.name && ref.namespace ? [vsKey(ref.namespace, ref.name)] : [])];
        }
        // A claim restoring from a snapshot holds that snapshot's deletion.
        if (e.kind !== PVC) return [];
        const ds = e.object.spec?.dataSource;
        return ds?.kind === VS && ds.name ? [vsKey(e.namespace ?? '', ds.name)] : [];
      },
    },
    listKeys: keys,
    resync: { everyMs: opts.resyncMs ?? 60_000, listKeys: keys },
    reconcile: async (key, ctx) => {
      const [kind, a, b] = key.split('/');
      if (kind === 'vs' && a && b) await syncSnapshot(d, ctx, a, b);
      else if (kind === 'vsc' && a) await syncContent(d, ctx, a);
    },
  };
}

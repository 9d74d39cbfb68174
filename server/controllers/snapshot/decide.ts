// What upstream's snapshot controller (kubernetes-csi/external-snapshotter
// pkg/common-controller/snapshot_controller.go and snapshot_controller_base.go) does with a
// VolumeSnapshot, a VolumeSnapshotContent and a snapshotted claim, as pure decisions: the
// reconcile reads the facts, one of these picks one step, the reconcile does it and looks
// again. Events and error messages are upstream's, word for word.
import type { PersistentVolumeClaim } from '../../resources/persistent-volume-claim/schema';
import type { PersistentVolume } from '../../resources/persistent-volume/schema';
import type { VolumeSnapshotClass } from '../../resources/volume-snapshot-class/schema';
import type { VolumeSnapshotContent } from '../../resources/volume-snapshot-content/schema';
import type { VolumeSnapshot } from '../../resources/volume-snapshot/schema';
import { isDefaultSnapshotClass } from '../../resources/volume-snapshot-class/strategy';
import { annDeletionSecretRefName, annDeletionSecretRefNamespace, annDynamicallyProvisioned, annVolumeSnapshotBeingDeleted } from '../../domain/well-known/annotations';
import { snapshotterSecretRef } from '../../domain/secret-references';
import { reasons } from '../../domain/well-known/event-reasons';
import {
  pvcAsSnapshotSourceFinalizer,
  volumeSnapshotAsSourceFinalizer,
  volumeSnapshotBoundFinalizer,
  volumeSnapshotContentFinalizer,
} from '../../domain/well-known/finalizers';
import {
  dynamicContentName,
  exactlyOne,
  has,
  isBoundContentNameSet,
  isSnapshotDeletionCandidate,
  isSnapshotReady,
  isVolumeSnapshotRefSet,
  needsUpdateSnapshotStatus,
  snapshotKey,
  statusFromContent,
  warning,
  type SnapshotEvent,
  type SnapshotStatus,
} from './objects';

// ---------------------------------------------------------------------------------------
// The class (checkAndUpdateSnapshotClass, SetDefaultSnapshotClass)

export type DefaultClassChoice = { ok: true; className: string } | { ok: false; message: string };

/** The default class of a driver: exactly one class marked default for it, else upstream's error. */
export function chooseDefaultSnapshotClass(classes: readonly VolumeSnapshotClass[], driver: string): DefaultClassChoice {
  const defaults = classes.filter((c) => isDefaultSnapshotClass(c) && c.driver === driver);
  if (defaults.length === 0) return { ok: false, message: 'cannot find default snapshot class' };
  if (defaults.length > 1) return { ok: false, message: `${defaults.length} default snapshot classes were found` };
  return { ok: true, className: defaults[0].metadata.name ?? '' };
}

export interface ClassFacts {
  snapshot: VolumeSnapshot;
  classes: readonly VolumeSnapshotClass[];
  /** For a snapshot of a claim without a class: the driver of the claim's volume, or why there is none. */
  sourceDriver?: { driver: string } | { error: string };
}

/**
 *   none     the class is set and exists, or the snapshot needs none (pre-provisioned)
 *   setClass fill in the default class of the source's driver
 *   error    record the error in status (readyToUse unchanged) with the event; `proceed`:
 *            the snapshot is being deleted and may still be synced without its class
 */
export type ClassAction =
  | { action: 'none' }
  | { action: 'setClass'; className: string }
  | { action: 'error'; message: string; event: SnapshotEvent; proceed: boolean };

export function decideSnapshotClass(f: ClassFacts): ClassAction {
  const vs = f.snapshot;
  const name = vs.spec?.volumeSnapshotClassName;
  if (name !== undefined) {
    if (f.classes.some((c) => c.metadata.name === name)) return { action: 'none' };
    const message = `Failed to get snapshot class with error volumesnapshotclass.snapshot.storage.k8s.io "${name}" not found`;
    return { action: 'error', message, event: warning(reasons.getSnapshotClassFailed, message), proceed: Boolean(vs.metadata.deletionTimestamp) };
  }
  if (vs.spec?.source?.volumeSnapshotContentName !== undefined) return { action: 'none' };
  const src = f.sourceDriver ?? { error: 'the snapshot source PVC name is not specified' };
  const choice: DefaultClassChoice = 'error' in src ? { ok: false, message: src.error } : chooseDefaultSnapshotClass(f.classes, src.driver);
  if (choice.ok) return { action: 'setClass', className: choice.className };
  const message = `Failed to set default snapshot class with error ${choice.message}`;
  return { action: 'error', message, event: warning(reasons.setDefaultSnapshotClassFailed, message), proceed: false };
}

// ---------------------------------------------------------------------------------------
// The snapshot (syncSnapshot and what it calls)

export interface SnapshotFacts {
  snapshot: VolumeSnapshot;
  /** Contents by name, as read (only the ones the snapshot may name are needed). */
  content(name: string): VolumeSnapshotContent | undefined;
  /** Claims of the snapshot's namespace restoring from it now: Pending, dataSource this snapshot. */
  restoringClaims: readonly string[];
  /** Now, for the time of a recorded error. */
  now: string;
}

/**
 *   none            nothing to write
 *   error           write `status` (the error, readyToUse false when upstream sets it) and the event, then retry
 *   pending         keep the snapshot as it is and retry later, with the event (deletion waits for a restore)
 *   addFinalizers   add these finalizers to the snapshot
 *   bindContent     complete the content's side of a pre-provisioned binding: its ref's uid (and class)
 *   updateStatus    write the status taken from the bound content, with the events
 *   createContent   a snapshot of a claim whose content does not exist yet: take the snapshot
 *   finishDeletion  mark the content (annotation), delete it when its policy is Delete, drop these finalizers
 */
export type SnapshotAction =
  | { action: 'none'; why: string }
  | { action: 'error'; status: SnapshotStatus; event: SnapshotEvent }
  | { action: 'pending'; event: SnapshotEvent; why: string }
  | { action: 'addFinalizers'; finalizers: string[] }
  | { action: 'bindContent'; contentName: string; uid: string; className?: string }
  | { action: 'updateStatus'; status: SnapshotStatus; events: SnapshotEvent[] }
  | { action: 'createContent' }
  | { action: 'finishDeletion'; annotateContent?: string; deleteContent?: string; removeFinalizers: string[] };

/**
 * upstream updateSnapshotErrorStatusWithEvent: the status with this error (and readyToUse
 * false when asked); nothing when the same message is recorded already (no write, no event).
 */
export function errorAction(vs: VolumeSnapshot, setReadyToFalse: boolean, reason: string, message: string, now: string): SnapshotAction {
  if (vs.status?.error?.message === message) return { action: 'none', why: `error already recorded: ${message}` };
  const status: SnapshotStatus = { ...structuredClone(vs.status ?? {}), error: { time: now, message } };
  if (setReadyToFalse) status.readyToUse = false;
  return { action: 'error', status, event: warning(reason, message) };
}

type ContentLookup = { content?: VolumeSnapshotContent } | { error: SnapshotAction };

/** upstream getPreprovisionedContentFromStore: the content the snapshot names, if it is pre-provisioned and meant for it. */
function preProvisionedContent(f: SnapshotFacts): ContentLookup {
  const vs = f.snapshot;
  const name = vs.spec?.source?.volumeSnapshotContentName ?? '';
  const c = f.content(name);
  if (!c) return {};
  if (c.spec?.source?.snapshotHandle === undefined) {
    return { error: errorAction(vs, true, reasons.snapshotContentMismatch, 'VolumeSnapshotContent is dynamically provisioned while expecting a pre-provisioned one', f.now) };
  }
  const ref = c.spec.volumeSnapshotRef;
  if (ref?.name !== vs.metadata.name || ref?.namespace !== vs.metadata.namespace || (ref?.uid && ref.uid !== vs.metadata.uid)) {
    return { error: errorAction(vs, true, reasons.snapshotContentMisbound, `VolumeSnapshotContent [${name}] is bound to a different snapshot`, f.now) };
  }
  return { content: c };
}

/** upstream getDynamicallyProvisionedContentFromStore: the content taken for this snapshot (snapcontent-<uid>). */
function dynamicContent(f: SnapshotFacts): ContentLookup {
  const vs = f.snapshot;
  const name = dynamicContentName(vs);
  const c = f.content(name);
  if (!c) return {};
  if (c.spec?.source?.volumeHandle === undefined) {
    return { error: errorAction(vs, true, reasons.snapshotContentMismatch, `VolumeSnapshotContent ${name} is pre-provisioned while expecting a dynamically provisioned one`, f.now) };
  }
  const ref = c.spec.volumeSnapshotRef;
  if (ref?.name !== vs.metadata.name || ref?.namespace !== vs.metadata.namespace || ref?.uid !== vs.metadata.uid) {
    return { error: errorAction(vs, true, reasons.snapshotContentMisbound, `VolumeSnapshotContent [${name}] is bound to a different snapshot`, f.now) };
  }
  return { content: c };
}

/** upstream processSnapshotWithDeletionTimestamp and checkandRemoveSnapshotFinalizersAndCheckandDeleteContent. */
function decideDeletion(f: SnapshotFacts): SnapshotAction {
  const vs = f.snapshot;
  let name = vs.status?.boundVolumeSnapshotContentName ?? '';
  if (!name && vs.spec?.source?.persistentVolumeClaimName !== undefined) name = dynamicContentName(vs);
  const found = name ? f.content(name) : undefined;
  // Only a content that points back is marked or deleted.
  const content = found && isVolumeSnapshotRefSet(vs, found) ? found : undefined;
  const deleteContent = content?.spec?.deletionPolicy === 'Delete';
  if (!isSnapshotDeletionCandidate(vs)) return { action: 'none', why: 'deleted, and holds no snapshot finalizer' };
  if (content && f.restoringClaims.length > 0) {
    return {
      action: 'pending',
      event: warning(reasons.snapshotDeletePending, 'Snapshot is being used to restore a PVC'),
      why: `snapshot ${snapshotKey(vs)} is in use (being used to restore a PVC), will retry deletion`,
    };
  }
  const fin = vs.metadata.finalizers;
  const removeFinalizers = [volumeSnapshotAsSourceFinalizer];
  // The bound finalizer stays until a content being deleted is gone.
  if (!(content && deleteContent)) removeFinalizers.push(volumeSnapshotBoundFinalizer);
  return {
    action: 'finishDeletion',
    annotateContent: content && content.metadata.annotations?.[annVolumeSnapshotBeingDeleted] === undefined ? content.metadata.name : undefined,
    deleteContent: content && deleteContent ? content.metadata.name : undefined,
    removeFinalizers: removeFinalizers.filter((x) => has(fin, x)),
  };
}

/** upstream checkandBindSnapshotContent: the content's side of a pre-provisioned binding. */
function bindContentAction(vs: VolumeSnapshot, c: VolumeSnapshotContent, now: string): SnapshotAction | undefined {
  const ref = c.spec?.volumeSnapshotRef;
  const mismatch = `Could not bind snapshot ${vs.metadata.name ?? ''} and content ${c.metadata.name ?? ''}, the VolumeSnapshotRef does not match`;
  if (ref?.name !== vs.metadata.name || (ref?.uid && ref.uid !== vs.metadata.uid)) {
    return errorAction(vs, true, reasons.snapshotBindFailed, `Snapshot failed to bind VolumeSnapshotContent, ${mismatch}`, now);
  }
  if (ref?.uid && c.spec?.volumeSnapshotClassName !== undefined) return undefined;
  const className = vs.spec?.volumeSnapshotClassName;
  // Already written (the patch is idempotent; the next look goes on to the status).
  if (ref?.uid === vs.metadata.uid && (className === undefined || c.spec?.volumeSnapshotClassName === className)) return undefined;
  return { action: 'bindContent', contentName: c.metadata.name ?? '', uid: vs.metadata.uid ?? '', ...(className !== undefined ? { className } : {}) };
}

/** One step for a snapshot (upstream syncSnapshot). */
export function decideSnapshot(f: SnapshotFacts): SnapshotAction {
  const vs = f.snapshot;
  if (vs.metadata.deletionTimestamp) return decideDeletion(f);
  const src = vs.spec?.source;
  if (!exactlyOne(src?.persistentVolumeClaimName, src?.volumeSnapshotContentName)) {
    return errorAction(vs, true, reasons.snapshotValidationError, 'Exactly one of PersistentVolumeClaimName and VolumeSnapshotContentName should be specified', f.now);
  }
  const preProvisioned = src?.volumeSnapshotContentName !== undefined;

  // checkandAddSnapshotFinalizers
  const found = preProvisioned ? preProvisionedContent(f) : dynamicContent(f);
  if ('error' in found) return found.error;
  const fin = vs.metadata.finalizers;
  const add: string[] = [];
  if (!has(fin, volumeSnapshotAsSourceFinalizer)) add.push(volumeSnapshotAsSourceFinalizer);
  if (found.content && !has(fin, volumeSnapshotBoundFinalizer) && isBoundContentNameSet(vs) && found.content.spec?.deletionPolicy === 'Delete') {
    add.push(volumeSnapshotBoundFinalizer);
  }
  if (add.length > 0) return { action: 'addFinalizers', finalizers: add };

  if (!isSnapshotReady(vs) || !isBoundContentNameSet(vs)) {
    // syncUnreadySnapshot
    const c = found.content;
    if (preProvisioned) {
      if (!c) return errorAction(vs, true, reasons.snapshotContentMissing, 'VolumeSnapshotContent is missing', f.now);
      const bind = bindContentAction(vs, c, f.now);
      if (bind) return bind;
    } else if (!c) {
      return { action: 'createContent' };
    }
    const next = statusFromContent(vs, c);
    return next ? { action: 'updateStatus', ...next } : { action: 'none', why: 'status agrees with the content' };
  }

  // syncReadySnapshot
  const bound = f.content(vs.status?.boundVolumeSnapshotContentName ?? '');
  if (!bound) return errorAction(vs, true, reasons.snapshotContentMissing, 'VolumeSnapshotContent is missing', f.now);
  if (!isVolumeSnapshotRefSet(vs, bound)) return errorAction(vs, true, reasons.snapshotMisbound, 'VolumeSnapshotContent is not bound to the VolumeSnapshot correctly', f.now);
  return { action: 'none', why: 'ready and bound both ways' };
}

// ---------------------------------------------------------------------------------------
// The content (syncContent)

/**
 *   none             nothing to do
 *   invalid          the event, then retry (the source is not exactly one handle)
 *   addFinalizer     add the content finalizer
 *   markBeingDeleted its snapshot is being deleted: annotate the content (the deleter acts on its policy)
 *   syncSnapshot     the snapshot's status lags the content's: look at the snapshot now
 */
export type ContentAction =
  | { action: 'none'; why: string }
  | { action: 'invalid'; event: SnapshotEvent }
  | { action: 'addFinalizer' }
  | { action: 'markBeingDeleted' }
  | { action: 'syncSnapshot' };

/** One step for a content, given the snapshot its ref names (by namespace/name) as read. */
export function decideContent(c: VolumeSnapshotContent, named: VolumeSnapshot | undefined): ContentAction {
  if (!exactlyOne(c.spec?.source?.volumeHandle, c.spec?.source?.snapshotHandle)) {
    return { action: 'invalid', event: warning(reasons.contentValidationError, 'Exactly one of VolumeHandle and SnapshotHandle should be specified') };
  }
  const uid = c.spec?.volumeSnapshotRef?.uid;
  if (!uid) return { action: 'none', why: 'reserved for a snapshot that has not bound it yet' };
  if (!c.metadata.deletionTimestamp && !has(c.metadata.finalizers, volumeSnapshotContentFinalizer)) return { action: 'addFinalizer' };
  // A snapshot of the same name but another uid is not this content's: treated as missing
  // (and a missing snapshot never deletes a content: it may be a copied manifest).
  const vs = named && named.metadata.uid === uid ? named : undefined;
  if (vs && isSnapshotDeletionCandidate(vs)) {
    return c.metadata.annotations?.[annVolumeSnapshotBeingDeleted] === undefined ? { action: 'markBeingDeleted' } : { action: 'none', why: 'marked: its snapshot is being deleted' };
  }
  if (vs && needsUpdateSnapshotStatus(vs, c)) return { action: 'syncSnapshot' };
  return { action: 'none', why: vs ? 'bound; the snapshot is up to date' : 'its snapshot is gone: the content is kept' };
}

// ---------------------------------------------------------------------------------------
// The claim being snapshotted (ensurePVCFinalizer, checkandRemovePVCFinalizer, isPVCBeingUsed)

/** Whether a snapshot other than `skip` is still being taken of the claim (upstream isPVCBeingUsed). */
export function isClaimBeingSnapshotted(claim: PersistentVolumeClaim, snapshots: readonly VolumeSnapshot[], skip?: string): boolean {
  return snapshots.some(
    (s) => s.metadata.name !== skip && s.metadata.namespace === claim.metadata.namespace && s.spec?.source?.persistentVolumeClaimName === claim.metadata.name && !isSnapshotReady(s),
  );
}

export type ClaimFinalizerAction = { action: 'none' } | { action: 'add' } | { action: 'remove' } | { action: 'error'; message: string };

/** Before taking a snapshot of the claim: its pvc-as-source-protection finalizer (upstream ensurePVCFinalizer). */
export function ensureClaimSourceFinalizer(claim: PersistentVolumeClaim): ClaimFinalizerAction {
  if (has(claim.metadata.finalizers, pvcAsSnapshotSourceFinalizer)) return { action: 'none' };
  if (claim.metadata.deletionTimestamp) return { action: 'error', message: 'cannot add finalizer on claim because it is being deleted' };
  return { action: 'add' };
}

/** The claim's finalizer goes once no snapshot of it (but `skip`) is being taken (upstream checkandRemovePVCFinalizer). */
export function releaseClaimSourceFinalizer(claim: PersistentVolumeClaim, snapshots: readonly VolumeSnapshot[], skip?: string): ClaimFinalizerAction {
  if (!has(claim.metadata.finalizers, pvcAsSnapshotSourceFinalizer)) return { action: 'none' };
  return isClaimBeingSnapshotted(claim, snapshots, skip) ? { action: 'none' } : { action: 'remove' };
}

/** Claims restoring from the snapshot now: Pending, with the snapshot as dataSource (upstream isVolumeBeingCreatedFromSnapshot). */
export function claimsRestoringFrom(vs: VolumeSnapshot, claims: readonly PersistentVolumeClaim[]): string[] {
  return claims
    .filter((c) => {
      const ds = c.spec?.dataSource;
      return (
        c.metadata.namespace === vs.metadata.namespace &&
        ds?.name === vs.metadata.name &&
        ds?.kind === 'VolumeSnapshot' &&
        ds?.apiGroup === 'snapshot.storage.k8s.io' &&
        c.status?.phase === 'Pending'
      );
    })
    .map((c) => c.metadata.name ?? '');
}

// ---------------------------------------------------------------------------------------
// Taking a snapshot of a claim (createSnapshotContent, getCreateSnapshotInput)

export interface CreateContentFacts {
  snapshot: VolumeSnapshot;
  classes: readonly VolumeSnapshotClass[];
  claim?: PersistentVolumeClaim;
  volume?: PersistentVolume;
  /** Whether the volume's driver can take snapshots: false for an in-tree plugin that cannot, undefined for an external driver. */
  canSnapshot(driver: string): boolean | undefined;
}

export type ContentChoice = { ok: true; content: VolumeSnapshotContent } | { ok: false; reason: string; message: string };

/** Go's %q of a string (what upstream's messages quote errors with). */
const q = (s: string) => JSON.stringify(s);

/**
 * The content upstream's createSnapshotContent would create for a snapshot of a claim, or
 * its error (the snapshot's SnapshotContentCreationFailed, "Failed to create snapshot
 * content with error ..."), in upstream's order: the claim and its finalizer
 * (ensurePVCFinalizer) first, then the class, the binding and the volume
 * (getCreateSnapshotInput). The reconcile puts the claim's finalizer on before it records
 * a later error (a Pending claim keeps it while the snapshot is not ready). A volume no
 * driver can snapshot (a local static volume, a plugin without snapshots) is refused here,
 * before anything is made.
 */
export function contentToCreate(f: CreateContentFacts): ContentChoice {
  const vs = f.snapshot;
  const name = vs.metadata.name ?? '';
  const fail = (message: string): ContentChoice => ({ ok: false, reason: reasons.snapshotContentCreationFailed, message: `Failed to create snapshot content with error ${message}` });
  const input = (err: string) => fail(`failed to get input parameters to create snapshot ${name}: ${q(err)}`);
  const claimName = vs.spec?.source?.persistentVolumeClaimName;
  if (claimName === undefined) return { ok: false, reason: reasons.snapshotPVCSourceMissing, message: `PVC source for snapshot ${snapshotKey(vs)} is missing` };
  // ensurePVCFinalizer comes first: the claim must exist and take the finalizer before anything else is looked at.
  const claim = f.claim;
  if (!claim) return fail(`snapshot controller failed to update ${name} on API server: cannot get claim from snapshot`);
  if (claim.metadata.deletionTimestamp && !has(claim.metadata.finalizers, pvcAsSnapshotSourceFinalizer)) {
    return fail(`snapshot controller failed to update ${claimName} on API server: cannot add finalizer on claim because it is being deleted`);
  }
  const className = vs.spec?.volumeSnapshotClassName;
  if (className === undefined) return input(`failed to take snapshot ${name} without a snapshot class`);
  const cls = f.classes.find((c) => c.metadata.name === className);
  if (!cls) return input(`volumesnapshotclass.snapshot.storage.k8s.io ${q(className)} not found`);
  const pvName = claim.spec?.volumeName;
  if (claim.status?.phase !== 'Bound' || !pvName) return input(`the PVC ${claimName} is not yet bound to a PV, will not attempt to take a snapshot`);
  const pv = f.volume;
  if (!pv || pv.metadata.name !== pvName) return input(`failed to retrieve PV ${pvName} from the API server: ${q(`persistentvolume ${q(pvName)} not found`)}`);
  const secret = snapshotterSecretRef(cls.parameters ?? {}, dynamicContentName(vs), { name, namespace: vs.metadata.namespace ?? '' });
  if (!secret.ok) return input(secret.message);
  const driver = pv.spec?.csi?.driver ?? pv.metadata.annotations?.[annDynamicallyProvisioned];
  if (!driver || f.canSnapshot(driver) === false) return fail(`cannot find CSI PersistentVolumeSource for volume ${pvName}`);
  if (cls.driver !== driver) return fail(`the VolumeSnapshotClass ${className} is for driver ${cls.driver}, but volume ${pvName} of PVC ${claimName} is of driver ${driver}`);
  return {
    ok: true,
    content: {
      apiVersion: 'snapshot.storage.k8s.io/v1',
      kind: 'VolumeSnapshotContent',
      metadata: {
        name: dynamicContentName(vs),
        ...(secret.ref ? { annotations: { [annDeletionSecretRefName]: secret.ref.name, [annDeletionSecretRefNamespace]: secret.ref.namespace } } : {}),
      },
      spec: {
        volumeSnapshotRef: { kind: 'VolumeSnapshot', apiVersion: 'snapshot.storage.k8s.io/v1', name, namespace: vs.metadata.namespace, uid: vs.metadata.uid, resourceVersion: vs.metadata.resourceVersion },
        source: { volumeHandle: pv.spec?.csi?.volumeHandle ?? pvName },
        volumeSnapshotClassName: className,
        deletionPolicy: cls.deletionPolicy,
        driver: cls.driver,
        sourceVolumeMode: pv.spec?.volumeMode ?? 'Filesystem',
      },
    },
  };
}

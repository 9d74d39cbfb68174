// What the binder does with a claim (upstream syncClaim / syncUnboundClaim / syncBoundClaim
// and provisionClaim, pkg/controller/volume/persistentvolume/pv_controller.go). Pure: the
// reconcile (claim-sync.ts) reads the facts, this picks one step, the reconcile does it.
//
// A claim is looked at in up to two rounds of facts: first as read (a bound claim is
// decided then; an unbound one may get the default class, then looks for a volume), then,
// for an unbound claim, with what the bind transaction found under its locks (a volume to
// bind, or why none, which keeps it Pending or hands it to provisioning).
import { isDeepStrictEqual } from 'node:util';
import type { Situation } from '../../domain/binding-explanation';
import { checkRequestedVolume, claimClass, claimHasClass, isVolumeBoundToClaim, type Match, type MatchOptions } from '../../domain/matching';
import type { PersistentVolume } from '../../resources/persistent-volume/schema';
import type { PersistentVolumeClaim } from '../../resources/persistent-volume-claim/schema';
import type { StorageClass } from '../../resources/storage-class/schema';
import type { EventType } from '../../services/event-recorder';
import { annBindCompleted, annBindingExplanation, annSelectedNode } from '../../domain/well-known/annotations';
import { conditionBindable } from '../../domain/well-known/conditions';
import { reasons } from '../../domain/well-known/event-reasons';
import { inTreeProvisionerPrefix, noProvisioner } from '../../domain/well-known/provisioners';
import { dataSourceKind } from '../../domain/data-source';

export interface ClaimFacts {
  /** The claim as read (with the default class this reconcile filled in). */
  claim: PersistentVolumeClaim;
  /** A bound claim: the volume it names, as read (undefined: it names none, or it is gone). */
  volume?: PersistentVolume;
  /** The newest default StorageClass; read only for a claim without class or volume name. */
  defaultClass?: string;
  /** The claim's StorageClass, when it names one that exists. */
  storageClass?: StorageClass;
  /** How the claim matches: WaitForFirstConsumer, and the node its consumer was given. */
  opts?: MatchOptions;
  /**
   * A WaitForFirstConsumer claim without a node: its pods that are not yet placed (and not
   * terminated), by name (upstream findNonScheduledPodsByPVC).
   */
  unscheduledPods?: string[];
  /** Provisioner names of the in-tree plugins. */
  inTreeProvisioners: ReadonlySet<string>;
  /** What the bind transaction found under its locks; unset until it ran. */
  locked?: LockedFacts;
}

export interface LockedFacts {
  /** The claim under its row lock (undefined: gone). */
  claim?: PersistentVolumeClaim;
  /** A claim naming no volume: the seed's match in the store, if any. */
  match?: Match;
  /** No match, and candidates were skipped because other binders hold them. */
  busy?: boolean;
  /** A claim naming its volume: that volume under its lock (undefined: it does not exist). */
  requested?: PersistentVolume;
}

export interface BinderEvent {
  type: EventType;
  reason: string;
  message: string;
}

/**
 * One step:
 *   none             nothing to write
 *   setDefaultClass  fill the default class into the claim, then look for a volume
 *   lookForVolume    run the bind transaction (which decides again with what it finds)
 *   bind             write the binding of the claim and this volume
 *   retry            the claim changed under the lock: look again now
 *   retrySoon        matching volumes are held by other binders: look again in a moment
 *   provision        hand the claim to its class's provisioner (annotations), Pending
 *   pending          keep it Pending with why (near volumes listed unless it named its volume)
 *   markLost         its volume is gone or bound to another claim: phase Lost, an Event
 */
export type ClaimAction =
  | { action: 'none'; why: string }
  | { action: 'setDefaultClass'; className: string }
  | { action: 'lookForVolume' }
  | { action: 'bind'; volume: PersistentVolume }
  | { action: 'retry'; why: string }
  | { action: 'retrySoon'; why: string }
  | { action: 'provision'; provisioner: string; situation: Situation; events: BinderEvent[] }
  | { action: 'pending'; situation: Situation; events: BinderEvent[]; showNear: boolean }
  | { action: 'markLost'; reason: string; message: string };

export function isBindCompleted(claim: PersistentVolumeClaim): boolean {
  return claim.metadata.annotations?.[annBindCompleted] !== undefined;
}

export function decide(f: ClaimFacts): ClaimAction {
  if (isBindCompleted(f.claim)) return decideBound(f.claim, f.volume);
  if (!f.locked) return decideUnbound(f);
  return decideLocked(f, f.locked);
}

/** Whether both sides already say everything a binding says (then nothing is written). */
export function bindingComplete(volume: PersistentVolume, claim: PersistentVolumeClaim): boolean {
  const ref = volume.spec?.claimRef;
  return (
    volume.status?.phase === 'Bound' &&
    ref?.uid === claim.metadata.uid &&
    ref?.name === claim.metadata.name &&
    claim.spec?.volumeName === volume.metadata.name &&
    claim.status?.phase === 'Bound' &&
    claim.status?.capacity !== undefined &&
    isDeepStrictEqual(claim.status?.accessModes, volume.spec?.accessModes) &&
    claim.metadata.annotations?.[annBindingExplanation] === undefined &&
    !(claim.status?.conditions ?? []).some((c) => c?.type === conditionBindable)
  );
}

function lost(claim: PersistentVolumeClaim, reason: string, message: string): ClaimAction {
  if (claim.status?.phase === 'Lost') return { action: 'none', why: 'already Lost' };
  return { action: 'markLost', reason, message };
}

/** Upstream syncBoundClaim: the claim's volume is gone, misbound, complete, or to finish. */
function decideBound(claim: PersistentVolumeClaim, volume: PersistentVolume | undefined): ClaimAction {
  if (!claim.spec?.volumeName) {
    return lost(claim, reasons.claimLost, 'Bound claim has lost reference to PersistentVolume. Data on the volume is lost!');
  }
  if (!volume) return lost(claim, reasons.claimLost, 'Bound claim has lost its PersistentVolume. Data on the volume is lost!');
  const ref = volume.spec?.claimRef;
  if (ref && ref.uid !== claim.metadata.uid) {
    return lost(claim, reasons.claimMisbound, 'Two claims are bound to the same volume, this one is bound incorrectly');
  }
  // The volume is unbound (bind it again) or bound to this claim (finish what is missing).
  if (bindingComplete(volume, claim)) return { action: 'none', why: 'bound' };
  return { action: 'bind', volume };
}

/** A claim that gets the default class, when there is one: no class, no volume named, not being deleted. */
export function mayTakeDefaultClass(claim: PersistentVolumeClaim): boolean {
  return !claim.metadata.deletionTimestamp && !claimHasClass(claim) && !claim.spec?.volumeName;
}

/** Before the bind transaction: fill in the default class, then look for a volume. */
function decideUnbound(f: ClaimFacts): ClaimAction {
  if (mayTakeDefaultClass(f.claim) && f.defaultClass !== undefined) return { action: 'setDefaultClass', className: f.defaultClass };
  return { action: 'lookForVolume' };
}

/** What the bind transaction found: bind, look again, or why the claim stays unbound. */
function decideLocked(f: ClaimFacts, l: LockedFacts): ClaimAction {
  const c = l.claim;
  if (!c || c.metadata.resourceVersion !== f.claim.metadata.resourceVersion) return { action: 'retry', why: 'the claim changed' };
  const volumeName: string | undefined = c.spec?.volumeName || undefined;
  if (!volumeName) {
    // [upstream unit test set 1] the user did not care which volume.
    if (l.match) return { action: 'bind', volume: l.match.volume };
    // Matching volumes exist but other binders hold them right now: look again soon.
    if (l.busy) return { action: 'retrySoon', why: 'candidates are held by other binders' };
    return unmatched(f);
  }
  // [upstream unit test set 2] the user asked for a specific volume.
  const v = l.requested;
  if (!v) return unmatched(f, { situation: { kind: 'volumeNotFound', volumeName } });
  if (!v.spec?.claimRef) {
    const problems = checkRequestedVolume(c, v);
    if (problems.length === 0) return { action: 'bind', volume: v };
    const message = `Cannot bind to requested volume "${volumeName}": ${problems[0]}`;
    const event = { type: 'Warning' as const, reason: reasons.volumeMismatch, message };
    return unmatched(f, { situation: { kind: 'volumeMismatch', volumeName, problems }, event });
  }
  if (isVolumeBoundToClaim(v, c)) return { action: 'bind', volume: v };
  const other = `${v.spec.claimRef.namespace ?? ''}/${v.spec.claimRef.name ?? ''}`;
  const event = { type: 'Warning' as const, reason: reasons.failedBinding, message: `volume "${volumeName}" already bound to a different claim.` };
  return unmatched(f, { situation: { kind: 'volumeBoundElsewhere', volumeName, claim: other }, event });
}

/**
 * No volume for the claim. A claim on its way out still binds (so its volume is released
 * properly), but it is not explained or handed to provisioning any more.
 */
function unmatched(f: ClaimFacts, requested?: { situation: Situation; event?: BinderEvent }): ClaimAction {
  if (f.claim.metadata.deletionTimestamp) return { action: 'none', why: 'being deleted: binds, but is not explained or provisioned' };
  if (requested) return { action: 'pending', situation: requested.situation, events: requested.event ? [requested.event] : [], showNear: false };
  return pendingAction(f);
}

function externalProvisioningMessage(provisioner: string): string {
  return (
    `Waiting for a volume to be created either by the external provisioner '${provisioner}' or manually by the system administrator. ` +
    'If volume creation is delayed, please verify that the provisioner is running and correctly registered.'
  );
}

/** Upstream's ProvisioningFailed text for a claim with a data source on a non-CSI plugin. */
export function dataSourceRefusal(plugin: string): string {
  return `plugin "${plugin}" is not a CSI plugin. Only CSI plugin can provision a claim with a datasource`;
}

const pending = (situation: Situation, event?: BinderEvent): ClaimAction => ({ action: 'pending', situation, events: event ? [event] : [], showNear: true });

/**
 * Upstream emitEventForUnboundDelayBindingClaim: waiting for a first consumer, or, when pods
 * naming the claim exist but none is placed yet, for those pods to be scheduled (all named:
 * any of them may be the one placed first).
 */
export function delayBindingEvent(unscheduledPods: readonly string[]): { reason: string; message: string } {
  if (unscheduledPods.length === 0) return { reason: reasons.waitForFirstConsumer, message: 'waiting for first consumer to be created before binding' };
  const message = unscheduledPods.length > 1 ? `waiting for pods ${unscheduledPods.join(',')} to be scheduled` : `waiting for pod ${unscheduledPods[0]} to be scheduled`;
  return { reason: reasons.waitForPodScheduled, message };
}

/** upstream storagehelpers.IsDelayBindingProvisioning: the scheduler named a node for the claim's consumer. */
export const isDelayBindingProvisioning = (claim: PersistentVolumeClaim) => claim.metadata.annotations?.[annSelectedNode] !== undefined;

/** Upstream syncUnboundClaim's "no volume found" branch: provisioning, or why not. */
function pendingAction(f: ClaimFacts): ClaimAction {
  const { claim, storageClass: sc } = f;
  const cls = claimClass(claim);
  // upstream IsDelayBindingProvisioning: the selected-node annotation, whatever node it names
  // (one Stowage does not know included): the provisioner decides about the node.
  if (f.opts?.delayBinding && !isDelayBindingProvisioning(claim)) {
    return pending({ kind: 'waitForFirstConsumer', className: cls }, { type: 'Normal', ...delayBindingEvent(f.unscheduledPods ?? []) });
  }
  if (cls === '') {
    const noDefault = !claimHasClass(claim) && f.defaultClass === undefined;
    const message = 'no persistent volumes available for this claim and no storage class is set';
    return pending(noDefault ? { kind: 'noDefaultClass' } : { kind: 'noMatch' }, { type: 'Normal', reason: reasons.failedBinding, message });
  }
  if (!sc) {
    const message = `storageclass.storage.k8s.io "${cls}" not found`;
    return pending({ kind: 'classNotFound', className: cls }, { type: 'Warning', reason: reasons.provisioningFailed, message });
  }
  const provisioner: string = sc.provisioner ?? '';
  const refused = (message: string) =>
    pending({ kind: 'cannotProvision', className: cls, provisioner }, { type: 'Warning', reason: reasons.provisioningFailed, message });
  const situation: Situation = { kind: 'waitingForProvisioner', className: cls, provisioner };
  if (f.inTreeProvisioners.has(provisioner)) {
    // Upstream provisionClaimOperation: only CSI drivers populate volumes. The in-tree
    // plugins act as CSI drivers do for snapshots and clones; any other kind is refused.
    if (dataSourceKind(claim) === 'other') return refused(dataSourceRefusal(provisioner));
    return { action: 'provision', provisioner, situation, events: [] };
  }
  if (provisioner === noProvisioner || provisioner.startsWith(inTreeProvisionerPrefix)) return refused(`no volume plugin matched name: ${provisioner}`);
  const event = { type: 'Normal' as const, reason: reasons.externalProvisioning, message: externalProvisioningMessage(provisioner) };
  return { action: 'provision', provisioner, situation, events: [event] };
}

// Finding a claim's volume in the store, and writing a binding. Both run inside one
// ControllerTx: the claim row is locked first, candidate volume rows are locked as they
// are taken (FOR UPDATE SKIP LOCKED: concurrent binders take different volumes instead of
// waiting for each other), and both sides are written in the same commit, each guarded
// by the resourceVersion read under the lock. So no volume is ever bound to two claims,
// nor a claim to two volumes, whatever runs concurrently. Only the chosen volume's row
// is locked, so concurrent binders never block each other.
import { claimRefTo } from '../../domain/claim-ref';
import { accessModesToBits } from '../../domain/access-modes';
import { labelSelectorToSelector } from '../../domain/label-selector';
import {
  accessModeGroups,
  bySize,
  claimClass,
  evaluateVolume,
  isVolumeBoundToClaim,
  pickInGroup,
  requestedStorage,
  type Match,
  type MatchOptions,
} from '../../domain/matching';
import { quantityToBytes } from '../../domain/quantity';
import type { PersistentVolume } from '../../resources/persistent-volume/schema';
import type { PersistentVolumeClaim } from '../../resources/persistent-volume-claim/schema';
import { availableVolumes, lockAvailableVolume, lockClaimWithReservations, volumesClaimedBy, type LabelRequirement } from '../../store/volume-queries';
import type { ControllerTx } from '../runtime/controller-tx';
import { prefetchedForOthers, prefetchedReservations, prefetchedVolume } from './bind-prefetch';
import { annBindCompleted, annBindingExplanation, annBoundByController } from '../../domain/well-known/annotations';
import { conditionBindable } from '../../domain/well-known/conditions';

const PAGE = 16;
const MAX_PAGES = 16;

/** The claim's selector as requirements; undefined when it has none, null when invalid. */
function selectorOf(claim: PersistentVolumeClaim): LabelRequirement[] | undefined | null {
  const ls = claim.spec?.selector;
  if (ls === undefined || ls === null) return undefined;
  try {
    return labelSelectorToSelector(ls).requirements;
  } catch {
    return null;
  }
}

export interface LockedClaim {
  claim?: PersistentVolumeClaim;
  /** Names of the volumes whose claimRef names the claim, when read with it. */
  reserved?: string[];
}

/**
 * The claim as this transaction sees it, its row locked, with the volumes reserved for it
 * read in the same round trip (the first two reads of every bind). A claim this
 * transaction already wrote, or one another transaction holds, takes the ControllerTx
 * path (read-your-writes; RowBusyError).
 */
export async function lockClaimForBinding(tx: ControllerTx, namespace: string, name: string): Promise<LockedClaim> {
  if (!tx.hasPending('PersistentVolumeClaim', namespace, name)) {
    // Locked with the rest of its batch (bind-prefetch.ts): no round trip.
    const reserved = prefetchedReservations(tx, namespace, name);
    if (reserved) return { claim: await tx.get('PersistentVolumeClaim', namespace, name), reserved };
    const row = await lockClaimWithReservations(tx, namespace, name);
    if (row) {
      tx.remember(row.claim);
      return { claim: structuredClone(row.claim), reserved: row.reserved }; // a row of kind PVC
    }
  }
  return { claim: await tx.get('PersistentVolumeClaim', namespace, name) };
}

export interface StoreMatch {
  match?: Match;
  /** No match, but candidates were skipped because other transactions held them. */
  busy: boolean;
}

/**
 * The seed's algorithm over the store: per access-mode group, closest first, a volume
 * pre-bound to the claim, else the smallest Available one that passes every rule. The
 * chosen volume's row is locked by this transaction; rows other binders hold are skipped
 * (they are being bound), never waited for, and reported as `busy`.
 */
export async function findMatchInStore(tx: ControllerTx, claim: PersistentVolumeClaim, opts: MatchOptions, reservedNames?: string[]): Promise<StoreMatch> {
  const ns = claim.metadata.namespace ?? '';
  // Volumes reserved for the claim, as this transaction sees them (locked; never waited for).
  const names = reservedNames ?? (await volumesClaimedBy(tx, ns, claim.metadata.name!)).map((v) => v.metadata.name!);
  const reserved: PersistentVolume[] = [];
  for (const name of names) {
    const v = await tx.get('PersistentVolume', undefined, name);
    if (v) reserved.push(v);
  }
  // Volumes other parts of this (batched) transaction are binding look free in the table,
  // and so do those its prefetch chose for other claims.
  const written = tx.volumesWritten();
  const exclude = [...written, ...prefetchedForOthers(tx, ns, claim.metadata.name!)];
  const bits = (pv: PersistentVolume) => accessModesToBits(pv.spec?.accessModes ?? []);
  const labels = selectorOf(claim);
  const base = {
    storageClass: claimClass(claim),
    volumeMode: claim.spec?.volumeMode ?? 'Filesystem',
    minBytes: quantityToBytes(requestedStorage(claim)).toString(),
    labels: labels ?? undefined,
  };
  // With the selector in SQL, only node affinity is left for code to check.
  const exact = !opts.node;
  let busy = false;
  for (const set of accessModeGroups(claim.spec?.accessModes ?? [])) {
    const pre = pickInGroup(claim, reserved.filter((v) => bits(v) === set).sort(bySize), opts);
    if (pre) return { match: pre, busy };
    // WaitForFirstConsumer: only a volume pre-bound to the claim (placement chose it for the
    // pod's node, as upstream's scheduler does) binds; with the node selected and none
    // pre-bound, the claim is provisioned there (upstream findMatchingVolume skips free
    // volumes when the PV controller matches a delayed claim).
    if (opts.delayBinding || labels === null) continue; // no free volume can match
    const q = { ...base, accessModes: set, exclude };
    // The volume the batch's prefetch chose and locked for this claim, unless a previous
    // reconcile of the batch has written it since.
    const chosen = prefetchedVolume(tx, ns, claim.metadata.name!, set);
    if (chosen && !written.includes(chosen)) {
      const v = await tx.get('PersistentVolume', undefined, chosen);
      const found = v && pickInGroup(claim, [v], opts);
      if (found) return { match: found, busy };
    }
    if (exact) {
      // One round trip: the first matching row no one else holds, locked.
      const [first] = await availableVolumes(tx, { ...q, limit: 1, skipLocked: true });
      if (first) {
        tx.remember(first.volume);
        const found = pickInGroup(claim, [first.volume], opts); // a row of kind PV
        if (found) return { match: found, busy };
      } else {
        busy ||= (await availableVolumes(tx, { ...q, limit: 1 })).length > 0;
        continue;
      }
    }
    // Node affinity is checked in code: read pages without locks, lock the first that fits.
    for (let page = 0; page < MAX_PAGES; page++) {
      const rows = await availableVolumes(tx, { ...q, offset: page * PAGE, limit: PAGE });
      for (const r of rows) {
        // availableVolumes and lockAvailableVolume read rows of kind PV.
        if (evaluateVolume(claim, r.volume, opts).failures.length > 0) continue;
        const locked = (await lockAvailableVolume(tx, r.volume.metadata.name!));
        if (!locked) {
          busy = true;
          continue;
        }
        tx.remember(locked);
        if (evaluateVolume(claim, locked, opts).failures.length === 0) return { match: { volume: locked, prebound: false }, busy };
      }
      if (rows.length < PAGE) break;
    }
  }
  return { busy };
}


export interface Binding {
  volume: PersistentVolume;
  claim: PersistentVolumeClaim;
}

/**
 * Writes the binding of both sides (upstream bind(): bindVolumeToClaim, volume phase
 * Bound, bindClaimToVolume, claim status Bound with capacity and access modes). Only what
 * differs is written. Both objects must have been read in this transaction.
 */
export async function writeBinding(tx: ControllerTx, volume: PersistentVolume, claim: PersistentVolumeClaim): Promise<Binding> {
  const v = structuredClone(volume);
  const ref = v.spec?.claimRef;
  const alreadyBound = isVolumeBoundToClaim(volume, claim);
  if (!ref || ref.name !== claim.metadata.name || (ref.namespace ?? '') !== (claim.metadata.namespace ?? '') || ref.uid !== claim.metadata.uid) {
    v.spec!.claimRef = claimRefTo(claim); // a stored volume has a spec: validation requires its capacity
  }
  v.metadata.annotations ??= {};
  if (!alreadyBound && v.metadata.annotations[annBoundByController] === undefined) v.metadata.annotations[annBoundByController] = 'yes';
  if (Object.keys(v.metadata.annotations).length === 0) delete v.metadata.annotations;
  v.status = { ...v.status, phase: 'Bound' };
  delete v.status.message;

  const c = structuredClone(claim);
  const becomesBound = claim.status?.phase !== 'Bound';
  c.metadata.annotations ??= {};
  // A stored claim has a spec: validation requires its access modes and request.
  if (c.spec!.volumeName !== volume.metadata.name) {
    c.spec!.volumeName = volume.metadata.name;
    if (c.metadata.annotations[annBoundByController] === undefined) c.metadata.annotations[annBoundByController] = 'yes';
  }
  if (c.metadata.annotations[annBindCompleted] === undefined) c.metadata.annotations[annBindCompleted] = 'yes';
  delete c.metadata.annotations[annBindingExplanation];
  const status = { ...c.status, phase: 'Bound', accessModes: structuredClone(volume.spec?.accessModes) };
  if (becomesBound || !c.status?.capacity) status.capacity = structuredClone(volume.spec?.capacity);
  const conditions = (status.conditions ?? []).filter((x) => x?.type !== conditionBindable);
  if (conditions.length > 0) status.conditions = conditions;
  else delete status.conditions;
  c.status = status;

  const newVolume = await tx.updateAll(v);
  const newClaim = await tx.updateAll(c);
  return { volume: newVolume, claim: newClaim };
}

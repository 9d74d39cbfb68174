// The reclaim center's rules: which one-click action is allowed on which volume or claim,
// why not when it is not, and exactly what it will change. Pure; the service reads the
// facts (the object, its claim, the pods using that claim, a pre-bind target) and acts only
// on an "allowed" verdict, computed again on fresh state at the moment of the write.
import type { Node } from '../resources/node/schema';
import type { PersistentVolume } from '../resources/persistent-volume/schema';
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';
import type { Pod } from '../resources/pod/schema';
import { checkRequestedVolume } from './matching';
import { annDynamicallyProvisioned, annLocalNode } from './well-known/annotations';
import { reasons } from './well-known/event-reasons';
import { labelHostname } from './well-known/labels';
import { isLocalVolumeProvisioner } from './well-known/provisioners';

export const VOLUME_ACTIONS = ['make-available', 'pre-bind', 'recycle', 'delete'] as const;
export type VolumeAction = (typeof VOLUME_ACTIONS)[number];
export const CLAIM_ACTIONS = ['delete'] as const;
export type ClaimAction = (typeof CLAIM_ACTIONS)[number];

export type ReclaimVerdict = { allowed: true; changes: string[] } | { allowed: false; reason: string };

export interface VolumeFacts {
  pv: PersistentVolume;
  /** The claim the volume's claimRef names (by namespace and name), if it exists. */
  claim?: PersistentVolumeClaim;
  /** Pods (by name) that keep that claim in use. */
  claimPods: string[];
  /** pre-bind: the claim to reserve the volume for, if it exists. */
  target?: PersistentVolumeClaim;
  /** pre-bind: the name the admin asked for, as namespace/name. */
  targetName?: string;
}

export interface ClaimFacts {
  claim: PersistentVolumeClaim;
  /** Pods (by name) that keep the claim in use. */
  pods: string[];
}

const refuse = (reason: string): ReclaimVerdict => ({ allowed: false, reason });

function claimRefName(pv: PersistentVolume): string | undefined {
  const ref = pv.spec?.claimRef;
  if (!ref?.name) return undefined;
  return `${ref.namespace ?? 'default'}/${ref.name}`;
}

/** The claimRef's claim is the one that holds the volume (same uid, or no uid to tell). */
function holdingClaim(f: VolumeFacts): PersistentVolumeClaim | undefined {
  const ref = f.pv.spec?.claimRef;
  if (!ref || !f.claim || f.claim.metadata.deletionTimestamp) return undefined;
  if (ref.uid && f.claim.metadata.uid !== ref.uid) return undefined;
  if (f.claim.spec?.volumeName && f.claim.spec.volumeName !== f.pv.metadata.name) return undefined;
  return f.claim;
}

/** Refusals every volume action shares: terminating, bound, in use. */
function volumeRefusal(f: VolumeFacts): string | undefined {
  const { pv } = f;
  const phase = pv.status?.phase;
  if (pv.metadata.deletionTimestamp) return 'the volume is being deleted (terminating)';
  const holder = holdingClaim(f);
  if (holder && f.claimPods.length > 0) {
    return `in use: claim ${claimRefName(pv)} is used by pod${f.claimPods.length > 1 ? 's' : ''} ${f.claimPods.join(', ')}`;
  }
  if (phase === 'Bound') return `bound to claim ${claimRefName(pv) ?? '(unknown)'}`;
  if (holder && phase !== 'Released' && phase !== 'Failed') return `reserved for claim ${claimRefName(pv)}, which exists`;
  return undefined;
}

function policyOf(pv: PersistentVolume): string {
  return pv.spec?.persistentVolumeReclaimPolicy ?? 'Retain';
}

/** Which actions a volume allows and what each will change, or why not. */
export function volumeVerdict(action: VolumeAction, f: VolumeFacts): ReclaimVerdict {
  const shared = volumeRefusal(f);
  if (shared) return refuse(shared);
  const { pv } = f;
  const name = pv.metadata.name ?? '';
  const phase = pv.status?.phase ?? 'Pending';
  const ref = claimRefName(pv);
  switch (action) {
    case 'make-available': {
      if (phase !== 'Released') return refuse(`only Released volumes can be made Available again; this one is ${phase}`);
      return {
        allowed: true,
        changes: [
          ref ? `claimRef ${ref} will be cleared` : 'claimRef is already empty',
          `phase ${phase} → Available (set by the binder)`,
          'the data on the volume stays as it is: the next claim sees it',
        ],
      };
    }
    case 'pre-bind': {
      if (phase !== 'Released' && phase !== 'Available') return refuse(`only Released or Available volumes can be pre-bound; this one is ${phase}`);
      if (!f.targetName) return refuse('name the claim to pre-bind to (namespace/name)');
      const t = f.target;
      if (!t) return refuse(`claim ${f.targetName} does not exist`);
      if (t.metadata.deletionTimestamp) return refuse(`claim ${f.targetName} is being deleted (terminating)`);
      if (t.status?.phase === 'Bound' || (t.spec?.volumeName && t.spec.volumeName !== name)) {
        return refuse(`claim ${f.targetName} is already bound to ${t.spec?.volumeName ?? 'a volume'}`);
      }
      const misfit = checkRequestedVolume(t, pv);
      if (misfit.length > 0) return refuse(`volume does not fit claim ${f.targetName}: ${misfit.join('; ')}`);
      return {
        allowed: true,
        changes: [
          ref ? `claimRef ${ref} → ${f.targetName}` : `claimRef set to ${f.targetName}`,
          `phase ${phase} → Bound once the binder binds claim ${f.targetName} to it`,
        ],
      };
    }
    case 'recycle': {
      if (phase !== 'Released' && phase !== 'Failed') return refuse(`only Released or Failed volumes can be recycled; this one is ${phase}`);
      const by = pv.metadata.annotations?.[annDynamicallyProvisioned];
      if (!by) return refuse(`no provisioner made this volume (no ${annDynamicallyProvisioned}): nothing can wipe it; delete it instead`);
      const policy = policyOf(pv);
      const what =
        isLocalVolumeProvisioner(by)
          ? "its node's agent wipes the disk, then a fresh Available volume is created for it"
          : `provisioner ${by} deletes its storage asset, then the volume object`;
      return {
        allowed: true,
        changes: [policy === 'Delete' ? 'reclaim policy is already Delete: the cleanup runs again' : `reclaim policy ${policy} → Delete`, what],
      };
    }
    case 'delete': {
      const policy = policyOf(pv);
      const changes = [`volume ${name} will be deleted`];
      changes.push(
        policy === 'Delete' && pv.metadata.annotations?.[annDynamicallyProvisioned]
          ? 'its provisioner deletes the storage asset'
          : 'the storage asset (the data) is kept; only the object goes',
      );
      return { allowed: true, changes };
    }
  }
}

/** What deleting an unused claim will change, or why it may not. */
export function claimVerdict(action: ClaimAction, f: ClaimFacts): ReclaimVerdict {
  const { claim } = f;
  const name = `${claim.metadata.namespace}/${claim.metadata.name}`;
  if (claim.metadata.deletionTimestamp) return refuse('the claim is being deleted (terminating)');
  if (f.pods.length > 0) return refuse(`in use by pod${f.pods.length > 1 ? 's' : ''} ${f.pods.join(', ')}`);
  switch (action) {
    case 'delete': {
      const changes = [`claim ${name} will be deleted`];
      const volume = claim.spec?.volumeName;
      if (volume) changes.push(`its volume ${volume} becomes Released (then its reclaim policy applies)`);
      return { allowed: true, changes };
    }
  }
}

/**
 * When a claim was last used by a pod, as far as the store knows: now while a pod uses it;
 * else the newest of the times a terminated pod that named it shows (its conditions'
 * transitions, container finish times, deletion or creation) and of the newest history
 * row of a pod that named it (`historyUse`: such a pod's creation, update or deletion,
 * even of a pod since gone); else the claim's creation. `used`: a pod's use of this
 * claim was seen (otherwise `last` is only the claim's creation; a use from before the
 * claim was created was of an earlier claim of the same name).
 */
export function claimUsage(claim: PersistentVolumeClaim, podsNamingIt: Pod[], historyUse: Date | undefined, now: Date): { last: Date; used: boolean } {
  const created = Date.parse(claim.metadata.creationTimestamp ?? '') || 0;
  let used = -Infinity;
  for (const pod of podsNamingIt) {
    const phase = pod.status?.phase;
    if (phase !== 'Succeeded' && phase !== 'Failed') return { last: now, used: true };
    for (const t of podTimes(pod)) if (t > used) used = t;
  }
  const h = historyUse?.getTime();
  if (h !== undefined && !Number.isNaN(h) && h > used) used = Math.min(h, now.getTime());
  // A use older than the claim was of an earlier claim of that name.
  if (used < created || used === -Infinity) return { last: new Date(created), used: false };
  return { last: new Date(used), used: true };
}

/** `claimUsage`'s time alone. */
export function claimLastUsed(claim: PersistentVolumeClaim, podsNamingIt: Pod[], now: Date, historyUse?: Date): Date {
  return claimUsage(claim, podsNamingIt, historyUse, now).last;
}

/**
 * How far back the history is searched for pods that named a claim: the chosen window
 * (a use inside it means "used"), and at least USAGE_LOOKBACK_DAYS, so the claims listed
 * as unused can still say when they were last used.
 */
export const USAGE_LOOKBACK_DAYS = 90;
export function usageSearchStart(now: Date, unusedDays: number): Date {
  return new Date(now.getTime() - Math.max(unusedDays, USAGE_LOOKBACK_DAYS) * 86_400_000);
}

function podTimes(pod: Pod): number[] {
  const out: number[] = [];
  const add = (s: unknown) => {
    const t = typeof s === 'string' ? Date.parse(s) : NaN;
    if (!Number.isNaN(t)) out.push(t);
  };
  add(pod.metadata?.creationTimestamp);
  add(pod.metadata?.deletionTimestamp);
  for (const c of Array.isArray(pod.status?.conditions) ? pod.status.conditions : []) add(c?.lastTransitionTime);
  // Container statuses are kept as sent (the pod schema does not describe them): read defensively.
  const statuses = (pod.status?.containerStatuses ?? []) as { state?: { terminated?: { finishedAt?: unknown } } }[];
  for (const c of statuses) add(c?.state?.terminated?.finishedAt);
  return out;
}

/** Whole days between `since` and `now`. */
export function daysSince(since: Date, now: Date): number {
  return Math.max(0, Math.floor((now.getTime() - since.getTime()) / 86_400_000));
}

/** Why a local volume's node is gone, or undefined when it is there and Ready. */
export function nodeGoneReason(nodeName: string, node: Node | undefined, ready: boolean): string | undefined {
  if (!node) return `node ${nodeName} does not exist`;
  if (!ready) return `node ${nodeName} is NotReady`;
  return undefined;
}

/** The node a local volume is pinned to: the manager's annotation, else a single-value hostname affinity. */
export function volumeNode(pv: PersistentVolume): string | undefined {
  const ann = pv.metadata.annotations?.[annLocalNode];
  if (ann) return ann;
  if (!pv.spec?.local) return undefined;
  const terms = pv.spec?.nodeAffinity?.required?.nodeSelectorTerms;
  if (!Array.isArray(terms) || terms.length !== 1) return undefined;
  const exprs = terms[0]?.matchExpressions;
  if (!Array.isArray(exprs)) return undefined;
  const host = exprs.find((e: { key?: string; operator?: string; values?: unknown[] }) => e?.key === labelHostname && e.operator === 'In' && e.values?.length === 1);
  return typeof host?.values?.[0] === 'string' ? host.values[0] : undefined;
}

/** What a reclaim action applies to: a volume, or (delete) a claim. */
type ReclaimObject = PersistentVolume | PersistentVolumeClaim;
const isClaim = (o: ReclaimObject): o is PersistentVolumeClaim => o.kind === 'PersistentVolumeClaim';

/** The Event an applied reclaim action records on its object: upstream-style reason, actor and change. */
export function reclaimEvent(
  actor: string,
  a: { action: VolumeAction; before: ReclaimObject; after: ReclaimObject },
): { reason: string; message: string } {
  const who = actorWords(actor);
  const what = isClaim(a.before) ? 'claim' : 'volume';
  // A claim has no claimRef, and no reclaim policy (so the default).
  const ref = (o: ReclaimObject) => (isClaim(o) ? undefined : claimRefName(o));
  const policy = (o: ReclaimObject) => (isClaim(o) ? 'Retain' : policyOf(o));
  switch (a.action) {
    case 'make-available':
      return {
        reason: reasons.madeAvailable,
        message: `${who} made the volume Available from the reclaim center: claimRef ${ref(a.before) ?? '(none)'} cleared; the data on it is kept`,
      };
    case 'pre-bind':
      return {
        reason: reasons.preBound,
        message: `${who} pre-bound the volume to claim ${ref(a.after) ?? '(none)'} from the reclaim center (claimRef was ${ref(a.before) ?? 'empty'})`,
      };
    case 'recycle':
      return {
        reason: reasons.recycleRequested,
        message: `${who} asked from the reclaim center to wipe and recycle the volume: reclaim policy ${policy(a.before)} → ${policy(a.after)}`,
      };
    case 'delete': {
      const rest: string[] = [];
      if (!isClaim(a.before)) rest.push(`reclaim policy ${policyOf(a.before)}`);
      else if (a.before.spec?.volumeName) rest.push(`its volume ${a.before.spec.volumeName} becomes Released`);
      if (a.after.metadata.deletionTimestamp) rest.push(`terminating until its finalizers are removed`);
      return {
        reason: reasons.deletedFromReclaimCenter,
        message: `${who} deleted the ${what} from the reclaim center${rest.length ? ` (${rest.join('; ')})` : ''}`,
      };
    }
  }
}

/** `user:alice` → "user alice", `token:alice/ci` → "token alice/ci". */
function actorWords(actor: string): string {
  const i = actor.indexOf(':');
  return i > 0 ? `${actor.slice(0, i)} ${actor.slice(i + 1)}` : actor;
}

// The chaos run's invariants, as pure functions over what the run recorded. Each returns
// the violations it found (empty: the invariant held) and how many things it checked.

export interface Verdict {
  checked: number;
  violations: string[];
}

/** Every write the API acknowledged (2xx) is there afterwards, unless the run deleted it itself. */
export function acknowledgedWritesPresent(acked: Iterable<string>, present: ReadonlySet<string>, deletedByUs: ReadonlySet<string> = new Set()): Verdict {
  const violations: string[] = [];
  let checked = 0;
  for (const key of acked) {
    if (deletedByUs.has(key)) continue;
    checked++;
    if (!present.has(key)) violations.push(`acknowledged write of ${key} is missing`);
  }
  return { checked, violations };
}

/** A write the API acknowledged: the object its 2xx answer returned. */
export interface AckedWrite {
  kind: string;
  /** namespace/name ("/name" for cluster-scoped objects). */
  key: string;
  uid: string;
  rv: bigint;
}

/** A committed change, as the never-compacted history records it. */
export interface RecordedChange {
  rv: bigint;
  kind: string;
  key: string;
  uid: string;
}

/**
 * Every acknowledged write of any kind (claims, volumes, snapshots, ConfigMaps) was
 * committed for good: the history holds a change at the resourceVersion the answer carried,
 * of that very object. A write lost in a failover leaves no row there, or a row of another
 * object that later reused the resourceVersion. Objects the run deleted afterwards count
 * too: their creation is still in the history.
 */
export function acknowledgedWritesDurable(acked: readonly AckedWrite[], history: readonly RecordedChange[]): Verdict {
  const byRv = new Map<bigint, RecordedChange>();
  for (const h of history) byRv.set(h.rv, h);
  const violations: string[] = [];
  for (const a of acked) {
    const h = byRv.get(a.rv);
    if (!h) violations.push(`acknowledged write of ${a.kind} ${a.key} (uid ${a.uid}) at resourceVersion ${a.rv} is not in the history`);
    else if (h.kind !== a.kind || h.key !== a.key || h.uid !== a.uid) {
      violations.push(`acknowledged write of ${a.kind} ${a.key} (uid ${a.uid}) at resourceVersion ${a.rv}: the history has ${h.kind} ${h.key} (uid ${h.uid}) there`);
    }
  }
  return { checked: acked.length, violations };
}

/** One observation of a claim or a volume (from a watch event or a list), in the order seen. */
export type BindingObservation =
  | { kind: 'PersistentVolume'; name: string; phase?: string; claimUid?: string; deleted?: boolean }
  | { kind: 'PersistentVolumeClaim'; uid: string; name: string; volumeName?: string; deleted?: boolean };

/**
 * No volume bound to two claims, no claim to two volumes, over the whole history:
 * - a claim (by uid) names one volume for its whole life (volumeName never changes once set);
 * - at most one volume (by name) is Bound to a claim uid, ever;
 * - a volume is Bound to a new claim uid only after the claim it was bound to is gone
 *   (seen deleted) or the volume went through Released/Available in between;
 * - two live claims never name the same volume.
 */
export function exclusiveBindings(history: readonly BindingObservation[]): Verdict {
  const violations: string[] = [];
  const claimVolume = new Map<string, string>();
  const volumesOfClaim = new Map<string, Set<string>>();
  /** Volume name -> the claim uid it is Bound to now (cleared by Released/Available/deletion). */
  const volumeClaim = new Map<string, string>();
  /** Volume name -> the live claim (uid) naming it. */
  const namedBy = new Map<string, { uid: string; name: string }>();
  const deletedClaims = new Set<string>();
  let checked = 0;
  for (const o of history) {
    if (o.kind === 'PersistentVolumeClaim') {
      if (o.deleted) {
        deletedClaims.add(o.uid);
        const v = claimVolume.get(o.uid);
        if (v !== undefined && namedBy.get(v)?.uid === o.uid) namedBy.delete(v);
        continue;
      }
      if (!o.volumeName) continue;
      checked++;
      const was = claimVolume.get(o.uid);
      if (was === undefined) claimVolume.set(o.uid, o.volumeName);
      else if (was !== o.volumeName) violations.push(`claim ${o.name} (${o.uid}) named volume ${was}, then ${o.volumeName}`);
      const other = namedBy.get(o.volumeName);
      if (other && other.uid !== o.uid && !deletedClaims.has(other.uid)) {
        violations.push(`volume ${o.volumeName} named by claim ${other.name} (${other.uid}) and by claim ${o.name} (${o.uid}) at once`);
      }
      namedBy.set(o.volumeName, { uid: o.uid, name: o.name });
    } else {
      if (o.deleted) {
        volumeClaim.delete(o.name);
        namedBy.delete(o.name);
        continue;
      }
      if (o.phase !== 'Bound' || !o.claimUid) {
        // Released (or offered again): its claim is gone, whether or not its deletion was seen.
        if (o.phase === 'Released' || o.phase === 'Available' || o.phase === 'Failed') {
          volumeClaim.delete(o.name);
          namedBy.delete(o.name);
        }
        continue;
      }
      checked++;
      const set = volumesOfClaim.get(o.claimUid) ?? new Set<string>();
      set.add(o.name);
      volumesOfClaim.set(o.claimUid, set);
      if (set.size === 2) violations.push(`claim ${o.claimUid} is bound by volumes ${[...set].join(' and ')}`);
      const before = volumeClaim.get(o.name);
      if (before !== undefined && before !== o.claimUid && !deletedClaims.has(before)) {
        violations.push(`volume ${o.name} bound to claim ${before}, then to claim ${o.claimUid} while ${before} still exists`);
      }
      volumeClaim.set(o.name, o.claimUid);
    }
  }
  return { checked, violations };
}

/** One watch connection's worth of events: from `startRv` (exclusive), in order of arrival. */
export interface WatchSegment {
  watcher: string;
  kind: string;
  startRv: bigint;
  events: { type: string; rv: bigint; key: string }[];
  /** Ended with 410 Gone (the watcher then relisted). */
  expired: boolean;
}

/** A committed change of the watched kind (the change log, read afterwards). */
export interface CommittedChange {
  rv: bigint;
  kind: string;
  key: string;
}

/**
 * Every watch saw a gap-free increasing sequence, or a 410: within each segment the
 * resourceVersions strictly increase, the first is past the segment's start, a resumed
 * segment starts where the previous ended, and every committed change of the kind between
 * the segment's start and its last event was delivered. A watcher's last chain must reach
 * `until` (the watcher's name -> the newest committed resourceVersion when the run stopped
 * watching, after giving it time to catch up): a watch that silently stopped delivering
 * misses every change after its last event.
 */
export function gapFreeWatches(segments: readonly WatchSegment[], committed: readonly CommittedChange[], until: ReadonlyMap<string, bigint> = new Map()): Verdict {
  const violations: string[] = [];
  let checked = 0;
  const byKind = new Map<string, CommittedChange[]>();
  for (const c of committed) byKind.set(c.kind, [...(byKind.get(c.kind) ?? []), c]);
  // Segments a watcher resumed (no 410 between) form one chain that must cover its whole
  // range; after a 410 the watcher relisted, and a new chain starts at the list's version.
  const chains: WatchSegment[][] = [];
  const open = new Map<string, WatchSegment[]>();
  for (const s of segments) {
    let chain = open.get(s.watcher);
    if (!chain) {
      chain = [];
      chains.push(chain);
      open.set(s.watcher, chain);
    }
    chain.push(s);
    if (s.expired) open.delete(s.watcher);
  }
  const lastChain = new Map<string, WatchSegment[]>();
  for (const chain of chains) lastChain.set(chain[0].watcher, chain);
  for (const chain of chains) {
    const { watcher, kind, startRv } = chain[0];
    let prev = startRv;
    const seen = new Set<bigint>();
    for (const s of chain) {
      for (const e of s.events) {
        if (e.rv <= prev) violations.push(`${watcher}: resourceVersion ${e.rv} after ${prev} (not increasing)`);
        if (e.rv > prev) prev = e.rv;
        seen.add(e.rv);
      }
    }
    const reach = lastChain.get(watcher) === chain && (until.get(watcher) ?? 0n) > prev ? until.get(watcher)! : prev;
    for (const c of byKind.get(kind) ?? []) {
      if (c.rv <= startRv || c.rv > reach) continue;
      checked++;
      if (!seen.has(c.rv)) violations.push(`${watcher}: missed ${c.kind} ${c.key} at resourceVersion ${c.rv} (watching from ${startRv})`);
    }
  }
  return { checked, violations };
}

/** What a disk held when its volume was offered (Available): the claim uid written on it, if any. */
export interface OfferObservation {
  device: string;
  pv: string;
  /** The resourceVersion of the change that made the volume Available. */
  rv: bigint;
  /** The claim uid found on the device when that change was seen (which may be later). */
  foundClaimUid?: string;
}

/**
 * No disk offered before its wipe finished: when a volume is seen Available, its device
 * holds no data of a claim that was already deleted (whose data the wipe must remove).
 * The device is read when the watch delivers the change, which after a resumed watch may
 * be seconds later: by then a newer claim may have been bound to the volume, written and
 * deleted. Its data was not there at the offer, so only a claim seen bound (`boundAt`, the
 * resourceVersion of the first change showing the binding) before the offer counts; one
 * never seen bound counts too.
 */
export function noOfferBeforeWipe(offers: readonly OfferObservation[], deletedClaimUids: ReadonlySet<string>, boundAt: ReadonlyMap<string, bigint>): Verdict {
  const violations: string[] = [];
  for (const o of offers) {
    if (!o.foundClaimUid || !deletedClaimUids.has(o.foundClaimUid)) continue;
    const bound = boundAt.get(o.foundClaimUid);
    if (bound !== undefined && bound > o.rv) continue;
    violations.push(`${o.pv} on ${o.device} offered while it still held data of deleted claim ${o.foundClaimUid}`);
  }
  return { checked: offers.length, violations };
}

/** No disk wiped twice at once: the cleaner's own record of overlaps is empty. */
export function noOverlappingWipes(wipeLog: string, overlapLog: string): Verdict {
  const starts = wipeLog.split('\n').filter((l) => / start /.test(l)).length;
  return { checked: starts, violations: overlapLog.split('\n').filter((l) => l.trim() !== '') };
}

/** Everything converged within `limitMs` of the last fault. */
export function convergedInTime(convergedAfterMs: number | undefined, limitMs: number, what: string): Verdict {
  if (convergedAfterMs === undefined) return { checked: 1, violations: [`did not converge: ${what}`] };
  return { checked: 1, violations: convergedAfterMs <= limitMs ? [] : [`converged only ${Math.round(convergedAfterMs / 1000)} s after the last fault (limit ${limitMs / 1000} s)`] };
}

/** After each Postgres fault (labelled), the first write was acknowledged within `limitMs` (undefined: never). */
export function writesResumedInTime(stalls: readonly [string, number | undefined][], limitMs: number): Verdict {
  const violations: string[] = [];
  for (const [what, ms] of stalls) {
    if (ms === undefined) violations.push(`no write acknowledged after ${what}`);
    else if (ms > limitMs) violations.push(`first write ${(ms / 1000).toFixed(1)} s after ${what} (limit ${limitMs / 1000} s)`);
  }
  return { checked: stalls.length, violations };
}

/** A claim on the lost node, with the Completed backups the run made of it (and the checksum of the data each holds). */
export interface LostClaim {
  claim: string;
  /** The node that was lost (its agent stopped for good, its pool removed). */
  lostNode: string;
  backups: { name: string; sha256: string; completedAt: number }[];
}

/** What the run got back for a lost claim: the new claim, the backup it named, where it bound and what it holds. */
export interface RestoreOutcome {
  /** The lost claim this restore stands in for. */
  claim: string;
  restoredClaim: string;
  backupName: string;
  /** The node the restored claim's volume is on (undefined: it never bound). */
  node?: string;
  /** SHA-256 of the restored data (undefined: not read). */
  sha256?: string;
  /** Why it could not be looked at (did not bind in time, the file is missing ...). */
  problem?: string;
}

/**
 * After a node is lost, each of its claims is restored from its LAST Completed backup as a
 * new claim on another node, and that claim holds exactly the data of that backup (the
 * checksum the run recorded before the backup). A lost claim without a Completed backup,
 * without a restore, restored from an older backup, bound on the lost node, or holding
 * other data is a violation.
 */
export function restoredFromLastBackup(lost: readonly LostClaim[], restores: readonly RestoreOutcome[]): Verdict {
  const violations: string[] = [];
  for (const l of lost) {
    const last = [...l.backups].sort((a, b) => a.completedAt - b.completedAt).at(-1);
    if (!last) {
      violations.push(`claim ${l.claim} on lost node ${l.lostNode} had no Completed backup`);
      continue;
    }
    const r = restores.find((x) => x.claim === l.claim);
    if (!r) {
      violations.push(`claim ${l.claim} on lost node ${l.lostNode} was not restored`);
      continue;
    }
    if (r.backupName !== last.name) {
      violations.push(`claim ${l.claim} restored as ${r.restoredClaim} from backup ${r.backupName}, not its last one ${last.name}`);
      continue;
    }
    if (r.problem) violations.push(`claim ${l.claim} restored as ${r.restoredClaim}: ${r.problem}`);
    else if (r.node === undefined) violations.push(`claim ${l.claim} restored as ${r.restoredClaim}: never bound`);
    else if (r.node === l.lostNode) violations.push(`claim ${l.claim} restored as ${r.restoredClaim} on the lost node ${l.lostNode}`);
    else if (r.sha256 === undefined) violations.push(`claim ${l.claim} restored as ${r.restoredClaim} on ${r.node}: its data was not read`);
    else if (r.sha256 !== last.sha256) violations.push(`claim ${l.claim} restored as ${r.restoredClaim} on ${r.node} holds data with SHA-256 ${r.sha256}, not the backup's ${last.sha256}`);
  }
  return { checked: lost.length, violations };
}

/** A claim of the replicated class before its node went away: what its replica had acknowledged. */
export interface ReplicatedClaim {
  claim: string;
  pvName: string;
  /** The node of its active copy, taken down by the fault. */
  node: string;
  /** SHA-256 of the data written before the replica acknowledged a snapshot taken after it. */
  sha256: string;
}

/** What the run saw of the failover and the node's return. */
export interface FailoverOutcome {
  claim: string;
  /** The node the claim's new pod ran on (undefined: it never ran). */
  newNode?: string;
  /** SHA-256 of the data the new pod's node held. */
  sha256?: string;
  /** The PV's active node and epoch after the node's return. */
  activeNode?: string;
  epoch?: number;
  /** Nodes holding a writable copy `<pool>/<pv>` after the node's return. */
  writableCopies: string[];
  /** Samples that found pods of the claim Running on two nodes at once. */
  runningOnTwo: string[];
  /** Whether the returned node holds an in-sync replica again. */
  resynced: boolean;
  problem?: string;
}

/**
 * After the active node of a replicated claim goes away, the claim's next pod runs on
 * another node with the data the replica had acknowledged (no data older than the window
 * the PV reported before the fault), and the returned node never serves its old copy.
 */
export function failoverKeptAcknowledgedData(claims: readonly ReplicatedClaim[], outcomes: readonly FailoverOutcome[]): Verdict {
  const violations: string[] = [];
  for (const c of claims) {
    const o = outcomes.find((x) => x.claim === c.claim);
    if (!o) violations.push(`claim ${c.claim}: no failover was observed`);
    else if (o.problem) violations.push(`claim ${c.claim}: ${o.problem}`);
    else if (!o.newNode) violations.push(`claim ${c.claim}: its new pod never ran`);
    else if (o.newNode === c.node) violations.push(`claim ${c.claim}: its new pod ran on the node that was down (${c.node})`);
    else if (o.sha256 !== c.sha256) violations.push(`claim ${c.claim}: the replica on ${o.newNode} holds data ${o.sha256 ?? 'unread'}, not the acknowledged ${c.sha256}`);
  }
  return { checked: claims.length, violations };
}

/** Never two writable copies of one volume: one node holds `<pool>/<pv>` (the PV's active node), and no two nodes ran its pods at once. */
export function oneWritableCopy(claims: readonly ReplicatedClaim[], outcomes: readonly FailoverOutcome[]): Verdict {
  const violations: string[] = [];
  for (const c of claims) {
    const o = outcomes.find((x) => x.claim === c.claim);
    if (!o || o.problem) continue;
    if (o.writableCopies.length !== 1 || o.writableCopies[0] !== o.activeNode) violations.push(`claim ${c.claim}: writable copies on [${o.writableCopies.join(', ')}], the active node is ${o.activeNode ?? '?'}`);
    if (o.activeNode === c.node) violations.push(`claim ${c.claim}: the node that was down (${c.node}) is active again`);
    for (const s of o.runningOnTwo) violations.push(`claim ${c.claim}: ${s}`);
    if (!o.resynced) violations.push(`claim ${c.claim}: ${c.node} did not become an in-sync replica after its return`);
  }
  return { checked: claims.length, violations };
}

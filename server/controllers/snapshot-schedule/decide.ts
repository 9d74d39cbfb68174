// What a SnapshotSchedule needs now, as a pure decision: which claims get a snapshot for the
// current slot, which of the schedule's own snapshots are beyond `keep`, and the status.
// The controller (snapshot-schedule.ts) reads the state, calls `decideSchedule`, and writes.
//
// - The slot is the epoch-aligned interval holding `now` (domain/snapshot-schedule.ts); a claim
//   gets a snapshot for it when it has none of that slot's name. Missed slots are not caught
//   up: after downtime the schedule takes the current slot's snapshot only (as a CronJob
//   without startingDeadlineSeconds takes only the latest missed run).
// - Only Bound claims that are not being deleted are snapshotted; others are named in
//   status.message. Nothing at all in a namespace being deleted (it refuses creates, and the
//   namespace controller deletes the schedule): no attempt, no retry, no Warning.
// - Pruning counts per claim the schedule's own snapshots (its label, and exactly the name
//   the schedule gives that claim and slot; a snapshot a user labelled by hand is never
//   touched), including those about to be created, and deletes the oldest beyond `keep`.
//   Snapshots already being deleted do not count. Claims that left the target keep their
//   newest `keep` too.
// - With spec.backup, the newest snapshot of each claim (taken now or before) gets a
//   VolumeBackup named as the snapshot, once; older snapshots are never backed up after the
//   fact. Per claim the newest `backup.keep` Completed backups are kept and older Completed
//   ones deleted; Pending, InProgress and Failed ones are neither counted nor deleted. A
//   snapshot whose backup has not ended (Pending or InProgress) is not pruned until it has.
import { labelSelectorToSelector, matchesSelector } from '../../domain/label-selector';
import {
  labelSnapshotSchedule,
  labelSnapshotSlot,
  parseEvery,
  scheduledSnapshotName,
  slotStamp,
  slotStart,
  stampTime,
} from '../../domain/snapshot-schedule';
import type { PersistentVolumeClaim } from '../../resources/persistent-volume-claim/schema';
import type { SnapshotSchedule } from '../../resources/snapshot-schedule/schema';
import type { VolumeBackup } from '../../resources/volume-backup/schema';
import type { VolumeSnapshot } from '../../resources/volume-snapshot/schema';

export interface ScheduleFacts {
  schedule: SnapshotSchedule;
  /** The claims of the schedule's namespace. */
  claims: PersistentVolumeClaim[];
  /** The snapshots of the namespace carrying the schedule's label. */
  snapshots: VolumeSnapshot[];
  now: number;
  /** The backups of the namespace carrying the schedule's label (when spec.backup is set). */
  backups?: VolumeBackup[];
  /** The namespace is being deleted (metadata.deletionTimestamp): nothing may be created in it. */
  namespaceTerminating?: boolean;
}

export interface SnapshotToTake {
  name: string;
  claim: string;
  stamp: string;
}

export interface ScheduleStatus {
  lastScheduleTime?: string;
  /** When the schedule last created a snapshot: now, when it takes one. */
  lastSnapshotTime?: string;
  nextScheduleTime: string;
  claims: string[];
  message?: string;
}

/** A VolumeBackup of one of the schedule's snapshots: named as the snapshot. */
export interface BackupToMake {
  name: string;
  snapshot: string;
  claim: string;
  stamp: string;
}

export type ScheduleDecision =
  | { action: 'none'; why: string }
  | {
      action: 'run';
      take: SnapshotToTake[];
      prune: string[];
      /** Backups to create (spec.backup set): the newest snapshot of each claim that has none. */
      backup: BackupToMake[];
      /** The schedule's Completed backups beyond spec.backup.keep per claim (never one still running). */
      pruneBackups: string[];
      status: ScheduleStatus;
      requeueAfterMs: number;
    };

/** The schedule's own backups (its label; named as the snapshot they read), not being deleted. */
export function ownBackups(schedule: string, backups: VolumeBackup[]): VolumeBackup[] {
  return backups.filter(
    (b) =>
      b.metadata.labels?.[labelSnapshotSchedule] === schedule &&
      !b.metadata.deletionTimestamp &&
      b.spec?.source?.volumeSnapshotName !== undefined &&
      b.spec.source.volumeSnapshotName === b.metadata.name,
  );
}

/** A backup that may still read its snapshot: neither Completed nor Failed. */
const stillReading = (b: VolumeBackup) => b.status?.phase !== 'Completed' && b.status?.phase !== 'Failed';

/** Per claim, the Completed backups beyond the newest `keep` (oldest first); others are never counted nor deleted. */
export function pruneBackupsBeyond(own: VolumeBackup[], keep: number): string[] {
  const byClaim = new Map<string, { name: string; slot: number }[]>();
  for (const b of own) {
    const claim = b.status?.sourceClaimName;
    const stamp = b.metadata.labels?.[labelSnapshotSlot];
    const slot = stamp === undefined ? undefined : stampTime(stamp);
    if (b.status?.phase !== 'Completed' || claim === undefined || slot === undefined) continue;
    byClaim.set(claim, [...(byClaim.get(claim) ?? []), { name: b.metadata.name ?? '', slot }]);
  }
  const out: string[] = [];
  for (const list of byClaim.values()) {
    const newestFirst = [...list].sort((a, b) => b.slot - a.slot || b.name.localeCompare(a.name));
    out.push(...newestFirst.slice(keep).reverse().map((o) => o.name));
  }
  return out;
}

/** How soon a slot with a skipped claim is looked at again. */
export const SKIPPED_RETRY_MS = 30_000;

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The claims the schedule targets (by name or selector), sorted by name. */
export function targetClaims(schedule: SnapshotSchedule, claims: PersistentVolumeClaim[]): PersistentVolumeClaim[] {
  const t = schedule.spec?.target;
  let picked: PersistentVolumeClaim[] = [];
  if (t?.claimName !== undefined) picked = claims.filter((c) => c.metadata.name === t.claimName);
  else if (t?.selector !== undefined) {
    const sel = labelSelectorToSelector(t.selector);
    picked = claims.filter((c) => matchesSelector(sel, c.metadata.labels));
  }
  return picked.sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
}

interface Owned {
  name: string;
  claim: string;
  slot: number;
}

/** The schedule's own snapshots (label and deterministic name agree), not being deleted. */
export function ownSnapshots(schedule: string, snapshots: VolumeSnapshot[]): Owned[] {
  const out: Owned[] = [];
  for (const s of snapshots) {
    const labels = s.metadata.labels ?? {};
    const claim = s.spec?.source?.persistentVolumeClaimName;
    const stamp = labels[labelSnapshotSlot];
    const slot = stamp === undefined ? undefined : stampTime(stamp);
    if (labels[labelSnapshotSchedule] !== schedule || claim === undefined || slot === undefined || s.metadata.deletionTimestamp) continue;
    if (s.metadata.name !== scheduledSnapshotName(schedule, claim, stamp)) continue;
    out.push({ name: s.metadata.name, claim, slot });
  }
  return out;
}

/** Per claim, the names beyond the newest `keep` (oldest slots first). */
export function pruneBeyond(owned: Owned[], keep: number): string[] {
  const byClaim = new Map<string, Owned[]>();
  for (const o of owned) byClaim.set(o.claim, [...(byClaim.get(o.claim) ?? []), o]);
  const out: string[] = [];
  for (const list of byClaim.values()) {
    const newestFirst = [...list].sort((a, b) => b.slot - a.slot || b.name.localeCompare(a.name));
    out.push(...newestFirst.slice(keep).reverse().map((o) => o.name));
  }
  return out;
}

function skipReason(c: PersistentVolumeClaim): string | undefined {
  if (c.metadata.deletionTimestamp) return 'is being deleted';
  if (c.status?.phase !== 'Bound') return 'is not Bound yet';
  return undefined;
}

export function decideSchedule(f: ScheduleFacts): ScheduleDecision {
  const s = f.schedule;
  const name = s.metadata.name ?? '';
  if (s.metadata.deletionTimestamp) return { action: 'none', why: 'the schedule is being deleted' };
  // A create there is refused (Forbidden) until the namespace is gone, taking the schedule with it.
  if (f.namespaceTerminating) return { action: 'none', why: 'its namespace is being deleted' };
  const everyMs = parseEvery(s.spec?.every ?? '');
  const keep = s.spec?.keep;
  if (everyMs === undefined || keep === undefined) return { action: 'none', why: 'the schedule has no valid every or keep' };

  const start = slotStart(f.now, everyMs);
  const stamp = slotStamp(start);
  const targets = targetClaims(s, f.claims);
  const owned = ownSnapshots(name, f.snapshots);
  const existing = new Set(owned.map((o) => o.name));

  const take: SnapshotToTake[] = [];
  const skipped: string[] = [];
  if (!s.spec?.suspend) {
    for (const c of targets) {
      const claim = c.metadata.name ?? '';
      const why = skipReason(c);
      if (why) {
        skipped.push(`claim ${claim} ${why}`);
        continue;
      }
      const snapName = scheduledSnapshotName(name, claim, stamp);
      if (!existing.has(snapName)) take.push({ name: snapName, claim, stamp });
    }
  }
  const prune = pruneBeyond([...owned, ...take.map((t) => ({ name: t.name, claim: t.claim, slot: start }))], keep);
  const took = take.length > 0 || owned.some((o) => o.slot === start);
  const target = s.spec?.target?.claimName;
  const message = s.spec?.suspend
    ? 'suspended: no new snapshots are taken'
    : skipped.length > 0
      ? `skipped: ${skipped.join('; ')}`
      : targets.length === 0
        ? target !== undefined
          ? `claim ${target} does not exist`
          : 'no claim matches the selector'
        : undefined;
  const taking = take.filter((t) => !prune.includes(t.name));

  // Backups: the newest snapshot of each claim (taken now or before) gets one, once. Older
  // snapshots are never backed up after the fact (their backup may have been pruned already).
  const backup: BackupToMake[] = [];
  let pruneBackups: string[] = [];
  let reading = new Set<string>();
  if (s.spec?.backup) {
    const mine = ownBackups(name, f.backups ?? []);
    const backedUp = new Set(mine.map((b) => b.metadata.name ?? ''));
    reading = new Set(mine.filter(stillReading).map((b) => b.metadata.name ?? ''));
    const newest = new Map<string, Owned & { stamp: string }>();
    const candidates = [
      ...owned.filter((o) => !prune.includes(o.name)).map((o) => ({ ...o, stamp: slotStamp(o.slot) })),
      ...taking.map((t) => ({ name: t.name, claim: t.claim, slot: start, stamp: t.stamp })),
    ];
    for (const c of candidates) {
      const cur = newest.get(c.claim);
      if (!cur || c.slot > cur.slot) newest.set(c.claim, c);
    }
    for (const c of [...newest.values()].sort((a, b) => a.claim.localeCompare(b.claim))) {
      if (!backedUp.has(c.name)) backup.push({ name: c.name, snapshot: c.name, claim: c.claim, stamp: c.stamp });
    }
    pruneBackups = pruneBackupsBeyond(mine, s.spec.backup.keep ?? 1);
  }
  const lastSnapshotTime = taking.length > 0 ? iso(f.now) : (s.status?.lastSnapshotTime ?? undefined);
  const status: ScheduleStatus = {
    ...(took ? { lastScheduleTime: iso(start) } : s.status?.lastScheduleTime ? { lastScheduleTime: s.status.lastScheduleTime } : {}),
    ...(lastSnapshotTime ? { lastSnapshotTime } : {}),
    nextScheduleTime: iso(start + everyMs),
    claims: targets.map((c) => c.metadata.name ?? ''),
    ...(message ? { message } : {}),
  };
  // A skipped claim may become Bound within the slot: look again soon rather than next slot.
  const untilNext = start + everyMs - f.now;
  const requeueAfterMs = skipped.length > 0 ? Math.min(untilNext, SKIPPED_RETRY_MS) : untilNext;
  // A snapshot a backup still reads waits: it is pruned at a later look, once the backup ended.
  const prunable = prune.filter((n) => existing.has(n) && !reading.has(n));
  return { action: 'run', take: taking, prune: prunable, backup, pruneBackups, status, requeueAfterMs };
}

import { describe, expect, it } from 'vitest';
import { labelSnapshotSchedule, labelSnapshotSlot, scheduledSnapshotName, slotStamp } from '../../domain/snapshot-schedule';
import type { PersistentVolumeClaim } from '../../resources/persistent-volume-claim/schema';
import type { SnapshotSchedule } from '../../resources/snapshot-schedule/schema';
import type { VolumeBackup } from '../../resources/volume-backup/schema';
import type { VolumeSnapshot } from '../../resources/volume-snapshot/schema';
import { decideSchedule, SKIPPED_RETRY_MS } from './decide';

const H = 3_600_000;
const T0 = Date.UTC(2026, 10, 26, 0, 0, 0); // a slot start for 6h
const stamp = (ms: number) => slotStamp(ms);

function schedule(o: { every?: string; keep?: number; claimName?: string; selector?: Record<string, string>; suspend?: boolean; deleting?: boolean } = {}): SnapshotSchedule {
  return {
    apiVersion: 'snapshot.stowage.io/v1',
    kind: 'SnapshotSchedule',
    metadata: { name: 'nightly', namespace: 'ns', ...(o.deleting ? { deletionTimestamp: '2026-11-26T00:00:00Z' } : {}) },
    spec: {
      every: o.every ?? '6h',
      keep: o.keep ?? 2,
      target: o.selector ? { selector: { matchLabels: o.selector } } : { claimName: o.claimName ?? 'data' },
      ...(o.suspend ? { suspend: true } : {}),
    },
  };
}

function claim(name: string, o: { phase?: string; labels?: Record<string, string>; deleting?: boolean } = {}): PersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: 'ns', labels: o.labels, ...(o.deleting ? { deletionTimestamp: '2026-11-26T00:00:00Z' } : {}) },
    spec: {},
    status: { phase: o.phase ?? 'Bound' },
  };
}

/** A snapshot the schedule made of `claimName` in the slot starting at `slot`. */
function own(claimName: string, slot: number, o: { deleting?: boolean; schedule?: string; name?: string } = {}): VolumeSnapshot {
  const sched = o.schedule ?? 'nightly';
  return {
    apiVersion: 'snapshot.storage.k8s.io/v1',
    kind: 'VolumeSnapshot',
    metadata: {
      name: o.name ?? scheduledSnapshotName(sched, claimName, stamp(slot)),
      namespace: 'ns',
      labels: { [labelSnapshotSchedule]: sched, [labelSnapshotSlot]: stamp(slot) },
      ...(o.deleting ? { deletionTimestamp: '2026-11-26T00:00:00Z' } : {}),
    },
    spec: { source: { persistentVolumeClaimName: claimName } },
  };
}

const n = (claimName: string, slot: number) => scheduledSnapshotName('nightly', claimName, stamp(slot));

describe('decideSchedule: which slot is due, which to prune', () => {
  it.each([
    { name: 'first look: the current slot is taken at once', s: schedule(), claims: [claim('data')], snaps: [], now: T0 + 2 * H, take: [n('data', T0)], prune: [] },
    { name: 'the slot already has its snapshot (a restart, another replica): nothing twice', s: schedule(), claims: [claim('data')], snaps: [own('data', T0)], now: T0 + 5 * H, take: [], prune: [] },
    { name: 'a new slot: its snapshot', s: schedule(), claims: [claim('data')], snaps: [own('data', T0)], now: T0 + 6 * H, take: [n('data', T0 + 6 * H)], prune: [] },
    {
      name: 'a new slot with keep already full: the oldest goes',
      s: schedule({ keep: 2 }),
      claims: [claim('data')],
      snaps: [own('data', T0 - 6 * H), own('data', T0)],
      now: T0 + 6 * H,
      take: [n('data', T0 + 6 * H)],
      prune: [n('data', T0 - 6 * H)],
    },
    {
      name: 'keep lowered: every snapshot beyond the new count goes, oldest first',
      s: schedule({ keep: 1 }),
      claims: [claim('data')],
      snaps: [own('data', T0 - 12 * H), own('data', T0 - 6 * H), own('data', T0)],
      now: T0 + H,
      take: [],
      prune: [n('data', T0 - 12 * H), n('data', T0 - 6 * H)],
    },
    {
      name: 'missed slots (downtime) are not caught up: only the current one',
      s: schedule(),
      claims: [claim('data')],
      snaps: [own('data', T0 - 24 * H)],
      now: T0 + 1,
      take: [n('data', T0)],
      prune: [],
    },
    { name: 'claim not Bound: skipped', s: schedule(), claims: [claim('data', { phase: 'Pending' })], snaps: [], now: T0, take: [], prune: [] },
    { name: 'claim being deleted: skipped', s: schedule(), claims: [claim('data', { deleting: true })], snaps: [], now: T0, take: [], prune: [] },
    { name: 'claim missing: nothing', s: schedule(), claims: [claim('other')], snaps: [], now: T0, take: [], prune: [] },
    { name: 'suspended: no new snapshot, still pruned', s: schedule({ suspend: true, keep: 1 }), claims: [claim('data')], snaps: [own('data', T0 - 6 * H), own('data', T0 - 12 * H)], now: T0, take: [], prune: [n('data', T0 - 12 * H)] },
    {
      name: 'selector: each matching Bound claim, in name order',
      s: schedule({ selector: { backup: 'yes' } }),
      claims: [claim('b', { labels: { backup: 'yes' } }), claim('a', { labels: { backup: 'yes' } }), claim('c', { labels: { backup: 'no' } })],
      snaps: [],
      now: T0,
      take: [n('a', T0), n('b', T0)],
      prune: [],
    },
    {
      name: 'keep counts per claim',
      s: schedule({ selector: { backup: 'yes' }, keep: 1 }),
      claims: [claim('a', { labels: { backup: 'yes' } }), claim('b', { labels: { backup: 'yes' } })],
      snaps: [own('a', T0), own('b', T0 - 6 * H)],
      now: T0,
      take: [n('b', T0)],
      prune: [n('b', T0 - 6 * H)],
    },
    {
      name: "a claim that left the target keeps its newest `keep`",
      s: schedule({ keep: 1 }),
      claims: [claim('data')],
      snaps: [own('data', T0), own('gone', T0 - 12 * H), own('gone', T0 - 6 * H)],
      now: T0,
      take: [],
      prune: [n('gone', T0 - 12 * H)],
    },
    {
      name: "someone else's snapshots are never pruned (other schedule, or a hand-made name with our label)",
      s: schedule({ keep: 1 }),
      claims: [claim('data')],
      snaps: [own('data', T0), own('data', T0 - 6 * H, { schedule: 'other' }), own('data', T0 - 12 * H, { name: 'my-own-copy' })],
      now: T0,
      take: [],
      prune: [],
    },
    {
      name: 'snapshots already being deleted do not count against keep',
      s: schedule({ keep: 1 }),
      claims: [claim('data')],
      snaps: [own('data', T0 - 6 * H, { deleting: true })],
      now: T0,
      take: [n('data', T0)],
      prune: [],
    },
    { name: 'a 90m schedule aligns to 90-minute slots since the epoch', s: schedule({ every: '90m' }), claims: [claim('data')], snaps: [], now: T0 + 100 * 60_000, take: [n('data', T0 + 90 * 60_000)], prune: [] },
  ])('$name', ({ s, claims, snaps, now, take, prune }) => {
    const d = decideSchedule({ schedule: s, claims, snapshots: snaps, now });
    expect(d.action).toBe('run');
    if (d.action !== 'run') return;
    expect(d.take.map((t) => t.name)).toEqual(take);
    expect(d.prune).toEqual(prune);
  });

  it.each([
    { name: 'being deleted', s: schedule({ deleting: true }) },
    { name: 'invalid interval', s: schedule({ every: 'often' }) },
  ])('does nothing when the schedule is $name', ({ s }) => {
    expect(decideSchedule({ schedule: s, claims: [claim('data')], snapshots: [], now: T0 }).action).toBe('none');
  });

  it.each([
    { name: 'its namespace is being deleted: nothing taken, nothing retried', terminating: true, want: 'none' },
    { name: 'its namespace is live: the slot is taken', terminating: false, want: 'run' },
  ])('$name', ({ terminating, want }) => {
    const d = decideSchedule({ schedule: schedule(), claims: [claim('data')], snapshots: [], now: T0, namespaceTerminating: terminating });
    expect(d.action).toBe(want);
  });

  it('status: last and next slot, the targeted claims, and why a claim was skipped', () => {
    const d = decideSchedule({ schedule: schedule({ selector: { b: 'y' } }), claims: [claim('a', { labels: { b: 'y' } }), claim('p', { phase: 'Pending', labels: { b: 'y' } })], snapshots: [], now: T0 + H });
    expect(d).toMatchObject({
      action: 'run',
      status: { lastScheduleTime: '2026-11-26T00:00:00Z', nextScheduleTime: '2026-11-26T06:00:00Z', claims: ['a', 'p'], message: 'skipped: claim p is not Bound yet' },
      requeueAfterMs: SKIPPED_RETRY_MS,
    });
  });

  it.each([
    { name: 'a snapshot taken now records now, not the slot start', snaps: 'none', now: T0 + 3 * H + 3_000, want: '2026-11-26T03:00:03Z' },
    { name: 'a slot already taken keeps the recorded time', snaps: 'own', now: T0 + 4 * H, want: '2026-11-26T01:00:00Z' },
  ])('status.lastSnapshotTime: $name', ({ snaps, now, want }) => {
    const s = schedule();
    if (snaps === 'own') s.status = { lastScheduleTime: '2026-11-26T00:00:00Z', lastSnapshotTime: '2026-11-26T01:00:00Z' };
    const d = decideSchedule({ schedule: s, claims: [claim('data')], snapshots: snaps === 'own' ? [own('data', T0)] : [], now });
    expect(d).toMatchObject({ action: 'run', status: { lastScheduleTime: '2026-11-26T00:00:00Z', lastSnapshotTime: want } });
  });

  it('requeues at the next slot start', () => {
    const d = decideSchedule({ schedule: schedule(), claims: [claim('data')], snapshots: [], now: T0 + H });
    expect(d).toMatchObject({ action: 'run', requeueAfterMs: 5 * H });
    expect(d.action === 'run' && 'message' in d.status).toBe(false);
  });

  it('names the missing claim', () => {
    const d = decideSchedule({ schedule: schedule(), claims: [], snapshots: [], now: T0 });
    expect(d).toMatchObject({ status: { message: 'claim data does not exist', claims: [] } });
  });
});

/** A backup the schedule made of its snapshot of `claimName` in the slot `slot`. */
function bk(claimName: string, slot: number, phase: string | undefined, o: { schedule?: string; name?: string; deleting?: boolean } = {}): VolumeBackup {
  const sched = o.schedule ?? 'nightly';
  const snap = scheduledSnapshotName(sched, claimName, stamp(slot));
  return {
    apiVersion: 'stowage.io/v1',
    kind: 'VolumeBackup',
    metadata: {
      name: o.name ?? snap,
      namespace: 'ns',
      labels: { [labelSnapshotSchedule]: sched, [labelSnapshotSlot]: stamp(slot) },
      ...(o.deleting ? { deletionTimestamp: '2026-11-26T00:00:00Z' } : {}),
    },
    spec: { source: { volumeSnapshotName: snap }, backupTargetName: 'nfs' },
    ...(phase ? { status: { phase, sourceClaimName: claimName } } : {}),
  };
}

const withBackup = (keep: number, o: Parameters<typeof schedule>[0] = {}) => ({ ...schedule(o), spec: { ...schedule(o).spec, backup: { keep } } }) as SnapshotSchedule;

describe('decideSchedule: backups (spec.backup)', () => {
  it.each([
    { name: 'no spec.backup: no backup is made', s: schedule(), snaps: [], backups: [], now: T0, backup: [], pruneBackups: [], prune: [] },
    { name: 'a snapshot taken now is backed up in the same look', s: withBackup(3), snaps: [], backups: [], now: T0, backup: [n('data', T0)], pruneBackups: [], prune: [] },
    { name: 'the newest snapshot without a backup (taken before) gets one', s: withBackup(3), snaps: [own('data', T0 - 6 * H), own('data', T0)], backups: [], now: T0 + H, backup: [n('data', T0)], pruneBackups: [], prune: [] },
    { name: 'a snapshot already backed up is not backed up twice', s: withBackup(3), snaps: [own('data', T0)], backups: [bk('data', T0, 'InProgress')], now: T0 + H, backup: [], pruneBackups: [], prune: [] },
    {
      name: 'older snapshots are never backed up after the fact (their backup may have been pruned)',
      s: withBackup(1),
      snaps: [own('data', T0 - 6 * H), own('data', T0)],
      backups: [bk('data', T0, 'Completed')],
      now: T0 + H,
      backup: [],
      pruneBackups: [],
      prune: [],
    },
    {
      name: 'Completed backups beyond keep go, oldest first',
      s: withBackup(2, { keep: 5 }),
      snaps: [own('data', T0)],
      backups: [bk('data', T0 - 18 * H, 'Completed'), bk('data', T0 - 12 * H, 'Completed'), bk('data', T0 - 6 * H, 'Completed'), bk('data', T0, 'Completed')],
      now: T0 + H,
      backup: [],
      pruneBackups: [n('data', T0 - 18 * H), n('data', T0 - 12 * H)],
      prune: [],
    },
    {
      name: 'a backup still InProgress is never deleted nor counted',
      s: withBackup(1, { keep: 5 }),
      snaps: [own('data', T0)],
      backups: [bk('data', T0 - 12 * H, 'InProgress'), bk('data', T0 - 6 * H, 'Completed'), bk('data', T0, 'InProgress')],
      now: T0 + H,
      backup: [],
      pruneBackups: [],
      prune: [],
    },
    {
      name: 'Failed and Pending backups are not counted against keep',
      s: withBackup(1, { keep: 5 }),
      snaps: [own('data', T0)],
      backups: [bk('data', T0 - 12 * H, 'Completed'), bk('data', T0 - 6 * H, 'Failed'), bk('data', T0, undefined)],
      now: T0 + H,
      backup: [],
      pruneBackups: [],
      prune: [],
    },
    {
      name: 'backup keep counts per claim',
      s: withBackup(1, { selector: { b: 'y' }, keep: 5 }),
      snaps: [own('a', T0), own('b', T0)],
      backups: [bk('a', T0 - 6 * H, 'Completed'), bk('a', T0, 'Completed'), bk('b', T0, 'Completed')],
      now: T0 + H,
      backup: [],
      pruneBackups: [n('a', T0 - 6 * H)],
      prune: [],
    },
    {
      name: "someone else's backups are never pruned (other schedule, a hand-made name with our label, one being deleted)",
      s: withBackup(1),
      snaps: [own('data', T0)],
      backups: [bk('data', T0, 'Completed'), bk('data', T0 - 6 * H, 'Completed', { schedule: 'other' }), bk('data', T0 - 12 * H, 'Completed', { name: 'mine' }), bk('data', T0 - 18 * H, 'Completed', { deleting: true })],
      now: T0 + H,
      backup: [],
      pruneBackups: [],
      prune: [],
    },
    {
      name: 'snapshot retention waits for a backup still reading the snapshot',
      s: withBackup(3, { keep: 1 }),
      snaps: [own('data', T0 - 6 * H), own('data', T0)],
      backups: [bk('data', T0 - 6 * H, 'InProgress')],
      now: T0 + 6 * H,
      backup: [n('data', T0 + 6 * H)],
      pruneBackups: [],
      prune: [n('data', T0)],
    },
    {
      name: 'a backup not yet started (Pending) holds its snapshot too',
      s: withBackup(3, { keep: 1 }),
      snaps: [own('data', T0 - 6 * H), own('data', T0)],
      backups: [bk('data', T0 - 6 * H, 'Pending'), bk('data', T0, 'Failed')],
      now: T0 + H,
      backup: [],
      pruneBackups: [],
      prune: [],
    },
    {
      name: 'a Failed backup does not hold its snapshot',
      s: withBackup(3, { keep: 1 }),
      snaps: [own('data', T0 - 6 * H), own('data', T0)],
      backups: [bk('data', T0 - 6 * H, 'Failed'), bk('data', T0, 'Completed')],
      now: T0 + H,
      backup: [],
      pruneBackups: [],
      prune: [n('data', T0 - 6 * H)],
    },
    {
      name: 'once that backup is Completed, its snapshot is pruned',
      s: withBackup(3, { keep: 1 }),
      snaps: [own('data', T0 - 6 * H), own('data', T0 + 6 * H)],
      backups: [bk('data', T0 - 6 * H, 'Completed'), bk('data', T0 + 6 * H, 'Completed')],
      now: T0 + 7 * H,
      backup: [],
      pruneBackups: [],
      prune: [n('data', T0 - 6 * H)],
    },
  ])('$name', ({ s, snaps, backups, now, backup, pruneBackups, prune }) => {
    const d = decideSchedule({ schedule: s, claims: [claim('data'), claim('a', { labels: { b: 'y' } }), claim('b', { labels: { b: 'y' } })], snapshots: snaps, backups, now });
    expect(d.action).toBe('run');
    if (d.action !== 'run') return;
    expect(d.backup.map((b) => b.name)).toEqual(backup);
    expect(d.backup.every((b) => b.snapshot === b.name)).toBe(true);
    expect(d.pruneBackups).toEqual(pruneBackups);
    expect(d.prune).toEqual(prune);
  });
});

// A SnapshotSchedule with spec.backup against the real store, with a clock the test moves:
// each slot's snapshot gets a VolumeBackup (named as the snapshot, labelled with the
// schedule, in the default target), the schedule's snapshot retention waits while a backup
// still reads a snapshot, and only the newest `backup.keep` Completed backups are kept. The
// backup controller is not running here: the test plays its part by writing the backups'
// status, so what is asserted is the schedule's side alone. No sleeps: every wait polls.
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Manager } from '../../server/controllers/runtime/manager';
import { snapshotScheduleSpec } from '../../server/controllers/snapshot-schedule/snapshot-schedule';
import type { SnapshotSchedule } from '../../server/resources/snapshot-schedule/schema';
import type { VolumeBackup } from '../../server/resources/volume-backup/schema';
import type { VolumeSnapshot } from '../../server/resources/volume-snapshot/schema';
import { claim, ensureNamespaces, eventsAbout, openApp, waitFor } from './fixtures';
import { EventRecorder } from '../../server/services/event-recorder';
import { snapshotScheduleComponent } from '../../server/domain/well-known/components';

const NS = 'sched-backup';
const H = 3_600_000;
const T0 = Date.UTC(2026, 10, 26, 0, 0, 0);
let clock = T0 + H;
const log = pino({ level: 'silent' });
let ctx: Awaited<ReturnType<typeof openApp>>;
let manager: Manager;

const names = async (kind: string) => ((await ctx.app.store.list(kind, { namespace: NS })).items as VolumeSnapshot[]).map((s) => s.metadata.name ?? '').sort(); // a list of kind VolumeSnapshot or VolumeBackup

async function setPhase(name: string, phase: string) {
  const b = (await ctx.app.store.tryGet('VolumeBackup', NS, name)) as VolumeBackup;
  await ctx.app.store.update({ ...b, status: { phase, sourceClaimName: 'data', backupTargetName: 'nfs' } }, { subresource: 'status' });
}

beforeAll(async () => {
  ctx = await openApp();
  await ensureNamespaces(ctx.app, NS);
  await ctx.app.store.create({ apiVersion: 'stowage.io/v1', kind: 'BackupTarget', metadata: { name: 'nfs' }, spec: { path: '/mnt/backups', default: true } });
  const made = await ctx.app.store.create(claim(NS, 'data', '1Gi'));
  await ctx.app.store.update({ ...made, status: { phase: 'Bound' } }, { subresource: 'status' });
  manager = new Manager({ store: ctx.app.store, log, leaderElection: false, specs: () => [snapshotScheduleSpec({ store: ctx.app.store, log, events: new EventRecorder(ctx.app.store, snapshotScheduleComponent, log), now: () => clock }, { resyncMs: 100 })] });
  await manager.start();
});
afterAll(async () => {
  await manager?.stop();
  await ctx?.app.close();
});

describe('SnapshotSchedule with spec.backup', () => {
  const first = 'nightly-data-20261126t000000z';
  const second = 'nightly-data-20261126t060000z';

  it("backs up the slot's snapshot into the default target, labelled with the schedule", async () => {
    const s: SnapshotSchedule = { apiVersion: 'snapshot.stowage.io/v1', kind: 'SnapshotSchedule', metadata: { name: 'nightly', namespace: NS }, spec: { every: '6h', keep: 1, target: { claimName: 'data' }, backup: { keep: 1 } } };
    await ctx.app.store.create(s);
    const b = await waitFor('first backup', async () => (await ctx.app.store.tryGet('VolumeBackup', NS, first)));
    expect(b.metadata.labels?.['snapshot.stowage.io/schedule']).toBe('nightly');
    expect(b.spec).toEqual({ source: { volumeSnapshotName: first }, backupTargetName: 'nfs' });
    const made = await ctx.app.store.get('SnapshotSchedule', NS, 'nightly');
    await waitFor('BackupCreated event', async () => (await eventsAbout(ctx.app, made)).some((e) => e.reason === 'BackupCreated' && e.message === `Created VolumeBackup ${first} of snapshot ${first}`));
  });

  it('a snapshot a backup still reads is not pruned; it goes once the backup is Completed', async () => {
    await setPhase(first, 'InProgress');
    clock = T0 + 6 * H + 60_000;
    await waitFor('second backup', async () => (await names('VolumeBackup')).includes(second));
    // keep: 1 puts the first snapshot beyond retention, but its backup reads it still.
    expect(await names('VolumeSnapshot')).toEqual([first, second]);
    await setPhase(first, 'Completed');
    await waitFor('first snapshot pruned', async () => (await names('VolumeSnapshot')).join() === second);
    // One Completed backup and one not yet: nothing to prune among backups.
    expect(await names('VolumeBackup')).toEqual([first, second]);
  });

  it('keeps the newest backup.keep Completed backups, deleting the older', async () => {
    await setPhase(second, 'Completed');
    await waitFor('first backup pruned', async () => (await names('VolumeBackup')).join() === second);
  });
});

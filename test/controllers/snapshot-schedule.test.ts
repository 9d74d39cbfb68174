// The snapshot-schedule controller against the real store with a clock the test moves: one
// snapshot per claim and slot under a deterministic name, nothing twice when another
// replica (or a new leader) looks at the same slot, the oldest pruned beyond `keep`, and
// snapshots it did not make left alone. No sleeps: every wait is for a condition.
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Manager } from '../../server/controllers/runtime/manager';
import type { ReconcileContext } from '../../server/controllers/runtime/controller';
import { snapshotScheduleSpec, syncSchedule } from '../../server/controllers/snapshot-schedule/snapshot-schedule';
import { EventRecorder } from '../../server/services/event-recorder';
import type { SnapshotSchedule } from '../../server/resources/snapshot-schedule/schema';
import { claim, ensureNamespaces, eventsAbout, openApp, waitFor } from './fixtures';
import { snapshotScheduleComponent } from '../../server/domain/well-known/components';

const NS = 'sched';
const H = 3_600_000;
const T0 = Date.UTC(2026, 10, 26, 0, 0, 0);
let clock = T0 + H;
const log = pino({ level: 'silent' });
let ctx: Awaited<ReturnType<typeof openApp>>;
let manager: Manager;

const scheduleOf = (name: string, spec: Record<string, unknown>): SnapshotSchedule => ({
  apiVersion: 'snapshot.stowage.io/v1',
  kind: 'SnapshotSchedule',
  metadata: { name, namespace: NS },
  spec,
});
const snapshotNames = async () =>
  ((await ctx.app.store.list('VolumeSnapshot', { namespace: NS })).items).map((s) => s.metadata.name ?? '').sort();

async function boundClaim(name: string, labels?: Record<string, string>) {
  const c = claim(NS, name, '1Gi');
  if (labels) c.metadata.labels = labels;
  const made = await ctx.app.store.create(c);
  await ctx.app.store.update({ ...made, status: { phase: 'Bound' } }, { subresource: 'status' });
}

function startManager(): Manager {
  const m = new Manager({ store: ctx.app.store, log, leaderElection: false, specs: () => [snapshotScheduleSpec({ store: ctx.app.store, log, events: new EventRecorder(ctx.app.store, snapshotScheduleComponent, log), now: () => clock }, { resyncMs: 100 })] });
  return m;
}

beforeAll(async () => {
  ctx = await openApp();
  await ensureNamespaces(ctx.app, NS);
  await boundClaim('data');
  manager = startManager();
  await manager.start();
});
afterAll(async () => {
  await manager?.stop();
  await ctx?.app.close();
});

describe('SnapshotSchedule', () => {
  it("takes the current slot's snapshot at once, labelled with the schedule and slot, and writes the status", async () => {
    await ctx.app.store.create(scheduleOf('six', { every: '6h', keep: 2, target: { claimName: 'data' } }));
    const vs = await waitFor('first snapshot', async () => (await ctx.app.store.tryGet('VolumeSnapshot', NS, 'six-data-20261126t000000z')));
    expect(vs.metadata.labels).toEqual({ 'snapshot.stowage.io/schedule': 'six', 'snapshot.stowage.io/slot': '20261126t000000z' });
    expect(vs.spec).toEqual({ source: { persistentVolumeClaimName: 'data' } });
    const s = await waitFor('status', async () => {
      const s = (await ctx.app.store.tryGet('SnapshotSchedule', NS, 'six'));
      return s?.status?.nextScheduleTime ? s : undefined;
    });
    // The slot began at 00:00; the snapshot was taken at 01:00, when the schedule was made.
    expect(s.status).toEqual({ lastScheduleTime: '2026-11-26T00:00:00Z', lastSnapshotTime: '2026-11-26T01:00:00Z', nextScheduleTime: '2026-11-26T06:00:00Z', claims: ['data'] });
    const events = await waitFor('event', async () => ((await eventsAbout(ctx.app, s)).length ? eventsAbout(ctx.app, s) : undefined));
    expect(events.map((e) => `${e.reason}: ${e.message}`)).toEqual(['SnapshotTaken: Created VolumeSnapshot six-data-20261126t000000z of claim data']);
  });

  it('another replica (or a new leader) looking at the same slot takes nothing twice', async () => {
    const wrote: string[] = [];
    const rctx: ReconcileContext = { controller: 'other', signal: new AbortController().signal, log, enqueue: () => {}, isQueued: () => false, wrote: (rv) => rv && wrote.push(rv) };
    const deps = { store: ctx.app.store, log, events: new EventRecorder(ctx.app.store, 'x', log), now: () => clock + 4 * H };
    const res = await syncSchedule(deps, rctx, NS, 'six');
    expect(wrote).toEqual([]);
    expect(res).toEqual({ requeueAfter: H });
    expect(await snapshotNames()).toEqual(['six-data-20261126t000000z']);
  });

  it('a new slot when the clock reaches it; beyond keep the oldest is deleted', async () => {
    clock = T0 + 6 * H + 60_000;
    await waitFor('second slot', async () => (await snapshotNames()).length === 2);
    clock = T0 + 12 * H;
    await waitFor('third slot and prune', async () => {
      const names = await snapshotNames();
      return names.includes('six-data-20261126t120000z') && names.length === 2;
    });
    expect(await snapshotNames()).toEqual(['six-data-20261126t060000z', 'six-data-20261126t120000z']);
  });

  it("leaves snapshots it did not make, even labelled as its own", async () => {
    await ctx.app.store.create({
      apiVersion: 'snapshot.storage.k8s.io/v1',
      kind: 'VolumeSnapshot',
      metadata: { name: 'by-hand', namespace: NS, labels: { 'snapshot.stowage.io/schedule': 'six', 'snapshot.stowage.io/slot': '20261125t000000z' } },
      spec: { source: { persistentVolumeClaimName: 'data' } },
    });
    clock = T0 + 18 * H;
    await waitFor('fourth slot and prune', async () => (await snapshotNames()).includes('six-data-20261126t180000z') && !(await snapshotNames()).includes('six-data-20261126t060000z'));
    expect(await snapshotNames()).toEqual(['by-hand', 'six-data-20261126t120000z', 'six-data-20261126t180000z']);
  });

  it('a selector schedule snapshots each Bound matching claim; a claim that is not Bound is named in the status', async () => {
    await boundClaim('web-1', { tier: 'web' });
    await ctx.app.store.create({ ...claim(NS, 'web-2', '1Gi'), metadata: { name: 'web-2', namespace: NS, labels: { tier: 'web' } } });
    await ctx.app.store.create(scheduleOf('web', { every: '1h', keep: 3, target: { selector: { matchLabels: { tier: 'web' } } } }));
    const s = await waitFor('selector status', async () => {
      const s = (await ctx.app.store.tryGet('SnapshotSchedule', NS, 'web'));
      return s?.status?.claims ? s : undefined;
    });
    expect(s.status).toMatchObject({ claims: ['web-1', 'web-2'], message: 'skipped: claim web-2 is not Bound yet' });
    expect((await snapshotNames()).filter((n) => n.startsWith('web-'))).toEqual(['web-web-1-20261126t180000z']);
  });

  it("the namespace's quota holds for the schedule's snapshots: none over it, and a FailedCreate Warning says why", async () => {
    const Q = 'sched-quota';
    await ensureNamespaces(ctx.app, Q);
    const c = await ctx.app.store.create(claim(Q, 'data', '1Gi'));
    await ctx.app.store.update({ ...c, status: { phase: 'Bound' } }, { subresource: 'status' });
    await ctx.app.store.create({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'snaps', namespace: Q }, spec: { hard: { 'count/volumesnapshots.snapshot.storage.k8s.io': '0' } } });
    const made = await ctx.app.store.create({ ...scheduleOf('hourly', { every: '1h', keep: 3, target: { claimName: 'data' } }), metadata: { name: 'hourly', namespace: Q } });
    const events = await waitFor('a FailedCreate event', async () => {
      const e = (await eventsAbout(ctx.app, made)).filter((x) => x.reason === 'FailedCreate');
      return e.length > 0 ? e : undefined;
    });
    expect(events[0].type).toBe('Warning');
    expect(events[0].message).toMatch(/^Error creating: volumesnapshots\.snapshot\.storage\.k8s\.io "hourly-data-\w+" is forbidden: exceeded quota: snaps, requested: count\/volumesnapshots\.snapshot\.storage\.k8s\.io=1/);
    expect((await ctx.app.store.list('VolumeSnapshot', { namespace: Q })).items).toEqual([]);
  });
  it('a namespace being deleted: the schedule takes no snapshot there, and neither retries nor warns', async () => {
    const T = 'sched-terminating';
    await ensureNamespaces(ctx.app, T);
    const c = await ctx.app.store.create(claim(T, 'data', '1Gi'));
    await ctx.app.store.update({ ...c, status: { phase: 'Bound' } }, { subresource: 'status' });
    // Suspended while the namespace is live, resumed once it is Terminating (updates are allowed there).
    await ctx.app.store.create({ ...scheduleOf('late', { every: '1h', keep: 3, suspend: true, target: { claimName: 'data' } }), metadata: { name: 'late', namespace: T } });
    await ctx.app.store.delete('Namespace', undefined, T);
    const ns = await ctx.app.store.get('Namespace', undefined, T);
    expect(ns.metadata.deletionTimestamp).toBeTruthy();
    // Resumed on the schedule as read now: a write to it may come between the read and the update (seen under load).
    const resumed = await waitFor('schedule resumed', async () => {
      const s = (await ctx.app.store.get('SnapshotSchedule', T, 'late'));
      return ctx.app.store.update({ ...s, spec: { ...s.spec!, suspend: false } }).catch((e: Error & { code?: string }) => (e.code === 'Conflict' ? undefined : Promise.reject(e)));
    });

    const rctx: ReconcileContext = { controller: 'other', signal: new AbortController().signal, log, enqueue: () => {}, isQueued: () => false, wrote: () => {} };
    const deps = { store: ctx.app.store, log, events: new EventRecorder(ctx.app.store, 'x', log), now: () => clock };
    // No attempt (no Forbidden thrown, so no retry with backoff) and no requeue at the next slot.
    await expect(syncSchedule(deps, rctx, T, 'late')).resolves.toBeUndefined();
    expect((await ctx.app.store.list('VolumeSnapshot', { namespace: T })).items).toEqual([]);
    expect(await eventsAbout(ctx.app, resumed)).toEqual([]);
  });
});

// Leadership holds while start-up work waits on a node that does not report: a btrfs
// subvolume being removed on a node whose agent never answers must not keep the leader's
// session idle (Postgres would end it, the controllers would step down and start again and
// again). The record waits on its own key; claims bind meanwhile; once the node object is
// deleted the record ends, with an Event on the node.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LeaderElector } from '../../server/controllers/runtime/leader-election';
import { logger } from '../../server/services/logger';
import { startControllers, type RunningControllers } from '../../server/controllers/start';
import { btrfsProvisioner } from '../../server/domain/well-known/provisioners';
import { reasons } from '../../server/domain/well-known/event-reasons';
import { AssetStore } from '../../server/store/provisioned-assets';
import { claim, ensureNamespaces, eventsAbout, openApp, volume, waitFor } from './fixtures';

const NS = 'hold';
const SILENT = 'n-hold-silent';
// Short timings: the old start-up waited for the agent (here 3 s) longer than the lease.
const LEASE_MS = 1500;
const AGENT_WAIT_MS = 3000;
const WINDOW_MS = 5000;

let ctx: Awaited<ReturnType<typeof openApp>>;
let running: RunningControllers | undefined;
let assets: AssetStore;

beforeAll(async () => {
  ctx = await openApp();
  await ensureNamespaces(ctx.app, 'default', NS);
  // A node that exists but whose agent never reports, and a removal waiting for that agent.
  await ctx.app.store.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: SILENT } });
  assets = new AssetStore(ctx.app.store);
  const { record } = await assets.begin({ plugin: btrfsProvisioner, pvName: 'pvc-hold-stale', node: SILENT, details: { pool: '/srv/pool-hold', path: '/srv/pool-hold/pvc-hold-stale' } });
  await assets.markDeleting(record);
  // Another one, whose agent reports it removed later on.
  const late = await assets.begin({ plugin: btrfsProvisioner, pvName: 'pvc-hold-late', node: SILENT, details: { pool: '/srv/pool-hold', path: '/srv/pool-hold/pvc-hold-late' } });
  await assets.markDeleting(late.record);
  // A removal on a node deleted while no controllers ran: it ends at start-up.
  const gone = await assets.begin({ plugin: btrfsProvisioner, pvName: 'pvc-hold-gone', node: 'n-hold-gone', details: { pool: '/srv/pool-hold', path: '/srv/pool-hold/pvc-hold-gone' } });
  await assets.markDeleting(gone.record);
  running = await startControllers({ app: ctx.app, connectionString: ctx.url, retryPeriodMs: 200, leaseDurationMs: LEASE_MS, agentWaitMs: AGENT_WAIT_MS });
});

afterAll(async () => {
  await running?.stop();
  await ctx?.app.close();
});

async function bindsWithin(name: string, ms: number): Promise<number> {
  const t0 = Date.now();
  await ctx.app.store.create(volume(name, '1Gi', { storageClassName: '' }));
  await ctx.app.store.create(claim(NS, name, '1Gi', { storageClassName: '' }));
  await waitFor(`claim ${name} bound`, async () => (await ctx.app.store.get('PersistentVolumeClaim', NS, name)).status?.phase === 'Bound', ms);
  return Date.now() - t0;
}

it('keeps leadership over more than a lease while a removal waits for a silent node, and claims bind promptly', async () => {
  const manager = running!.manager;
  await waitFor('leadership', async () => manager.isLeader, 10_000);
  const start = Date.now();
  const binds: number[] = [await bindsWithin('hold-1', 2000)];
  // An observation window of several leases: the leader never stands down in it.
  let lost = 0;
  let second = false;
  while (Date.now() - start < WINDOW_MS) {
    if (!manager.isLeader) lost++;
    if (!second && Date.now() - start > WINDOW_MS / 2) {
      second = true;
      binds.push(await bindsWithin('hold-2', 2000));
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  expect(lost).toBe(0);
  expect(manager.leaderStatus).toMatchObject({ leading: true, terms: 1, stepDowns: 0 });
  expect(binds.every((ms) => ms < 2000)).toBe(true);
  // The removal still waits for its agent: the record is there, being deleted.
  expect((await assets.get(btrfsProvisioner, 'pvc-hold-stale'))?.state).toBe('deleting');
  // Once its agent reports the subvolume removed, the record goes.
  const late = await assets.get(btrfsProvisioner, 'pvc-hold-late');
  expect(late?.state).toBe('deleting');
  await assets.markRemoved(late!);
  // Woken by the record's change, not by its growing retry delay (seconds by now).
  await waitFor('the removed record forgotten', async () => !(await assets.get(btrfsProvisioner, 'pvc-hold-late')), 1000);
  // The election loop kept going round (what /livez looks at).
  expect(Date.now() - manager.leaderStatus!.lastTickAt).toBeLessThan(1000);
});

it("ends a deleted node's records, with an Event on the node", async () => {
  // The node deleted before the controllers started: its record ended at start-up.
  await waitFor('the earlier node\'s record ended', async () => !(await assets.get(btrfsProvisioner, 'pvc-hold-gone')), 5000);
  const earlier = await eventsAbout(ctx.app, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n-hold-gone' } });
  expect(earlier.map((e) => e.reason)).toEqual([reasons.nodeRecordsEnded]);

  await ctx.app.store.delete('Node', undefined, SILENT);
  await waitFor('the record ended', async () => !(await assets.get(btrfsProvisioner, 'pvc-hold-stale')), 10_000);
  const events = await waitFor('the event', async () => {
    const e = await eventsAbout(ctx.app, { apiVersion: 'v1', kind: 'Node', metadata: { name: SILENT } });
    return e.length > 0 ? e : undefined;
  });
  expect(events[0]).toMatchObject({ type: 'Warning', reason: reasons.nodeRecordsEnded });
  expect(events[0].message).toContain('pvc-hold-stale');
  expect(running!.manager.leaderStatus?.stepDowns).toBe(0);
});

it('renews on its own: a start that takes several leases does not cost the lock', async () => {
  let stops = 0;
  let started = false;
  const elector = new LeaderElector({
    connectionString: ctx.url,
    lockName: 'leader-hold-slow-start',
    log: logger,
    retryPeriodMs: 100,
    leaseDurationMs: 1000,
    // Slow work when starting to lead (the session would idle out three times over).
    onStartedLeading: async () => {
      await new Promise((r) => setTimeout(r, 3000));
      started = true;
    },
    onStoppedLeading: () => {
      stops++;
    },
  });
  elector.start();
  try {
    await waitFor('the slow start', async () => started, 10_000);
    // A round or two of the loop after the start: a session ended meanwhile shows now.
    const tick = elector.status.lastTickAt;
    await waitFor('two more rounds', async () => elector.status.lastTickAt > tick + 100, 5000);
    expect(elector.isLeader).toBe(true);
    expect(stops).toBe(0);
  } finally {
    await elector.stop();
  }
  expect(stops).toBe(1);
});

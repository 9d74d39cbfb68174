// Leader election: of several processes one runs the controllers; when its session dies
// (crash, network) or it stops, a standby takes over within seconds.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAppContext, type AppContext } from '../../server/wiring/context';
import { advisoryKeys } from '../../server/controllers/runtime/leader-election';
import { startControllers, type RunningControllers } from '../../server/controllers/start';
import { rawQuery } from '../db';
import { claim, ensureNamespaces, openApp, volume, waitFor } from './fixtures';

const NS = 'le';
let ctx: Awaited<ReturnType<typeof openApp>>;
const procs: { app: AppContext; running: RunningControllers; stopped?: boolean }[] = [];

beforeAll(async () => {
  ctx = await openApp();
  await ensureNamespaces(ctx.app, 'default', NS);
  for (let i = 0; i < 2; i++) {
    const app = await createAppContext(ctx.url);
    const running = await startControllers({ app, connectionString: ctx.url, retryPeriodMs: 200, leaseDurationMs: 3000 });
    procs.push({ app, running });
  }
});

afterAll(async () => {
  for (const p of procs) {
    if (!p.stopped) await p.running.stop();
    await p.app.close();
  }
  await ctx?.app.close();
});

const leaders = () => procs.filter((p) => !p.stopped && p.running.manager.isLeader);
const bound = (name: string) =>
  waitFor(`claim ${name} bound`, async () => (await ctx.app.store.get('PersistentVolumeClaim', NS, name)).status?.phase === 'Bound');

it('exactly one process leads and runs the binder; the other stands by', async () => {
  await waitFor('a leader', async () => leaders().length === 1);
  const standby = procs.find((p) => !p.running.manager.isLeader)!;
  expect(standby.running.manager.controllers).toHaveLength(0);
  await ctx.app.store.create(volume('le-1', '1Gi', { storageClassName: '' }));
  await ctx.app.store.create(claim(NS, 'le-1', '1Gi', { storageClassName: '' }));
  await bound('le-1');
  expect(leaders()).toHaveLength(1);
});

it("a standby takes over within seconds when the leader's session dies", async () => {
  const [old] = leaders();
  const [classid, objid] = advisoryKeys('stowage-controllers');
  const holders = await rawQuery<{ pid: number }>(
    ctx.url,
    `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = $1::oid AND objid = $2::oid AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    [classid, objid >>> 0],
  );
  expect(holders).toHaveLength(1);
  const t0 = Date.now();
  await rawQuery(ctx.url, 'SELECT pg_terminate_backend($1)', [holders[0].pid]);
  await waitFor('a new leader', async () => leaders().length === 1 && leaders()[0] !== old, 10_000);
  const takeover = Date.now() - t0;
  expect(takeover).toBeLessThan(5000);
  await waitFor('the old leader to stand by', async () => old.running.manager.controllers.length === 0);
  await ctx.app.store.create(volume('le-2', '1Gi', { storageClassName: '' }));
  await ctx.app.store.create(claim(NS, 'le-2', '1Gi', { storageClassName: '' }));
  await bound('le-2');
});

it('a standby takes over when the leader stops', async () => {
  const [leader] = leaders();
  await leader.running.stop();
  leader.stopped = true;
  await waitFor('the other to lead', async () => leaders().length === 1, 10_000);
  await ctx.app.store.create(volume('le-3', '1Gi', { storageClassName: '' }));
  await ctx.app.store.create(claim(NS, 'le-3', '1Gi', { storageClassName: '' }));
  await bound('le-3');
});

// Three binder instances, each with its own store connections and no leader election, so
// they really race for the same claims and volumes: every claim must end up bound exactly
// once, and no volume may ever be bound to two claims (checked over the change log, not
// only the final state).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAppContext, type AppContext } from '../../server/wiring/context';
import { startControllers, type RunningControllers } from '../../server/controllers/start';
import type { KubeObject } from '../../server/resources/types';
import { rawQuery } from '../db';
import { claim, ensureNamespaces, openApp, volume, waitFor } from './fixtures';

// STOWAGE_RACE_N raises the size (the write-path issue measured it at 10,000 + 10,000).
const N = Number(process.env.STOWAGE_RACE_N ?? 2000);
const NS = 'race';
let ctx: Awaited<ReturnType<typeof openApp>>;
const binders: { app: AppContext; running: RunningControllers }[] = [];

beforeAll(async () => {
  ctx = await openApp();
  await ensureNamespaces(ctx.app, 'default', NS);
  for (let i = 0; i < 3; i++) {
    const app = await createAppContext(ctx.url);
    const running = await startControllers({ app, connectionString: ctx.url, leaderElection: false, pendingGraceMs: 200 });
    binders.push({ app, running });
  }
});

afterAll(async () => {
  for (const b of binders) {
    await b.running.stop();
    await b.app.close();
  }
  await ctx?.app.close();
});

async function createAll(objects: KubeObject[]): Promise<void> {
  for (let i = 0; i < objects.length; i += 100) {
    await ctx.app.store.transact(async (tx) => {
      for (const o of objects.slice(i, i + 100)) await tx.create(o);
    });
  }
}

it(`binds ${N} claims to ${N} volumes with three binders racing: each claim once, no volume twice`, async () => {
  // All volumes alike and all claims alike: every binder wants the same volumes.
  const volumes = Array.from({ length: N }, (_, i) => volume(`rv-${String(i).padStart(5, '0')}`, '1Gi', { storageClassName: '' }));
  const claims = Array.from({ length: N }, (_, i) => claim(NS, `rc-${String(i).padStart(5, '0')}`, '1Gi', { storageClassName: '' }));
  // Interleave, so claims arrive while volumes are still being made Available.
  await Promise.all([createAll(volumes), createAll(claims)]);

  await waitFor(
    'all claims bound',
    async () => {
      const rows = await rawQuery<{ n: number }>(ctx.url, `SELECT count(*)::int AS n FROM objects WHERE kind = 'PersistentVolumeClaim' AND phase = 'Bound'`);
      return rows[0].n === N;
    },
    Math.max(240_000, N * 60),
  );

  // Lists of the kinds they name.
  const claimRows = (await ctx.app.store.list('PersistentVolumeClaim', { namespace: NS })).items;
  const volumeRows = (await ctx.app.store.list('PersistentVolume')).items;
  expect(claimRows).toHaveLength(N);
  const byName = new Map(volumeRows.map((v) => [v.metadata.name!, v]));
  const used = new Set<string>();
  for (const c of claimRows) {
    expect(c.status!.phase).toBe('Bound');
    const v = byName.get(c.spec!.volumeName!)!;
    expect(v.status!.phase).toBe('Bound');
    expect(v.spec!.claimRef).toMatchObject({ namespace: NS, name: c.metadata.name, uid: c.metadata.uid });
    used.add(c.spec!.volumeName!);
  }
  expect(used.size).toBe(N);

  // The whole history: no volume ever pointed at two claims, no claim at two volumes.
  const volumeHistory = await rawQuery<{ name: string; uids: number }>(
    ctx.url,
    `SELECT name, count(DISTINCT object->'spec'->'claimRef'->>'uid')::int AS uids FROM change_log
      WHERE kind = 'PersistentVolume' AND object->'spec'->'claimRef'->>'uid' IS NOT NULL GROUP BY name`,
  );
  expect(volumeHistory).toHaveLength(N);
  expect(volumeHistory.filter((r) => r.uids !== 1)).toEqual([]);
  const claimHistory = await rawQuery<{ name: string; volumes: number }>(
    ctx.url,
    `SELECT name, count(DISTINCT object->'spec'->>'volumeName')::int AS volumes FROM change_log
      WHERE kind = 'PersistentVolumeClaim' AND coalesce(object->'spec'->>'volumeName', '') <> '' GROUP BY name`,
  );
  expect(claimHistory).toHaveLength(N);
  expect(claimHistory.filter((r) => r.volumes !== 1)).toEqual([]);
}, Math.max(300_000, N * 90));

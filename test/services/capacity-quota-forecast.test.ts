// "Days until the quota is full" per namespace on a real Postgres: claims are created, then
// their history rows are moved back to chosen days, so the requested bytes grow by a known
// amount a day and the forecast can be worked out by hand. A developer sees their
// namespaces only; a namespace without a storage limit has no forecast.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Principal } from '../../server/domain/authorization';
import type { KubeObject } from '../../server/resources/types';
import { CapacityService } from '../../server/services/capacity';
import { appRouter } from '../../server/trpc/root';
import { openTestApp } from '../app';
import { poolOf } from '../../server/store/sql-handle';

let app: Awaited<ReturnType<typeof openTestApp>>;
let capacity: CapacityService;
const admin: Principal = { type: 'user', id: 'a', name: 'admin', role: 'admin', namespaces: [] };
const dev: Principal = { type: 'user', id: 'd', name: 'dev', role: 'developer', namespaces: ['team-a'] };
const Gi = 1024n ** 3n;
const gi = (n: number) => (BigInt(n) * Gi).toString();
const H = 3600 * 1000;
const D = 24 * H;
// "Now" for the forecasts: the next UTC midnight, so the daily buckets are whole days and
// every row moved back below is inside the window.
const NOW = Math.ceil(Date.now() / D) * D;
const FAST = 'fast.storageclass.storage.k8s.io/requests.storage';

function claim(ns: string, name: string, size: string, cls: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: ns },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: size } }, storageClassName: cls },
  };
}

const quota = (ns: string, name: string, hard: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name, namespace: ns }, spec: { hard } });

/** A claim whose every history row is dated `daysAgo` days (and an hour) before NOW. */
async function claimCreated(ns: string, name: string, size: string, cls: string, daysAgo: number) {
  await app.objects.create(admin, claim(ns, name, size, cls));
  const r = await poolOf(app.store).query(`UPDATE history SET created_at = $1 WHERE kind = 'PersistentVolumeClaim' AND namespace = $2 AND name = $3`, [
    new Date(NOW - daysAgo * D + H),
    ns,
    name,
  ]);
  expect(r.rowCount).toBeGreaterThan(0);
}

beforeAll(async () => {
  app = await openTestApp();
  capacity = new CapacityService(app.store);
  for (const ns of ['team-a', 'team-b', 'team-c']) await app.objects.create(admin, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  // team-a: 100 Gi for every claim and 40 Gi for class fast; 10 Gi more requested each day.
  await app.objects.create(admin, quota('team-a', 'storage', { 'requests.storage': '100Gi', persistentvolumeclaims: '10' }));
  await app.objects.create(admin, quota('team-a', 'fast-room', { [FAST]: '40Gi' }));
  await claimCreated('team-a', 'a1', '10Gi', 'fast', 3);
  await claimCreated('team-a', 'a2', '10Gi', 'fast', 2);
  await claimCreated('team-a', 'a3', '10Gi', 'slow', 1);
  // team-b: another team's quota, nearly full, and a claim named so it would show.
  await app.objects.create(admin, quota('team-b', 'storage', { 'requests.storage': '6Gi' }));
  await claimCreated('team-b', 'secret-project', '5Gi', 'fast', 2);
  // team-c: claims but only a count limit, so no storage forecast.
  await app.objects.create(admin, quota('team-c', 'count', { persistentvolumeclaims: '5' }));
  await claimCreated('team-c', 'c1', '1Gi', 'fast', 2);
});
afterAll(async () => app?.close());

describe('quota forecasts', () => {
  test('requests growing 10 Gi a day with 70 of 100 Gi left: 7 days; class fast 20 of 40 Gi at 7 Gi a day', async () => {
    const f = await capacity.quotaForecasts(admin, 30, NOW);
    const a = f.find((x) => x.namespace === 'team-a')!;
    // Daily totals 0, 10, 20, 30 Gi (fast: 0, 10, 20, 20): least squares 10 and 7 Gi a day.
    expect(a.limits.map((l) => [l.quota, l.resource, l.hardBytes, l.requestedBytes, l.forecast.state])).toEqual([
      ['fast-room', FAST, gi(40), gi(20), 'filling'],
      ['storage', 'requests.storage', gi(100), gi(30), 'filling'],
    ]);
    const [fast, all] = a.limits.map((l) => l.forecast);
    expect(all.state === 'filling' && all.days).toBeCloseTo(7, 9);
    expect(all.state === 'filling' && all.bytesPerDay).toBeCloseTo(10 * Number(Gi), 0);
    expect(fast.state === 'filling' && fast.days).toBeCloseTo(20 / 7, 9);
  });

  test('an admin sees every namespace with a storage limit; no storage limit, no forecast', async () => {
    const f = await capacity.quotaForecasts(admin, 30, NOW);
    expect(f.map((x) => x.namespace)).toEqual(['team-a', 'team-b']);
    const b = f.find((x) => x.namespace === 'team-b')!;
    expect(b.limits).toHaveLength(1);
    expect(b.limits[0]).toMatchObject({ quota: 'storage', hardBytes: gi(6), requestedBytes: gi(5) });
  });

  test('a developer sees their namespaces only, and nothing of the others', async () => {
    const mine = await capacity.quotaForecasts(dev, 30, NOW);
    const all = await capacity.quotaForecasts(admin, 30, NOW);
    expect(mine.map((x) => x.namespace)).toEqual(['team-a']);
    // The same figures as an admin's for that namespace: the other namespaces' history plays no part.
    expect(mine[0]).toEqual(all.find((x) => x.namespace === 'team-a'));
    const text = JSON.stringify(mine);
    for (const other of ['team-b', 'team-c', 'secret-project', gi(6), gi(5)]) expect(text).not.toContain(other);
  });

  test('a developer with no namespace sees no forecast', async () => {
    expect(await capacity.quotaForecasts({ ...dev, namespaces: [] }, 30, NOW)).toEqual([]);
  });

  test('a class no claim has used yet is not filling, from zero', async () => {
    await app.objects.create(admin, quota('team-a', 'gold-room', { 'gold.storageclass.storage.k8s.io/requests.storage': '1Gi' }));
    try {
      const a = (await capacity.quotaForecasts(admin, 30, NOW)).find((x) => x.namespace === 'team-a')!;
      expect(a.limits.find((l) => l.quota === 'gold-room')).toMatchObject({ requestedBytes: '0', forecast: { state: 'not-filling', bytesPerDay: 0 } });
      // Not filling comes after the filling limits.
      expect(a.limits.at(-1)!.quota).toBe('gold-room');
    } finally {
      await app.objects.delete(admin, 'ResourceQuota', 'team-a', 'gold-room');
    }
  });

  test('over tRPC: a developer gets theirs; hostile input is refused', async () => {
    const call = (p: Principal) => appRouter.createCaller({ app, principal: p, setSessionCookie: () => {} });
    const mine = await call(dev).capacity.quotaForecast();
    expect(mine.map((x) => x.namespace)).toEqual(['team-a']);
    for (const days of [0, 91, 1.5, -1]) await expect(call(dev).capacity.quotaForecast({ days })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(call(dev).capacity.quotaForecast({ days: '7' } as never)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });
});

// Requests and background work take their connections from pools of their own
// (server/store/connection-lanes.ts): background work holding every connection it has
// does not make a request wait, and the controllers run on the background pool.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startControllers } from '../../server/controllers/start';
import { currentLane, inBackground } from '../../server/store/connection-lanes';
import { ObjectStore } from '../../server/store/object-store';
import { poolOf, sqlOf } from '../../server/store/sql-handle';
import { createTestDatabase, rawQuery } from '../db';
import { openApp, waitFor } from '../controllers/fixtures';

let url: string;
let store: ObjectStore;
beforeAll(async () => {
  url = await createTestDatabase();
  store = new ObjectStore(url, 2);
  await store.start();
});
afterAll(async () => {
  await store?.stop();
});

const appName = async () => (await sqlOf(store).$queryRawUnsafe<{ a: string }[]>("SELECT current_setting('application_name') AS a"))[0].a;

/** Resolves with `p`, or rejects when it has not settled within `ms`. */
function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not answered within ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

describe('connection lanes', () => {
  test('work is a request unless it runs in the background, and the lane travels with timers and promises', async () => {
    expect(currentLane()).toBe('requests');
    const seen = await inBackground(async () => {
      await new Promise((r) => setTimeout(r, 1));
      return new Promise<string>((resolve) => setImmediate(() => resolve(currentLane())));
    });
    expect(seen).toBe('background');
    expect(currentLane()).toBe('requests');
  });

  test('each lane has its own pool, named in Postgres', async () => {
    expect(await appName()).toBe('stowage-requests');
    expect(await inBackground(appName)).toBe('stowage-background');
    expect(inBackground(() => poolOf(store))).not.toBe(poolOf(store));
  });

  test('a request answers while background work holds every connection of its pool, and background work waits for its own', async () => {
    await store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'lanes' } });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const holders = inBackground(() => Promise.all([0, 1].map(() => store.transact(async (tx) => (await tx.get('Namespace', undefined, 'lanes'), gate)))));
    const background = inBackground(() => poolOf(store));
    await waitFor('both background connections held', async () => background.totalCount === 2 && background.idleCount === 0, 10_000);
    // A third piece of background work waits for one of the two...
    const third = inBackground(() => store.tryGet('Namespace', undefined, 'lanes'));
    await waitFor('a third background read waiting', async () => background.waitingCount === 1, 10_000);
    // ...while a request does not.
    expect((await within(store.tryGet('Namespace', undefined, 'lanes'), 5_000))?.metadata.name).toBe('lanes');
    expect(await within(store.list('Namespace'), 5_000)).toMatchObject({ items: [{ metadata: { name: 'lanes' } }] });
    expect(background.waitingCount).toBe(1);
    release();
    await holders;
    expect((await third)?.metadata.name).toBe('lanes');
  });
});

describe('the controllers', () => {
  test('read and write on the background pool', async () => {
    const ctx = await openApp();
    const running = await startControllers({ app: ctx.app, connectionString: ctx.url, leaderElection: false });
    try {
      const db = new URL(ctx.url).pathname.slice(1);
      const byName = async () =>
        new Map(
          (await rawQuery<{ a: string; n: number }>(url, 'SELECT application_name AS a, count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 GROUP BY 1', [db])).map((r) => [r.a, r.n]),
        );
      // The cache's lists and the controllers' first reconciles opened the background pool.
      await waitFor('a background connection', async () => ((await byName()).get('stowage-background') ?? 0) > 0, 10_000);
    } finally {
      await running.stop();
      await ctx.app.close();
    }
  });
});

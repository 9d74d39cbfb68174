// The store analyzes a table once it holds more than twice the rows its statistics
// describe: a statement prepared while `objects` was empty must not keep its empty-table
// plan (which read every object of a kind per lookup by key) once the table has grown,
// and a table that only changes in place is left to autovacuum.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  CHECK_INTERVAL_MS,
  FIRST_REFRESH_ROWS,
  RECHECK_FOR_MS,
  refreshStaleStatistics,
  StatisticsSchedule,
  statisticsStale,
} from '../../server/store/statistics';
import { waitFor } from '../controllers/fixtures';
import { openTestStore, rawQuery, type TestStore } from '../db';
import { sqlOf } from '../../server/store/sql-handle';

describe('statisticsStale', () => {
  test.each([
    // [live rows, rows the statistics describe (-1: never analyzed), stale]
    [0, -1, false],
    [FIRST_REFRESH_ROWS - 1, -1, false],
    [FIRST_REFRESH_ROWS, -1, true],
    [FIRST_REFRESH_ROWS, 0, true],
    [300, 200, false],
    [400, 200, false],
    [401, 200, true],
    [100_000, 65_536, false],
    [131_073, 65_536, true],
    // Changed in place, or shrunk: the plans still fit.
    [100_000, 100_000, false],
    [10, 100_000, false],
  ])('%s live rows, %s planned: %s', (live, planned, stale) => {
    expect(statisticsStale(live, planned)).toBe(stale);
  });
});

describe('StatisticsSchedule', () => {
  test('looks at once, then at most once a second while the head moves', () => {
    const s = new StatisticsSchedule();
    expect(s.due(10n, 0)).toBe(true);
    expect(s.due(20n, 10)).toBe(false);
    expect(s.due(30n, CHECK_INTERVAL_MS - 1)).toBe(false);
    expect(s.due(40n, CHECK_INTERVAL_MS)).toBe(true);
  });

  test('keeps looking for a while after the head stopped, then stops', () => {
    const s = new StatisticsSchedule();
    expect(s.due(10n, 0)).toBe(true);
    expect(s.due(10n, CHECK_INTERVAL_MS)).toBe(true);
    expect(s.due(10n, RECHECK_FOR_MS)).toBe(true);
    expect(s.due(10n, RECHECK_FOR_MS + CHECK_INTERVAL_MS)).toBe(false);
    expect(s.due(10n, 60_000)).toBe(false);
    // A new write starts it again.
    expect(s.due(11n, 60_001)).toBe(true);
  });
});

const volume = (name: string) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name },
  spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/srv/${name}` }, storageClassName: '' },
});

describe('statistics refresh', () => {
  let ts: TestStore;
  let client: pg.Client;
  beforeAll(async () => {
    ts = await openTestStore();
    // Autovacuum's own analyze would refresh the statistics too (with many test databases it
    // visits each within a second), and then the store rightly does nothing: off, so these
    // tests see the store's refresh alone.
    await rawQuery(ts.url, 'ALTER TABLE objects SET (autovacuum_enabled = false)');
    await rawQuery(ts.url, 'ALTER TABLE change_log SET (autovacuum_enabled = false)');
    client = new pg.Client({ connectionString: ts.url });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
    await ts?.close();
  });

  const analyzed = async () =>
    Number((await rawQuery<{ n: string }>(ts.url, `SELECT analyze_count AS n FROM pg_stat_user_tables WHERE relname = 'objects'`))[0]?.n ?? 0);

  // Counts reach the statistics collector up to 10 s after a write (an idle backend's report).
  test('a lookup planned on the empty table uses the unique key once the store has grown', { timeout: 60_000 }, async () => {
    // The generic plan, made now, while the table is empty.
    await client.query('SET plan_cache_mode = force_generic_plan');
    await client.query('PREPARE lookup AS SELECT object FROM objects WHERE kind = $1 AND namespace = $2 AND name = $3');
    await client.query(`EXECUTE lookup('PersistentVolume', '', 'sv-1')`);
    const before = await analyzed();

    for (let i = 0; i < 600; i += 100) {
      await ts.store.transact(async (tx) => {
        for (let j = i; j < i + 100; j++) {
          await tx.create(volume(`sv-${j}`));
        }
      });
    }
    // The feed reads the log as it grows and analyzes once the table outgrows its statistics.
    await waitFor('an analyze of objects', async () => (await analyzed()) >= before + 1, 40_000);

    const plan = (await client.query(`EXPLAIN EXECUTE lookup('PersistentVolume', '', 'sv-300')`)).rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(plan).toContain('objects_kind_namespace_name_key');
    expect(plan).not.toContain('Filter');
  });

  test('a table analyzes again only once it has outgrown its statistics, not when changed in place', { timeout: 120_000 }, async () => {
    await rawQuery(ts.url, 'ANALYZE objects');
    const live = async () =>
      Number((await rawQuery<{ n: string }>(ts.url, `SELECT pg_stat_get_live_tuples('objects'::regclass) AS n`))[0].n);
    const rows = await live();
    const before = await analyzed();
    // Every volume rewritten in place: as many rows as the statistics describe.
    const names = (await rawQuery<{ name: string }>(ts.url, `SELECT name FROM objects WHERE kind = 'PersistentVolume'`)).map((r) => r.name);
    expect(names.length).toBeGreaterThanOrEqual(600);
    await ts.store.transact(async (tx) => {
      for (const n of names) {
        const pv = (await tx.get('PersistentVolume', undefined, n))!;
        pv.metadata.labels = { rewritten: 'yes' };
        await tx.update(pv);
      }
    });
    await waitFor('the rewrites counted', async () => {
      const [r] = await rawQuery<{ n: string }>(ts.url, `SELECT pg_stat_get_tuples_updated('objects'::regclass) AS n`);
      return Number(r.n) >= names.length;
    }, 40_000);
    await refreshStaleStatistics(sqlOf(ts.store));
    expect(await analyzed()).toBe(before);

    // Grown past twice the rows analyzed: the next look analyzes it.
    await ts.store.transact(async (tx) => {
      for (let j = 0; j < rows + 10; j++) {
        await tx.create(volume(`grow-${j}`));
      }
    });
    await waitFor('the growth counted', async () => (await live()) > 2 * rows, 40_000);
    await refreshStaleStatistics(sqlOf(ts.store));
    expect(await analyzed()).toBeGreaterThan(before);
  });
});

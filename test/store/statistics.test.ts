// The store refreshes the planner's statistics as the change log doubles: a statement
// prepared while `objects` was empty must not keep its empty-table plan (which read every
// object of a kind per lookup by key) once the table has grown.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FIRST_REFRESH, nextRefreshAfter } from '../../server/store/statistics';
import { waitFor } from '../controllers/fixtures';
import { openTestStore, rawQuery, type TestStore } from '../db';

describe('nextRefreshAfter', () => {
  test.each([
    [0n, FIRST_REFRESH],
    [1n, FIRST_REFRESH],
    [127n, FIRST_REFRESH],
    [128n, FIRST_REFRESH],
    [129n, 258n],
    [1_000n, 2_000n],
    [5_000_000n, 10_000_000n],
  ])('after %s: %s', (rv, next) => {
    expect(nextRefreshAfter(rv)).toBe(next);
  });
});

describe('statistics refresh', () => {
  let ts: TestStore;
  let client: pg.Client;
  beforeAll(async () => {
    ts = await openTestStore();
    client = new pg.Client({ connectionString: ts.url });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
    await ts?.close();
  });

  const analyzed = async () =>
    Number((await rawQuery<{ n: string }>(ts.url, `SELECT analyze_count AS n FROM pg_stat_user_tables WHERE relname = 'objects'`))[0]?.n ?? 0);

  test('a lookup planned on the empty table uses the unique key once the store has grown', async () => {
    // The generic plan, made now, while the table is empty.
    await client.query('SET plan_cache_mode = force_generic_plan');
    await client.query('PREPARE lookup AS SELECT object FROM objects WHERE kind = $1 AND namespace = $2 AND name = $3');
    await client.query(`EXECUTE lookup('PersistentVolume', '', 'sv-1')`);
    const before = await analyzed();

    for (let i = 0; i < 600; i += 100) {
      await ts.store.transact(async (tx) => {
        for (let j = i; j < i + 100; j++) {
          await tx.create({
            apiVersion: 'v1',
            kind: 'PersistentVolume',
            metadata: { name: `sv-${j}` },
            spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/srv/${j}` }, storageClassName: '' },
          });
        }
      });
    }
    // The feed reads the log as it grows and analyzes past 256 and again past 512 changes.
    await waitFor('two analyzes of objects', async () => (await analyzed()) >= before + 2, 20_000);

    const plan = (await client.query(`EXPLAIN EXECUTE lookup('PersistentVolume', '', 'sv-300')`)).rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(plan).toContain('objects_kind_namespace_name_key');
    expect(plan).not.toContain('Filter');
  });
});

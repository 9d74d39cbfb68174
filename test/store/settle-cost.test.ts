// Settling the change log reads the rows after the settled prefix, not the whole log:
// every list and every watch "from now" settles first, so a full read made each of them
// cost as much as the log was long (9.3 s at a million objects).
import { afterAll, beforeAll, expect, test } from 'vitest';
import { SETTLE_SQL, settle } from '../../server/store/change-feed';
import { sqlOf } from '../../server/store/sql-handle';
import { openTestStore, rawQuery, type TestStore } from '../db';

let t: TestStore;
beforeAll(async () => {
  t = await openTestStore();
});
afterAll(async () => {
  await t?.close();
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  Plans?: PlanNode[];
}

/** Rows each scan of change_log returned, over every loop. */
function changeLogRows(n: PlanNode, out: number[] = []): number[] {
  if (n['Relation Name'] === 'change_log' && /Scan/.test(n['Node Type'])) out.push(n['Actual Rows'] * n['Actual Loops']);
  for (const c of n.Plans ?? []) changeLogRows(c, out);
  return out;
}

test('a settle reads the rows after the settled prefix, however long the log is', async () => {
  // 3,000 changes in the log (rows of the log only: the settle reads nothing else).
  await rawQuery(
    t.url,
    `INSERT INTO change_log (rv, type, kind, namespace, name, object)
     SELECT nextval('resource_version_seq'), 'ADDED', 'ConfigMap', 'default', 'cm-' || g, '{}'::json FROM generate_series(1, 3000) g`,
  );
  await settle(sqlOf(t.store));
  const plan = (await rawQuery<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(t.url, `EXPLAIN (ANALYZE, FORMAT JSON) ${SETTLE_SQL}`))[0]['QUERY PLAN'][0].Plan;
  const rows = changeLogRows(plan);
  expect(rows.length).toBeGreaterThan(0);
  // The range after the prefix is empty (all settled) and the newest row is found by one probe.
  expect(Math.max(...rows)).toBeLessThanOrEqual(2);
  const logRows = (await rawQuery<{ n: number }>(t.url, 'SELECT count(*)::int AS n FROM change_log'))[0].n;
  expect(logRows).toBeGreaterThanOrEqual(3000);
});

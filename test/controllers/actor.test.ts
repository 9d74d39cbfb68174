// Controllers' writes carry their actor into the history, also when a shared transaction
// batcher runs them inside a batch another controller's call started.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { TxBatcher } from '../../server/controllers/runtime/tx-batcher';
import { runAs } from '../../server/store/actor-context';
import { openTestStore, rawQuery, type TestStore } from '../db';

let ts: TestStore;
beforeAll(async () => {
  ts = await openTestStore();
});
afterAll(async () => ts?.close());

test('each write of a batch is recorded with the actor of the call that queued it', async () => {
  const batcher = new TxBatcher(ts.store, { parallel: 1, maxBatch: 64 });
  const names = Array.from({ length: 10 }, (_, i) => `pv-${i}`);
  const results = await Promise.all(
    names.map((name, i) =>
      runAs(`controller:c${i}`, () =>
        batcher.run((tx) =>
          tx.create({
            apiVersion: 'v1',
            kind: 'PersistentVolume',
            metadata: { name },
            spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/tmp/${name}` } },
          }),
        ),
      ),
    ),
  );
  // With one transaction at a time, the calls after the first share a batch started from the first one's context.
  const versions = results.map((r) => BigInt(r.versions[0]));
  expect(new Set(versions).size).toBe(10);
  const rows = await rawQuery<{ name: string; actor: string }>(ts.url, "SELECT name, actor FROM history WHERE kind = 'PersistentVolume' ORDER BY name");
  expect(rows).toEqual(names.map((name, i) => ({ name, actor: `controller:c${i}` })).sort((a, b) => a.name.localeCompare(b.name)));
});

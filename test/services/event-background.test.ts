// Events recorded in the background (after a write on a hot path) are written without the
// caller waiting, through a shared batch of transactions, and counted as any other.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TxBatcher } from '../../server/controllers/runtime/tx-batcher';
import { EventRecorder } from '../../server/services/event-recorder';
import { logger } from '../../server/services/logger';
import { ofKind } from '../../server/resources/of-kind';
import { openTestStore, type TestStore } from '../db';

let t: TestStore;

beforeAll(async () => {
  t = await openTestStore();
  await t.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps' } });
});
afterAll(() => t.close());

it('background events land once settled: one Event per message, repeats counted, in shared transactions', async () => {
  const batch = new TxBatcher(t.store, { maxBatch: 64, parallel: 1 });
  const recorder = new EventRecorder(t.store, 'test-component', logger, (fn) => batch.run(fn));
  const pods = [];
  for (let i = 0; i < 20; i++) {
    pods.push(await t.store.create({ apiVersion: 'v1', kind: 'Pod', metadata: { namespace: 'apps', name: `p${i}` }, spec: { containers: [{ name: 'c', image: 'busybox' }] } }));
  }
  for (const p of pods) recorder.recordInBackground(p, 'Normal', 'Scheduled', `Successfully assigned apps/${p.metadata.name} to node-a`);
  recorder.recordInBackground(pods[0], 'Normal', 'Scheduled', 'Successfully assigned apps/p0 to node-a');
  await recorder.settled();
  const events = ofKind((await t.store.list('Event', { namespace: 'apps' })).items, 'Event');
  expect(events).toHaveLength(20);
  expect(events.find((e) => e.involvedObject?.name === 'p0')?.count).toBe(2);
  expect(events.every((e) => e.source?.component === 'test-component')).toBe(true);
});

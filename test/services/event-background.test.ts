// Events recorded in the background (after a write on a hot path) are written without the
// caller waiting, through a shared batch of transactions, and counted as any other.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TxBatcher } from '../../server/controllers/runtime/tx-batcher';
import { EventRecorder, REPEATS_PER_SECOND } from '../../server/services/event-recorder';
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

it('an event queued in the write it describes commits with it, and goes with it when the write fails', async () => {
  const recorder = new EventRecorder(t.store, 'test-joined', logger);
  const pod = await t.store.transact(async (tx) => {
    const p = await tx.create({ apiVersion: 'v1', kind: 'Pod', metadata: { namespace: 'apps', name: 'joined' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
    await recorder.recordIn(tx, p, 'Normal', 'Scheduled', 'Successfully assigned apps/joined to node-a');
    return p;
  });
  // No settling: the Event is there when the write's transaction has returned.
  const events = () => t.store.list('Event', { namespace: 'apps' }).then((l) => ofKind(l.items, 'Event').filter((e) => e.source?.component === 'test-joined'));
  expect((await events()).map((e) => [e.involvedObject?.name, e.involvedObject?.uid, e.reason, e.count])).toEqual([['joined', pod.metadata.uid, 'Scheduled', 1]]);
  // A repeat is counted on the same Event.
  await t.store.transact((tx) => recorder.recordIn(tx, pod, 'Normal', 'Scheduled', 'Successfully assigned apps/joined to node-a'));
  expect((await events()).map((e) => e.count)).toEqual([2]);
  // A write that fails takes its Event along.
  await expect(
    t.store.transact(async (tx) => {
      await recorder.recordIn(tx, pod, 'Warning', 'FailedMount', 'not written');
      throw new Error('the write fails');
    }),
  ).rejects.toThrow('the write fails');
  expect((await events()).map((e) => e.reason)).toEqual(['Scheduled']);
  // An Event that cannot be queued (its namespace does not exist) does not fail the write.
  const elsewhere = { ...pod, metadata: { ...pod.metadata, namespace: 'no-such-namespace' } };
  await t.store.transact(async (tx) => {
    await tx.create({ apiVersion: 'v1', kind: 'Pod', metadata: { namespace: 'apps', name: 'joined-2' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
    await recorder.recordIn(tx, elsewhere, 'Normal', 'Scheduled', 'not written either');
  });
  await recorder.settled();
  expect(await t.store.tryGet('Pod', 'apps', 'joined-2')).toBeDefined();
});

it('repeats past the repeats rate are dropped, as client-go drops what its sink cannot take; new events are not', async () => {
  expect(REPEATS_PER_SECOND).toBe(20);
  // One repeat in 1,000 s: the bucket's one token, then nothing for the rest of this test.
  const recorder = new EventRecorder(t.store, 'test-repeats', logger, undefined, 0.001);
  const pod = await t.store.create({ apiVersion: 'v1', kind: 'Pod', metadata: { namespace: 'apps', name: 'repeated' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
  for (let i = 0; i < 5; i++) await recorder.record(pod, 'Normal', 'Waiting', 'still waiting');
  await recorder.record(pod, 'Normal', 'Other', 'a new event is never dropped');
  await recorder.record(pod, 'Normal', 'Another', 'nor is this one');
  const events = ofKind((await t.store.list('Event', { namespace: 'apps' })).items, 'Event').filter((e) => e.involvedObject?.name === 'repeated');
  expect(events.map((e) => [e.reason, e.count]).sort()).toEqual([
    ['Another', 1],
    ['Other', 1],
    ['Waiting', 2],
  ]);
});

// An agent's ask for its node's pods, held while the answer would not change: it comes back
// as soon as a pod is placed on the node (not at the end of the wait), a pod placed on
// another node does not end it, and an unchanged answer comes back after the wait.
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { PodPublishing } from '../../server/services/pod-publishing';
import { logger } from '../../server/services/logger';
import { openTestStore, type TestStore } from '../db';

let t: TestStore;
let publishing: PodPublishing;

const pod = (name: string, nodeName: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { namespace: 'apps', name },
  spec: { nodeName, containers: [{ name: 'c', image: 'busybox' }] },
});

beforeAll(async () => {
  t = await openTestStore();
  await t.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps' } });
  await t.store.create(pod('first', 'node-a'));
  publishing = new PodPublishing(t.store, logger);
});
afterAll(() => t.close());

it('answers at once without a version, or with a version that is not the current one', async () => {
  const first = await publishing.podsFor('node-a');
  expect(first.pods.map((p) => p.name)).toEqual(['first']);
  const began = Date.now();
  const again = await publishing.podsFor('node-a', { waitMs: 20_000, seen: 'some-older-version' });
  expect(Date.now() - began).toBeLessThan(10_000);
  expect(again.version).toBe(first.version);
});

it('a held ask comes back when a pod is placed on the node, long before its wait is over', async () => {
  const { version } = await publishing.podsFor('node-a');
  const began = Date.now();
  const held = publishing.podsFor('node-a', { waitMs: 25_000, seen: version });
  await t.store.create(pod('second', 'node-a'));
  const answer = await held;
  expect(Date.now() - began).toBeLessThan(15_000);
  expect(answer.pods.map((p) => p.name)).toEqual(['first', 'second']);
  expect(answer.version).not.toBe(version);
});

it("another node's pod does not end the wait; the unchanged answer comes back after it", async () => {
  const { version } = await publishing.podsFor('node-a');
  const began = Date.now();
  const held = publishing.podsFor('node-a', { waitMs: 1_500, seen: version });
  await t.store.create(pod('elsewhere', 'node-b'));
  const answer = await held;
  expect(Date.now() - began).toBeGreaterThanOrEqual(1_500);
  expect(answer.version).toBe(version);
});

it("a claim none of the node's pods names does not end the wait", async () => {
  const { version } = await publishing.podsFor('node-a');
  const began = Date.now();
  const held = publishing.podsFor('node-a', { waitMs: 1_500, seen: version });
  await t.store.create({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { namespace: 'apps', name: 'unrelated' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  });
  const answer = await held;
  expect(Date.now() - began).toBeGreaterThanOrEqual(1_500);
  expect(answer.version).toBe(version);
});

it("a claim of the node's pod being bound ends the wait at once", async () => {
  await t.store.create({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { namespace: 'apps', name: 'data' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  });
  await t.store.create({ ...pod('with-claim', 'node-a'), spec: { nodeName: 'node-a', containers: [{ name: 'c', image: 'busybox' }], volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'data' } }] } });
  await t.store.create({
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: 'pv-data' },
    spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/srv/data' } },
  });
  const before = await publishing.podsFor('node-a');
  expect(before.pods.find((p) => p.name === 'with-claim')?.volumes[0].waiting).toMatch(/not bound/);
  const began = Date.now();
  const held = publishing.podsFor('node-a', { waitMs: 25_000, seen: before.version });
  const c = await t.store.get('PersistentVolumeClaim', 'apps', 'data');
  const bound = await t.store.update({ ...c, spec: { ...c.spec, volumeName: 'pv-data' } });
  await t.store.update({ ...bound, status: { phase: 'Bound' } }, { subresource: 'status' });
  const answer = await held;
  expect(Date.now() - began).toBeLessThan(15_000);
  expect(answer.version).not.toBe(before.version);
  expect(answer.pods.find((p) => p.name === 'with-claim')?.volumes[0]).toMatchObject({ pvName: 'pv-data', hostPath: '/srv/data' });
});

it('an abort ends the wait', async () => {
  const { version } = await publishing.podsFor('node-a');
  const stop = new AbortController();
  const began = Date.now();
  const held = publishing.podsFor('node-a', { waitMs: 25_000, seen: version, signal: stop.signal });
  stop.abort();
  await held;
  expect(Date.now() - began).toBeLessThan(15_000);
});

it("changes that leave the answer as it was do not make it again: the pod's status, the bound claim's status conditions, the volume's annotations", async () => {
  // The pod 'with-claim' and its bound claim and volume, from the test above.
  const { version, pods } = await publishing.podsFor('node-a');
  expect(pods.find((p) => p.name === 'with-claim')?.volumes[0]).toMatchObject({ pvName: 'pv-data', hostPath: '/srv/data' });
  const made = vi.spyOn(publishing, 'podsOn');
  try {
    const held = publishing.podsFor('node-a', { waitMs: 1_500, seen: version });
    const p = await t.store.get('Pod', 'apps', 'with-claim');
    await t.store.update({ ...p, status: { phase: 'Running' } }, { subresource: 'status' });
    const c = await t.store.get('PersistentVolumeClaim', 'apps', 'data');
    await t.store.update({ ...c, status: { ...c.status, conditions: [{ type: 'Resizing', status: 'True' }] } }, { subresource: 'status' });
    const v = await t.store.get('PersistentVolume', undefined, 'pv-data');
    await t.store.update({ ...v, metadata: { ...v.metadata, annotations: { 'stowage.io/used-bytes': '4096' } } });
    const answer = await held;
    expect(answer.version).toBe(version);
    // The first look and the one at the end of the wait: none of the changes woke it.
    expect(made).toHaveBeenCalledTimes(2);
  } finally {
    made.mockRestore();
  }
});

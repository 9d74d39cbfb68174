// Placement by pool room, two nodes on real btrfs: each node's agent has its own pool
// (both on this machine, each agent seeing its own root), the class names one pool path.
// A WaitForFirstConsumer claim lands on the node whose pool has room; a claim no pool can
// hold leaves its pod unschedulable in upstream's words; an Immediate claim goes to the
// node with the most room.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { poolCapacityName } from '../../server/domain/btrfs-pool';
import { annPoolTotal } from '../../server/domain/well-known/annotations';
import type { PersistentVolumeClaim } from '../../server/resources/persistent-volume-claim/schema';
import { claim, waitFor } from '../controllers/fixtures';
import { boundVolume, type LocalHarness } from '../local-volumes/harness';
import { btrfsClass, closePoolHarness, makePool, openPoolHarness, skipWithoutPools } from './fixture';

const skip = skipWithoutPools('btrfs placement tests');

const POOL = '/pools/fast';
let h: LocalHarness;
let roots: string;

beforeAll(async () => {
  if (skip) return;
  ({ h, dir: roots } = await openPoolHarness('stowage-pool-roots-'));
  // node-a: a 384 MiB pool, node-b: a 512 MiB one, each at POOL under its agent's root.
  for (const [node, size] of [['node-a', 384], ['node-b', 512]] as const) {
    await fs.mkdir(path.join(roots, node, 'pools'), { recursive: true });
    await makePool(path.join(roots, node, 'pools'), 'fast', size);
  }
  for (const [name, mode] of [['pooled', 'WaitForFirstConsumer'], ['pooled-now', 'Immediate']]) {
    await h.app.store.create(btrfsClass(name, POOL, { volumeBindingMode: mode }));
  }
  await h.startControllers();
  for (const node of ['node-a', 'node-b']) await h.startAgent(node, { poolRoot: path.join(roots, node) });
  for (const node of ['node-a', 'node-b']) {
    await waitFor(`${node} pool reported`, async () => (await h.app.store.tryGet('CSIStorageCapacity', 'kube-system', poolCapacityName(node, 'pooled')))?.metadata.annotations?.[annPoolTotal], 20_000);
  }
}, 90_000);

afterAll(() => closePoolHarness(h, roots));

async function claimAndPod(name: string, cls: string, size: string, withPod = true): Promise<void> {
  await h.app.store.create(claim('apps', name, size, { storageClassName: cls }));
  if (!withPod) return;
  await h.app.store.create({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `${name}-pod`, namespace: 'apps' },
    spec: { containers: [{ name: 'c', image: 'busybox' }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName: name } }] },
  });
}

async function boundNode(name: string): Promise<string> {
  const pv = await boundVolume(h.app, name);
  expect(pv.spec?.local?.path).toBe(`${POOL}/${pv.metadata.name}`);
  return pv.spec!.nodeAffinity!.required!.nodeSelectorTerms![0].matchExpressions![0].values![0];
}

describe.skipIf(skip)('placement by pool room on two nodes', () => {
  it('a claim only the larger pool can hold lands on its node, its subvolume made there', async () => {
    await claimAndPod('big', 'pooled', '400Mi');
    expect(await boundNode('big')).toBe('node-b');
    const subvolumes = await fs.readdir(path.join(roots, 'node-b', 'pools', 'fast'));
    expect(subvolumes.filter((n) => n.startsWith('pvc-'))).toHaveLength(1);
    expect((await fs.readdir(path.join(roots, 'node-a', 'pools', 'fast'))).filter((n) => n.startsWith('pvc-'))).toEqual([]);
  }, 60_000);

  it('a claim no pool can hold: FailedScheduling in upstream words, and no subvolume anywhere', async () => {
    await claimAndPod('huge', 'pooled', '2Gi');
    const event = await waitFor('FailedScheduling', async () => {
      const events = (await h.app.store.list('Event', { namespace: 'apps', fieldSelector: 'involvedObject.name=huge-pod' })).items;
      return events.find((e) => e.reason === 'FailedScheduling');
    }, 30_000);
    expect(event.message).toBe('0/2 nodes are available: 2 node(s) did not have enough free storage.');
    const huge = (await h.app.store.tryGet('PersistentVolumeClaim', 'apps', 'huge')) as PersistentVolumeClaim;
    expect(huge.status?.phase).toBe('Pending');
  }, 60_000);

  it('an Immediate claim goes to the node with the most room', async () => {
    // node-b has 512 MiB less 400 MiB promised; node-a has all of its 384 MiB that is free.
    await claimAndPod('now', 'pooled-now', '100Mi', false);
    expect(await boundNode('now')).toBe('node-a');
  }, 60_000);
});

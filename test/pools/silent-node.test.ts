// The pools of a node whose agent went silent must not keep offering room: once the node is
// not Ready its CSIStorageCapacity objects say 0 with the reason (and an Immediate claim goes
// elsewhere); once the node is deleted they are deleted; a report the agent still sends
// while its node is not Ready publishes no room either; Ready again, the report counts again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Controller } from '../../server/controllers/runtime/controller';
import { poolCapacitySpec } from '../../server/controllers/pool-capacity/pool-capacity';
import { poolCapacityName } from '../../server/domain/btrfs-pool';
import { largestVolume, roomiestNode, withCurrentPromises } from '../../server/domain/pool-capacity';
import { annPoolProblem } from '../../server/domain/well-known/annotations';
import type { Node } from '../../server/resources/node/schema';
import { logger } from '../../server/services/logger';
import { CAPACITY_NAMESPACE, NodePoolService } from '../../server/services/node-pools';
import { openTestStore, type TestStore } from '../db';
import { waitFor } from '../controllers/fixtures';
import { btrfsClass } from './fixture';

const POOL = '/srv/pool-silent';
let db: TestStore;
let controller: Controller;
let pools: NodePoolService;

async function setReady(name: string, status: 'True' | 'Unknown'): Promise<void> {
  const node = (await db.store.tryGet('Node', undefined, name));
  const next: Node = node ?? { apiVersion: 'v1', kind: 'Node', metadata: { name } };
  next.status = { ...(next.status ?? {}), conditions: [{ type: 'Ready', status, reason: status === 'True' ? 'KubeletReady' : 'NodeStatusUnknown', lastHeartbeatTime: new Date().toISOString() }] };
  if (!node) {
    const made = await db.store.create({ ...next, status: undefined });
    next.metadata = made.metadata;
  }
  await db.store.update(next, { subresource: 'status' });
}

const report = (node: string, freeGi: number) =>
  pools.report({ type: 'node', nodeName: node }, node, { pools: [{ className: 'pooled-silent', path: POOL, usable: true, totalBytes: String(8 * 2 ** 30), freeBytes: String(freeGi * 2 ** 30), filesystem: { blockSize: '4096', blocks: String(2 * 2 ** 20), availableBlocks: String(freeGi * 2 ** 18) }, usedBytes: {} }] });
const capacityOf = (node: string) => db.store.tryGet('CSIStorageCapacity', CAPACITY_NAMESPACE, poolCapacityName(node, 'pooled-silent'));
const published = async () => (await db.store.list('CSIStorageCapacity', { namespace: CAPACITY_NAMESPACE })).items;

beforeAll(async () => {
  db = await openTestStore();
  await db.store.create(btrfsClass('pooled-silent', POOL));
  pools = new NodePoolService(db.store);
  for (const n of ['n-live', 'n-silent', 'n-gone']) await setReady(n, 'True');
  await report('n-live', 2);
  await report('n-silent', 6); // the most room
  await report('n-gone', 7);
  controller = new Controller(poolCapacitySpec({ store: db.store, log: logger }, { resyncMs: 600_000 }), { store: db.store, log: logger });
  await controller.start();
});

afterAll(async () => {
  await controller?.stop();
  await db?.close();
});

describe('the pools of a silent node', () => {
  it('offer no room once the node is not Ready, with the reason, and an Immediate claim goes elsewhere', async () => {
    expect(roomiestNode(withCurrentPromises(await published(), []), 'pooled-silent', 1n << 20n)).toBe('n-gone');
    await db.store.delete('Node', undefined, 'n-gone');
    await waitFor('the gone node\'s capacity deleted', async () => !(await capacityOf('n-gone')), 15_000);
    expect(roomiestNode(withCurrentPromises(await published(), []), 'pooled-silent', 1n << 20n)).toBe('n-silent');

    await setReady('n-silent', 'Unknown');
    await waitFor('no room on n-silent', async () => largestVolume((await capacityOf('n-silent'))!) === 0n, 15_000);
    expect((await capacityOf('n-silent'))?.metadata.annotations?.[annPoolProblem]).toMatch(/node "n-silent" is not ready \(Ready=Unknown, NodeStatusUnknown\)/);
    expect(roomiestNode(withCurrentPromises(await published(), []), 'pooled-silent', 1n << 20n)).toBe('n-live');
  });

  it('a report its agent still sends while the node is not Ready publishes no room; once Ready, it counts again', async () => {
    await report('n-silent', 6);
    expect(largestVolume((await capacityOf('n-silent'))!)).toBe(0n);
    await setReady('n-silent', 'True');
    await report('n-silent', 6);
    expect(largestVolume((await capacityOf('n-silent'))!)).toBeGreaterThan(1n << 30n);
    expect((await capacityOf('n-silent'))?.metadata.annotations?.[annPoolProblem]).toBeUndefined();
  });
});

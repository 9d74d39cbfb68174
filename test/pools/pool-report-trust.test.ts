// A node cannot attract volumes with invented capacity: through the real HTTPS agent API, a
// pool report that claims more than its own filesystem figures or the node's bound allow is
// refused (422), the pools it named offer no room (so placement sends no claim there), and a
// Warning Event on the Node says why; an admin's pool.stowage.io/max-bytes raises the bound;
// every node's reported figures, the refusals among them, are readable by admins over time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentHttpClient, AgentHttpError, type AgentApi } from '../../server/agent/agent-client';
import type { PoolReport } from '../../server/contracts/agent';
import type { Principal } from '../../server/domain/authorization';
import { annPoolMaxBytes, annPoolProblem, annPoolTotal } from '../../server/domain/well-known/annotations';
import { poolCapacityName } from '../../server/domain/btrfs-pool';
import { roomiestNode } from '../../server/domain/pool-capacity';
import { reasons } from '../../server/domain/well-known/event-reasons';
import { CAPACITY_NAMESPACE } from '../../server/services/node-pools';
import { openLocalHarness, type LocalHarness } from '../local-volumes/harness';
import { btrfsClass } from './fixture';

let h: LocalHarness;
let asA: AgentApi;
let asB: AgentApi;
const POOL = '/srv/pool-trust';
const admin: Principal = { type: 'user', id: 'a', name: 'admin', role: 'admin', namespaces: [] };
const dev: Principal = { type: 'user', id: 'd', name: 'dev', role: 'developer', namespaces: ['apps'] };

/** A usable report whose figures are those of `blocks` 4 KiB blocks, `free` of them available, unless `over` says otherwise. */
const report = (blocks: bigint, free: bigint, over: Partial<PoolReport> = {}): PoolReport => ({
  className: 'pooled',
  path: POOL,
  usable: true,
  totalBytes: String(blocks * 4096n),
  freeBytes: String(free * 4096n),
  filesystem: { blockSize: '4096', blocks: String(blocks), availableBlocks: String(free) },
  usedBytes: {},
  ...over,
});

async function refusal(p: Promise<unknown>): Promise<{ status: number; message: string }> {
  try {
    await p;
  } catch (e) {
    if (e instanceof AgentHttpError) return { status: e.status, message: e.message };
    throw e;
  }
  return { status: 200, message: '' };
}

const capacityOf = (node: string) => h.app.store.tryGet('CSIStorageCapacity', CAPACITY_NAMESPACE, poolCapacityName(node, 'pooled'));

beforeAll(async () => {
  h = await openLocalHarness();
  await h.app.store.create(btrfsClass('pooled', POOL));
  asA = agentHttpClient({ server: h.api.url, token: await h.tokenFor('node-a'), caPem: h.api.caPem });
  asB = agentHttpClient({ server: h.api.url, token: await h.tokenFor('node-b'), caPem: h.api.caPem });
  // Ready nodes (a node that is not offers no room whatever it reports).
  await asA.heartbeat('node-a', {});
  await asB.heartbeat('node-b', {});
});
afterAll(async () => {
  await h?.close();
});

describe('pool reports are held to what the node may claim', () => {
  it('an honest report is accepted and published', async () => {
    expect(await asB.poolReport('node-b', [report(2n << 20n, 1n << 20n)])).toEqual({ accepted: 1 });
    expect((await capacityOf('node-b'))?.capacity).toBe('4Gi');
  });

  it('nearly 10^30 bytes (the most the API parses) is refused with 422 and the pool offers no room, whatever it offered before', async () => {
    expect(await asA.poolReport('node-a', [report(2n << 20n, 2n << 20n)])).toEqual({ accepted: 1 });
    expect((await capacityOf('node-a'))?.capacity).toBe('8Gi');
    const huge = 10n ** 30n - 1n;
    const r = await refusal(asA.poolReport('node-a', [report(huge / 4096n, huge / 4096n)]));
    expect(r.status).toBe(422);
    expect(r.message).toContain(`pool report of node "node-a" refused: pool ${POOL} of class pooled: totalBytes ${(huge / 4096n) * 4096n} exceeds the bound for any pool (${1n << 50n})`);
    const c = await capacityOf('node-a');
    expect(c?.capacity).toBe('0');
    expect(c?.metadata.annotations?.[annPoolProblem]).toMatch(/^report refused: totalBytes \d+ exceeds the bound for any pool/);
    // An Immediate claim goes to the roomiest node: the honest one.
    const published = (await h.app.store.list('CSIStorageCapacity', { namespace: CAPACITY_NAMESPACE })).items;
    expect(roomiestNode(published, 'pooled', 1n << 30n)).toBe('node-b');
  });

  it.each<[string, PoolReport, RegExp]>([
    ['a total larger than its own filesystem', report(1000n, 10n, { totalBytes: String(2000n * 4096n) }), /totalBytes 8192000 exceeds the size of its filesystem \(1000 blocks of 4096 bytes = 4096000\)/],
    ['more free than the filesystem has available', report(1000n, 10n, { freeBytes: String(500n * 4096n) }), /freeBytes 2048000 exceeds what its filesystem has available \(40960\)/],
    ['more blocks available than it has', report(1000n, 2000n), /filesystem reports 2000 blocks available of 1000/],
    ['a block size no filesystem has', report(1000n, 10n, { filesystem: { blockSize: '3', blocks: '1000', availableBlocks: '10' } }), /block size 3 is not a power of two/],
    ['a usable pool without its filesystem', { ...report(1000n, 10n), filesystem: undefined }, /must come with its filesystem/],
  ])('refused: %s', async (_n, body, why) => {
    const r = await refusal(asA.poolReport('node-a', [body]));
    expect(r.status).toBe(422);
    expect(r.message).toMatch(why);
  });

  it('a Warning Event on the Node says why', async () => {
    const events = (await h.app.store.list('Event', {})).items.filter((e) => (e as { involvedObject?: { name?: string } }).involvedObject?.name === 'node-a');
    expect(events.map((e) => (e as { reason?: string }).reason)).toContain(reasons.poolReportRefused);
  });

  it("an admin's pool.stowage.io/max-bytes on the Node bounds it instead", async () => {
    const big = 2n ** 51n; // 2 PiB: over the default bound
    expect((await refusal(asA.poolReport('node-a', [report(big / 4096n, 1n << 20n)]))).status).toBe(422);
    const node = await h.app.store.get('Node', undefined, 'node-a');
    await h.app.store.update({ ...node, metadata: { ...node.metadata, annotations: { [annPoolMaxBytes]: '4Pi' } } });
    expect(await asA.poolReport('node-a', [report(big / 4096n, 1n << 20n)])).toEqual({ accepted: 1 });
    expect((await capacityOf('node-a'))?.metadata.annotations?.[annPoolTotal]).toBe(String(big));
  });
});

describe("each node's reported capacity over time, for admins", () => {
  it('lists the reports newest first, the refused ones with their reason', async () => {
    const rows = await h.app.nodeAgent.pools.reportHistory(admin, 'node-a');
    expect(rows[0]).toMatchObject({ className: 'pooled', totalBytes: String(2n ** 51n) });
    expect(rows.some((r) => r.problem?.startsWith('report refused: totalBytes') && r.capacity === '0')).toBe(true);
    expect(rows.at(-1)).toMatchObject({ type: 'ADDED', totalBytes: String(8n << 30n), capacity: '8Gi' });
    expect((await h.app.nodeAgent.pools.reportHistory(admin, 'node-b')).map((r) => r.totalBytes)).toEqual([String(8n << 30n)]);
  });

  it('is refused to a developer', async () => {
    await expect(h.app.nodeAgent.pools.reportHistory(dev, 'node-a')).rejects.toMatchObject({ code: 'Forbidden' });
  });
});

// What a node token may do with pools, through the real HTTPS agent API: its own node's
// pool work and reports only. It can neither read nor report another node's pools or
// volumes, nor report a pool that is not a btrfs class's, nor settle a volume of another node.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentHttpClient, AgentHttpError, type AgentApi } from '../../server/agent/agent-client';
import { btrfsProvisioner } from '../../server/domain/well-known/provisioners';
import { AssetStore } from '../../server/store/provisioned-assets';
import { openLocalHarness, type LocalHarness } from '../local-volumes/harness';
import { btrfsClass } from './fixture';

let h: LocalHarness;
let asA: AgentApi;
const POOL = '/srv/pool-auth';
const pvOfB = `pvc-${randomUUID()}`;

beforeAll(async () => {
  h = await openLocalHarness();
  await h.app.store.create(btrfsClass('pooled', POOL, { volumeBindingMode: 'WaitForFirstConsumer' }));
  await new AssetStore(h.app.store).begin({ plugin: btrfsProvisioner, pvName: pvOfB, node: 'node-b', details: { pool: POOL, limitBytes: '1048576' } });
  await h.tokenFor('node-b');
  asA = agentHttpClient({ server: h.api.url, token: await h.tokenFor('node-a'), caPem: h.api.caPem });
});
afterAll(async () => {
  await h?.close();
});

async function status(p: Promise<unknown>): Promise<number> {
  try {
    await p;
    return 200;
  } catch (e) {
    if (e instanceof AgentHttpError) return e.status;
    throw e;
  }
}

const usable = { className: 'pooled', path: POOL, usable: true, totalBytes: '4096', freeBytes: '4096', filesystem: { blockSize: '4096', blocks: '1', availableBlocks: '1' } };

describe('a node token and pools', () => {
  it('reads its own pools and no volume of another node', async () => {
    const work = await asA.poolWork('node-a');
    expect(work.pools).toEqual([{ className: 'pooled', path: POOL }]);
    expect(work.volumes).toEqual([]);
  });

  it.each([
    ['read the pool work of node-b', () => asA.poolWork('node-b'), 403],
    ["report node-b's pools", () => asA.poolReport('node-b', [usable]), 403],
    ["settle node-b's volume as node-b", () => asA.poolVolumeDone('node-b', pvOfB, { state: 'present', limitBytes: '1048576' }), 403],
    ["settle node-b's volume as its own", () => asA.poolVolumeDone('node-a', pvOfB, { state: 'present', limitBytes: '1048576' }), 404],
    ['report a path that is no class pool', () => asA.poolReport('node-a', [{ ...usable, path: '/etc' }]), 400],
    ['report a pool under another class', () => asA.poolReport('node-a', [{ ...usable, className: 'other' }]), 400],
    ['settle something that is no volume name', () => asA.poolVolumeDone('node-a', 'not-a-volume', { state: 'absent' }), 400],
    ["wait for node-b's pool work", () => asA.poolWork('node-b', 5_000), 403],
    ["settle node-b's volumes in one request as node-b", () => asA.poolVolumesDone('node-b', [{ pvName: pvOfB, state: 'present', limitBytes: '1048576' }]), 403],
  ])('may not %s', async (_what, call, want) => {
    expect(await status(call())).toBe(want);
  });

  it("settling node-b's volume in a batch as its own is refused for that volume", async () => {
    const r = (await asA.poolVolumesDone('node-a', [{ pvName: pvOfB, state: 'present', limitBytes: '1048576' }])) as { results: unknown[] };
    expect(r.results).toEqual([{ error: expect.stringContaining('on node "node-a"') }]);
  });

  it("node-b's volume is untouched, and node-a's own report is accepted", async () => {
    const r = await new AssetStore(h.app.store).get(btrfsProvisioner, pvOfB);
    expect(r?.state).toBe('creating');
    expect(await asA.poolReport('node-a', [usable])).toEqual({ accepted: 1 });
  });
});

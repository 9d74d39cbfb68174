// The agent hears of pool work at once: its ask for work, made with a wait, is answered as
// soon as an intent record of its node wants something (and only of its node), not at its
// next poll; an ask with nothing coming ends after its wait with no volumes; an ask that
// names the list it has in hand (seen) is held while the list stays that one.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentHttpClient, type AgentApi } from '../../server/agent/agent-client';
import { btrfsProvisioner } from '../../server/domain/well-known/provisioners';
import { AssetStore } from '../../server/store/provisioned-assets';
import { openLocalHarness, type LocalHarness } from '../local-volumes/harness';
import { btrfsClass } from './fixture';

let h: LocalHarness;
let asA: AgentApi;
const POOL = '/srv/pool-wait';

beforeAll(async () => {
  h = await openLocalHarness();
  await h.app.store.create(btrfsClass('pooled-wait', POOL, { volumeBindingMode: 'WaitForFirstConsumer' }));
  asA = agentHttpClient({ server: h.api.url, token: await h.tokenFor('node-wa'), caPem: h.api.caPem });
});
afterAll(async () => {
  await h?.close();
});

const begin = (node: string) => {
  const pvName = `pvc-${randomUUID()}`;
  return new AssetStore(h.app.store).begin({ plugin: btrfsProvisioner, pvName, node, details: { pool: POOL, limitBytes: '1048576' } }).then(() => pvName);
};

describe('an agent waiting for pool work', () => {
  it('gets a new volume of its node as soon as its record is written, and not one of another node', async () => {
    const t0 = Date.now();
    const asked = asA.poolWork('node-wa', 20_000);
    await new Promise((r) => setTimeout(r, 300)); // the ask is waiting on the server by now
    await begin('node-wb'); // another node's: no answer for node-wa
    const mine = await begin('node-wa');
    const work = await asked;
    expect(work.volumes.map((v) => v.pvName)).toEqual([mine]);
    expect(Date.now() - t0).toBeLessThan(10_000);
  });

  it('holds a list the agent has in hand (seen) until it changes', async () => {
    const first = await asA.poolWork('node-wa');
    expect(first.volumes.length).toBeGreaterThan(0);
    expect(first.version).toMatch(/^[A-Za-z0-9_-]{22}$/);
    // Unchanged: held for the whole wait, then the same list.
    const t0 = Date.now();
    const same = await asA.poolWork('node-wa', 400, first.version);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(350);
    expect(same.version).toBe(first.version);
    // A new volume of the node ends the wait at once.
    const t1 = Date.now();
    const asked = asA.poolWork('node-wa', 20_000, first.version);
    const added = await begin('node-wa');
    const next = await asked;
    expect(next.volumes.map((v) => v.pvName)).toContain(added);
    expect(next.version).not.toBe(first.version);
    expect(Date.now() - t1).toBeLessThan(10_000);
  });

  it('with nothing to do, answers after its wait with no volumes', async () => {
    const store = new AssetStore(h.app.store);
    for (const r of await store.list({ plugin: btrfsProvisioner, node: 'node-wa' })) await store.remove(r);
    const t0 = Date.now();
    const work = await asA.poolWork('node-wa', 400);
    expect(work.volumes).toEqual([]);
    expect(work.pools).toEqual([{ className: 'pooled-wait', path: POOL }]);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(350);
  });
});

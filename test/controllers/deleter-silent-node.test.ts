// The deleter does not wait on a node that does not report: a released btrfs volume whose
// removal its silent node's agent never carries out is looked at again later, and the
// deleter's only worker deletes another volume at once meanwhile.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Controller } from '../../server/controllers/runtime/controller';
import { deleterSpec } from '../../server/controllers/deleter/deleter';
import { provisioningDeps } from '../../server/controllers/provisioning-start';
import { createPlugins } from '../../server/provisioners/registry';
import { createRealOs } from '../../server/provisioners/os';
import { btrfsProvisioner } from '../../server/domain/well-known/provisioners';
import { annDynamicallyProvisioned } from '../../server/domain/well-known/annotations';
import { AssetStore } from '../../server/store/provisioned-assets';
import { logger } from '../../server/services/logger';
import type { PersistentVolume } from '../../server/resources/persistent-volume/schema';
import { openApp, volume, waitFor } from './fixtures';

// The old deleter held its worker this long on each try for the silent node.
const AGENT_WAIT_MS = 3000;

let ctx: Awaited<ReturnType<typeof openApp>>;
let controller: Controller | undefined;
let assets: AssetStore;
let agentRunning = true;
let agent: Promise<void> | undefined;

async function releasedBtrfsVolume(name: string, node: string, state: 'created' | 'deleting'): Promise<void> {
  const pv: PersistentVolume = volume(name, '1Gi', { storageClassName: 'pooled-del', reclaimPolicy: 'Delete', claimRef: { namespace: 'default', name: `${name}-claim`, uid: `uid-${name}` } });
  pv.metadata.annotations = { [annDynamicallyProvisioned]: btrfsProvisioner };
  // The record first: the deleter acts as soon as the volume is Released.
  const { record } = await assets.begin({ plugin: btrfsProvisioner, pvName: name, node, details: { pool: '/srv/pool-del', path: `/srv/pool-del/${name}` } });
  const created = await assets.markCreated(record);
  if (state === 'deleting') await assets.markDeleting(created);
  const made = await ctx.app.store.create(pv);
  made.status = { phase: 'Released' };
  await ctx.app.store.update(made, { subresource: 'status' });
}

beforeAll(async () => {
  ctx = await openApp();
  assets = new AssetStore(ctx.app.store);
  // The live node's agent, as its reports reach the server: a removal asked for is done.
  agent = (async () => {
    while (agentRunning) {
      for (const r of await assets.list({ node: 'n-del-live', states: ['deleting'] })) if (r.details.removed !== true) await assets.markRemoved(r);
      await new Promise((res) => setTimeout(res, 25));
    }
  })();
  await releasedBtrfsVolume('pv-del-stale', 'n-del-silent', 'deleting');
  const all = createPlugins({ os: createRealOs(''), assets, nodeName: '', btrfs: { agentWaitMs: AGENT_WAIT_MS } });
  const d = provisioningDeps({ app: ctx.app, nodeName: '', plugins: new Map([[btrfsProvisioner, all.get(btrfsProvisioner)!]]) });
  controller = new Controller(deleterSpec(d, { concurrency: 1, resyncMs: 600_000 }), { store: ctx.app.store, log: logger, shutdownTimeoutMs: AGENT_WAIT_MS + 1000 });
  await controller.start();
});

afterAll(async () => {
  agentRunning = false;
  await agent;
  await controller?.stop();
  await ctx?.app.close();
});

it('deletes another volume at once while one waits for its silent node', async () => {
  // The stale one has been taken by the only worker.
  await waitFor('the stale volume looked at', async () => !controller!.queue.isPending('pv/pv-del-stale') || undefined, 2000);
  const t0 = Date.now();
  await releasedBtrfsVolume('pv-del-live', 'n-del-live', 'created');
  await waitFor('the live volume deleted', async () => !(await ctx.app.store.tryGet('PersistentVolume', undefined, 'pv-del-live')), 2000);
  expect(Date.now() - t0).toBeLessThan(2000);
  expect(await assets.get(btrfsProvisioner, 'pv-del-live')).toBeUndefined();
  // The stale one waits, its record still asking its agent.
  expect(await ctx.app.store.tryGet('PersistentVolume', undefined, 'pv-del-stale')).toBeDefined();
  expect((await assets.get(btrfsProvisioner, 'pv-del-stale'))?.state).toBe('deleting');
});

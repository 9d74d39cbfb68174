// Upstream discovery checks the path, not only the name: an entry whose host path a PV of this
// provisioner already has under another name gets no second PV. A class renamed in the
// storageClassMap (same hostDir) reports its entries under new PV names while the volumes of
// the old name are still held by their claims. Real Postgres, a real agent reporting a real
// directory; the reconciles are called directly.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcileDisk } from '../../server/controllers/local-volume/manager';
import type { ReconcileContext } from '../../server/controllers/runtime/controller';
import { localPvName } from '../../server/domain/local-pv-name';
import { logger } from '../../server/services/logger';
import { waitFor } from '../controllers/fixtures';
import { CLASS, localPvs, openLocalHarness, type LocalHarness } from './harness';
import { EventRecorders } from '../../server/controllers/runtime/recorders';

let h: LocalHarness;
const NODE = 'node-path';
const TWIN = 'local-twin';
const ctx: ReconcileContext = { controller: 'test', signal: new AbortController().signal, log: logger, enqueue: () => {}, isQueued: () => false, wrote: () => {} };
const deps = () => ({ store: h.app.store, agents: h.app.nodeAgent, log: logger, recorders: new EventRecorders(h.app.store, logger) });

beforeAll(async () => {
  h = await openLocalHarness();
  await h.app.store.create({
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: TWIN },
    provisioner: 'kubernetes.io/no-provisioner',
    reclaimPolicy: 'Delete',
  });
  await h.startAgent(NODE);
});
afterAll(async () => {
  await h?.close();
});

async function reported(cls: string, entry: string): Promise<string> {
  const name = localPvName(NODE, cls, entry);
  await waitFor(`${cls}/${entry} reported`, async () => (await h.app.nodeAgent.disks.byPvName(name))?.present, 20_000);
  return name;
}

const withPath = async (hostPath: string) => (await localPvs(h.app)).filter((pv) => pv.spec?.local?.path === hostPath).map((pv) => pv.metadata.name);

describe('a path already used by a PV of this provisioner under another name', () => {
  it('a class renamed over the same hostDir: the entry held by the old name gets no second PV', async () => {
    await fs.mkdir(path.join(h.disks, 'shared'));
    const hostPath = path.join(h.disks, 'shared');
    const old = await reported(CLASS, 'shared');
    await reconcileDisk(deps(), ctx, old);
    // Held by a claim, so the manager keeps it when its class stops reporting it.
    const pv = await h.app.store.get('PersistentVolume', undefined, old);
    pv.spec!.claimRef = { kind: 'PersistentVolumeClaim', namespace: 'apps', name: 'holder', uid: 'c-holder' };
    await h.app.store.update(pv);
    expect(await withPath(hostPath)).toEqual([old]);

    await h.setStorageClassMap(`${TWIN}:\n  hostDir: ${JSON.stringify(h.disks)}\n  requireMountPoints: false\n`);
    const renamed = await reported(TWIN, 'shared');
    expect(renamed).not.toBe(old);
    await reconcileDisk(deps(), ctx, renamed);
    await reconcileDisk(deps(), ctx, old);
    expect(await withPath(hostPath)).toEqual([old]);
    expect(await h.app.store.tryGet('PersistentVolume', undefined, renamed)).toBeUndefined();
  });
});

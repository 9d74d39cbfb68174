// The local static provisioner's warnings that upstream records on a PV and Stowage used to
// only log: a Released volume with reclaim policy Recycle (upstream deleter,
// "VolumeUnsupportedReclaimPolicy"), and a Block PV whose entry is now a directory (upstream
// discovery, "VolumeFailedDelete" "incorrect Volume Mode"). Real Postgres, a real agent
// reporting real directories; the manager's reconcile is called directly, so the binder (which
// moves a Recycle volume on to Failed) does not race it.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcileDisk } from '../../server/controllers/local-volume/manager';
import type { ReconcileContext } from '../../server/controllers/runtime/controller';
import { localPvName } from '../../server/domain/local-pv-name';
import type { PersistentVolume } from '../../server/resources/persistent-volume/schema';
import type { KubeObject } from '../../server/resources/types';
import { logger } from '../../server/services/logger';
import { eventsAbout, waitFor } from '../controllers/fixtures';
import { CLASS, openLocalHarness, type LocalHarness } from './harness';
import { EventRecorders } from '../../server/controllers/runtime/recorders';

let h: LocalHarness;
const NODE = 'node-pe';
const ctx: ReconcileContext = { controller: 'test', signal: new AbortController().signal, log: logger, enqueue: () => {}, isQueued: () => false, wrote: () => {} };

beforeAll(async () => {
  h = await openLocalHarness();
  await fs.mkdir(path.join(h.disks, 'recycled'));
  await fs.mkdir(path.join(h.disks, 'flipped'));
  await fs.mkdir(path.join(h.disks, 'unmapped'));
  await fs.mkdir(path.join(h.disks, 'nameonly'));
  await h.startAgent(NODE);
});
afterAll(async () => {
  await h?.close();
});

const deps = () => ({ store: h.app.store, agents: h.app.nodeAgent, log: logger, recorders: new EventRecorders(h.app.store, logger) });

async function reported(entry: string) {
  const name = localPvName(NODE, CLASS, entry);
  await waitFor(`${entry} reported`, async () => (await h.app.nodeAgent.disks.byPvName(name))?.present, 20_000);
  return name;
}

/** The manager's passes over a reported disk until its PV exists: on a loaded machine the first may come before the node's first heartbeat made it Ready, and then offers nothing. */
async function offered(name: string): Promise<void> {
  await waitFor(`${name} offered`, async () => {
    await reconcileDisk(deps(), ctx, name);
    return (await h.app.store.tryGet('PersistentVolume', undefined, name)) ? true : undefined;
  }, 20_000);
}

async function eventLines(pv: KubeObject, component?: string): Promise<string[]> {
  const node = await h.app.store.get('Node', undefined, NODE);
  return (await eventsAbout(h.app, pv)).map((e) => {
    expect(e.source?.component).toBe(component ?? `local-volume-provisioner-${NODE}-${node.metadata.uid}`);
    return `${e.type} ${e.reason} ${e.message}`;
  });
}

/** The PV as its claim (long gone) left it: Released, with the given reclaim policy. */
async function release(name: string, policy: string): Promise<PersistentVolume> {
  const pv = await h.app.store.get('PersistentVolume', undefined, name);
  pv.spec!.persistentVolumeReclaimPolicy = policy;
  pv.spec!.claimRef = { kind: 'PersistentVolumeClaim', namespace: 'apps', name: 'gone', uid: 'c-gone' };
  const updated = await h.app.store.update(pv);
  updated.status = { phase: 'Released' };
  const released = (await h.app.store.update(updated, { subresource: 'status' })) as PersistentVolume;
  expect(released.status?.phase).toBe('Released');
  return released;
}

async function setConfigData(data: Record<string, string>): Promise<void> {
  const cm = await h.app.store.get('ConfigMap', 'kube-system', 'local-volume-config');
  cm.data = data;
  await h.app.store.update(cm);
}

describe('local static provisioner warnings on the PV', () => {
  it('a Released volume with reclaim policy Recycle: VolumeUnsupportedReclaimPolicy, and nothing is wiped', async () => {
    const name = await reported('recycled');
    await offered(name);
    const released = await release(name, 'Recycle');

    await reconcileDisk(deps(), ctx, name);
    expect(await eventLines(released)).toEqual(['Warning VolumeUnsupportedReclaimPolicy Volume has unsupported PersistentVolumeReclaimPolicy: Recycle']);
    expect(await h.app.nodeAgent.jobs.latestForPvUid(released.metadata.uid!)).toBeUndefined();
    expect((await h.app.store.get('PersistentVolume', undefined, name)).metadata.deletionTimestamp).toBeUndefined();
  });

  it('a Block PV whose entry is a directory: VolumeFailedDelete "incorrect Volume Mode", the PV is kept', async () => {
    const name = await reported('flipped');
    const hostPath = path.join(h.disks, 'flipped');
    const node = await h.app.store.get('Node', undefined, NODE);
    const pv = await h.app.store.create({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: {
        name,
        labels: { 'local.stowage.io/node': NODE },
        annotations: { 'pv.kubernetes.io/provisioned-by': `local-volume-provisioner-${NODE}-${node.metadata.uid}`, 'local.stowage.io/node': NODE },
      },
      spec: {
        capacity: { storage: '1Gi' },
        accessModes: ['ReadWriteOnce'],
        volumeMode: 'Block',
        persistentVolumeReclaimPolicy: 'Delete',
        storageClassName: CLASS,
        local: { path: hostPath },
        nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [NODE] }] }] } },
      },
    });
    await reconcileDisk(deps(), ctx, name);
    // The agent sees the class at its hostDir (mountDir defaults to it).
    expect(await eventLines(pv)).toEqual([`Warning VolumeFailedDelete incorrect Volume Mode: PV "${name}" requires block mode but path "${hostPath}" was in fs mode`]);
    expect((await h.app.store.get('PersistentVolume', undefined, name)).metadata.uid).toBe(pv.metadata.uid);
  });

  it('a Released Delete volume of a class no longer in the storageClassMap is not cleaned: a Warning each pass, as upstream', async () => {
    const name = await reported('unmapped');
    await offered(name);
    const released = await release(name, 'Delete');
    const original = (await h.app.store.get('ConfigMap', 'kube-system', 'local-volume-config')).data as Record<string, string>;
    await setConfigData({ storageClassMap: `other:\n  hostDir: ${JSON.stringify(path.join(h.dir, 'elsewhere'))}\n` });
    try {
      expect(await reconcileDisk(deps(), ctx, name)).toEqual({ requeueAfter: expect.any(Number) });
      expect(await eventLines(released)).toEqual([`Warning VolumeFailedDelete Error cleaning PV "${name}": Unknown storage class name ${CLASS}`]);
      expect(await h.app.nodeAgent.jobs.latestForPvUid(released.metadata.uid!)).toBeUndefined();
    } finally {
      await setConfigData(original);
    }
    // The class is back: the cleanup is recorded.
    await reconcileDisk(deps(), ctx, name);
    expect((await h.app.nodeAgent.jobs.latestForPvUid(released.metadata.uid!))?.pvName).toBe(name);
  });

  it('useNodeNameOnly: the provisioner is local-volume-provisioner-<node>, without the node uid (provisioned-by and the events)', async () => {
    const original = (await h.app.store.get('ConfigMap', 'kube-system', 'local-volume-config')).data as Record<string, string>;
    await setConfigData({ ...original, useNodeNameOnly: 'true' });
    try {
      const name = await reported('nameonly');
      await offered(name);
      const pv = await h.app.store.get('PersistentVolume', undefined, name);
      expect(pv.metadata.annotations?.['pv.kubernetes.io/provisioned-by']).toBe(`local-volume-provisioner-${NODE}`);
      const released = await release(name, 'Recycle');
      await reconcileDisk(deps(), ctx, name);
      expect(await eventLines(released, `local-volume-provisioner-${NODE}`)).toEqual(['Warning VolumeUnsupportedReclaimPolicy Volume has unsupported PersistentVolumeReclaimPolicy: Recycle']);
    } finally {
      await setConfigData(original);
    }
  });
});

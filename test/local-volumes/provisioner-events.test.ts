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

let h: LocalHarness;
const NODE = 'node-pe';
const ctx: ReconcileContext = { controller: 'test', signal: new AbortController().signal, log: logger, enqueue: () => {}, isQueued: () => false, wrote: () => {} };

beforeAll(async () => {
  h = await openLocalHarness();
  await fs.mkdir(path.join(h.disks, 'recycled'));
  await fs.mkdir(path.join(h.disks, 'flipped'));
  await h.startAgent(NODE);
});
afterAll(async () => {
  await h?.close();
});

const deps = () => ({ store: h.app.store, agents: h.app.nodeAgent, log: logger });

async function reported(entry: string) {
  const name = localPvName(NODE, CLASS, entry);
  await waitFor(`${entry} reported`, async () => (await h.app.nodeAgent.disks.byPvName(name))?.present, 20_000);
  return name;
}

async function eventLines(pv: KubeObject): Promise<string[]> {
  const node = await h.app.store.get('Node', undefined, NODE);
  return (await eventsAbout(h.app, pv)).map((e) => {
    expect(e.source?.component).toBe(`local-volume-provisioner-${NODE}-${node.metadata.uid}`);
    return `${e.type} ${e.reason} ${e.message}`;
  });
}

describe('local static provisioner warnings on the PV', () => {
  it('a Released volume with reclaim policy Recycle: VolumeUnsupportedReclaimPolicy, and nothing is wiped', async () => {
    const name = await reported('recycled');
    await reconcileDisk(deps(), ctx, name);
    const pv = await h.app.store.get('PersistentVolume', undefined, name);
    pv.spec!.persistentVolumeReclaimPolicy = 'Recycle';
    pv.spec!.claimRef = { kind: 'PersistentVolumeClaim', namespace: 'apps', name: 'gone', uid: 'c-gone' };
    const updated = await h.app.store.update(pv);
    updated.status = { phase: 'Released' };
    const released = (await h.app.store.update(updated, { subresource: 'status' })) as PersistentVolume;
    expect(released.status?.phase).toBe('Released');

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
});

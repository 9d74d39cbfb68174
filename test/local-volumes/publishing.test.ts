// Pods using local volumes, end to end on real directories and bind mounts (seed 003's
// E2E cases): placement puts the pod on the volume's node, the node agent publishes the
// volume under the pod's directory and reports the pod Running; data written through one
// pod is read through the next (serial) and through a second pod at the same time (two
// pods on one node share a ReadWriteOnce volume); deleting a pod waits until its volume is
// unpublished; a volume whose path is gone gives FailedMount and the pod stays Pending.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { localPvName } from '../../server/domain/local-pv-name';
import type { PersistentVolumeClaim } from '../../server/resources/persistent-volume-claim/schema';
import type { Pod } from '../../server/resources/pod/schema';
import type { KubeObject } from '../../server/resources/types';
import { waitFor } from '../controllers/fixtures';
import { CLASS, openLocalHarness, type LocalHarness } from './harness';

const NODE = 'pub-node';
let h: LocalHarness;
let podsDir: string;

beforeAll(async () => {
  h = await openLocalHarness();
  podsDir = path.join(h.dir, 'pods');
  await fs.mkdir(podsDir);
  await h.startControllers();
  await h.startAgent(NODE, { podsDir });
  await fs.mkdir(path.join(h.disks, 'vol1'));
}, 60_000);

afterAll(async () => {
  await h?.close();
});

const getPod = (name: string) => h.app.store.tryGet('Pod', 'apps', name);

function claim(name: string, o: { volumeName?: string } = {}): PersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: 'apps' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Ki' } }, storageClassName: CLASS, ...(o.volumeName ? { volumeName: o.volumeName } : {}) },
  };
}

function pod(name: string, claimName: string): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'apps' },
    spec: {
      containers: [{ name: 'app', image: 'busybox', volumeMounts: [{ name: 'data', mountPath: '/data' }] }],
      volumes: [{ name: 'data', persistentVolumeClaim: { claimName } }],
    },
  };
}

async function running(name: string): Promise<Pod> {
  return waitFor(`pod ${name} Running`, async () => {
    const p = await getPod(name);
    return p?.status?.phase === 'Running' ? p : undefined;
  }, 30_000);
}

const volumeDir = (p: KubeObject) => path.join(podsDir, p.metadata.uid!, 'volumes', 'data');

async function deletePod(name: string): Promise<void> {
  const p = await getPod(name);
  const r = await h.app.store.delete('Pod', 'apps', name);
  // A Running pod waits for its node's agent: Terminating first, gone once unpublished.
  expect(r.deleted).toBe(false);
  expect(r.object.metadata.deletionTimestamp).toBeTruthy();
  await waitFor(`pod ${name} gone`, async () => !(await getPod(name)), 30_000);
  await expect(fs.lstat(path.join(podsDir, p!.metadata.uid!))).rejects.toThrow(/ENOENT/);
}

describe('publishing a local volume', () => {
  test('a pod is placed on the node, its volume published, and it runs', async () => {
    await waitFor('the local PV Available', async () => (await h.app.store.tryGet('PersistentVolume', undefined, localPvName(NODE, CLASS, 'vol1')))?.status?.phase === 'Available', 30_000);
    await h.app.store.create(claim('data'));
    await h.app.store.create(pod('writer', 'data'));
    const p = await running('writer');
    expect(p.spec!.nodeName).toBe(NODE);
    const conds = Object.fromEntries(p.status!.conditions!.map((c) => [c.type, c.status]));
    expect(conds).toMatchObject({ Ready: 'True', ContainersReady: 'True', PodScheduled: 'True', Initialized: 'True' });
    expect(p.status!.containerStatuses![0]).toMatchObject({ name: 'app', ready: true, state: { running: {} } });
    await fs.writeFile(path.join(volumeDir(p), 'hello.txt'), 'written by writer');
    expect(await fs.readFile(path.join(h.disks, 'vol1', 'hello.txt'), 'utf8')).toBe('written by writer');
  });

  test('a second pod on the node shares the ReadWriteOnce volume at the same time', async () => {
    await h.app.store.create(pod('reader-1', 'data'));
    const p = await running('reader-1');
    expect(p.spec!.nodeName).toBe(NODE);
    expect(await fs.readFile(path.join(volumeDir(p), 'hello.txt'), 'utf8')).toBe('written by writer');
  });

  test('deleting pods waits for their volumes to be unpublished; the data survives for the next pod', async () => {
    await deletePod('writer');
    await deletePod('reader-1');
    expect(await fs.readFile(path.join(h.disks, 'vol1', 'hello.txt'), 'utf8')).toBe('written by writer');
    await h.app.store.create(pod('reader-2', 'data'));
    const p = await running('reader-2');
    expect(await fs.readFile(path.join(volumeDir(p), 'hello.txt'), 'utf8')).toBe('written by writer');
    await deletePod('reader-2');
  });

  test('a volume whose local path does not exist: FailedMount, the pod stays Pending', async () => {
    const missing = path.join(h.dir, 'gone');
    await h.app.store.create({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'pv-gone' },
      spec: {
        capacity: { storage: '1Ki' },
        accessModes: ['ReadWriteOnce'],
        storageClassName: 'no-such-class',
        local: { path: missing },
        nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [NODE] }] }] } },
      },
    });
    await h.app.store.create({ ...claim('lost', { volumeName: 'pv-gone' }), spec: { ...claim('lost').spec, storageClassName: 'no-such-class', volumeName: 'pv-gone' } });
    await h.app.store.create(pod('broken', 'lost'));
    const event = await waitFor('a FailedMount event', async () => {
      const events = await h.app.store.list('Event', { namespace: 'apps' });
      // The agent may first see the claim before its binding completes ("is not bound"): the
      // event about the missing path is the one this test is about.
      return (events.items).find((e) => e.involvedObject?.name === 'broken' && e.reason === 'FailedMount' && e.message?.includes('NewMounter'));
    }, 30_000);
    expect(event.type).toBe('Warning');
    expect(event.message).toBe(`MountVolume.NewMounter initialization failed for volume "pv-gone" : path "${missing}" does not exist`);
    const p = await getPod('broken');
    expect(p?.spec!.nodeName).toBe(NODE);
    expect(p?.status!.phase).toBe('Pending');
    expect(p?.status!.conditions!.find((c) => c.type === 'Ready')).toMatchObject({ status: 'False', reason: 'ContainersNotReady' });
    // Not Running: deleted at once, nothing to wait for.
    expect((await h.app.store.delete('Pod', 'apps', 'broken')).deleted).toBe(true);
  });

  test('a force delete (grace period 0) of a Running pod does not wait; the agent clears its directory', async () => {
    await h.app.store.create(pod('forced', 'data'));
    const p = await running('forced');
    expect((await h.app.store.delete('Pod', 'apps', 'forced', { gracePeriodSeconds: 0 })).deleted).toBe(true);
    await waitFor('the leftover directory unpublished', async () => {
      try {
        await fs.lstat(path.join(podsDir, p.metadata.uid!));
        return false;
      } catch {
        return true;
      }
    }, 30_000);
    expect(await fs.readFile(path.join(h.disks, 'vol1', 'hello.txt'), 'utf8')).toBe('written by writer');
  });
});

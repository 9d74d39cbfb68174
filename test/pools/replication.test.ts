// Replicated pool volumes through real agents, end to end: two nodes, each with its own
// btrfs pool on a loop device (both at the class's pool path, each under its agent's root),
// each agent publishing pods into its own pods directory and taking replication transfers
// on its own listener; the controllers (placement, provisioning, replication, node
// lifecycle with a 4 s grace). A pod on node-a writes; the replica on node-b catches up;
// node-a's agent stops; the pod is started again and runs on node-b with the data of the
// last completed transfer (what was written after it is lost, as the window said); writes
// on node-b survive node-a's return, which fences node-a's old copy (never published
// again) and resyncs node-a as a replica. A cut link between live nodes promotes nothing;
// a drain moves the active copy after a final transfer with nothing lost.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentLoop } from '../../server/agent/agent-loop';
import { dataMover } from '../../server/agent/data-mover';
import { poolCapacityName } from '../../server/domain/btrfs-pool';
import { readReplication } from '../../server/domain/replication';
import { annPoolTotal, annReplicationEndpoint } from '../../server/domain/well-known/annotations';
import { VolumeReplicaStore } from '../../server/store/volume-replicas';
import { waitFor } from '../controllers/fixtures';
import { boundVolume, type LocalHarness } from '../local-volumes/harness';
import { btrfsClass, checksums, closePoolHarness, makePool, openPoolHarness, podUsing, skipWithoutPools } from './fixture';

const skip = skipWithoutPools('replicated btrfs pool volume tests');

const POOL = '/pools/fast';
const NS = 'apps';
const MiB = 1 << 20;
let h: LocalHarness;
let roots: string;
const agents = new Map<string, AgentLoop>();
const poolOf = (node: string) => path.join(roots, node, POOL);
const podsOf = (node: string) => path.join(roots, node, 'pods');

/**
 * The link to node-b's replication listener: a TCP relay the test can cut (connections
 * refused and open ones dropped) while both nodes keep reporting to the server.
 */
const link = { cut: false, target: 0, open: new Set<net.Socket>() };
const relay = net.createServer((socket) => {
  if (link.cut || !link.target) return socket.destroy();
  const up = net.connect(link.target, '127.0.0.1');
  link.open.add(socket).add(up);
  const drop = () => (socket.destroy(), up.destroy(), link.open.delete(socket), link.open.delete(up));
  socket.on('error', drop).on('close', drop);
  up.on('error', drop).on('close', drop);
  socket.pipe(up).pipe(socket);
});

async function startAgent(node: string): Promise<void> {
  const advertise = node === 'node-b' ? { advertise: `127.0.0.1:${(relay.address() as net.AddressInfo).port}` } : {};
  const loop = await h.startAgent(node, { poolRoot: path.join(roots, node), podsDir: podsOf(node), dataMover, replication: { listen: '127.0.0.1:0', ...advertise } });
  agents.set(node, loop);
  if (node === 'node-b') link.target = Number(/:(\d+)$/.exec(loop.replicationListenAddress()!)![1]);
}

beforeAll(async () => {
  if (skip) return;
  ({ h, dir: roots } = await openPoolHarness('stowage-replication-'));
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  for (const node of ['node-a', 'node-b']) {
    await fs.mkdir(path.join(roots, node, 'pools'), { recursive: true });
    await fs.mkdir(podsOf(node), { recursive: true });
    await makePool(path.join(roots, node, 'pools'), 'fast', 384);
  }
  await h.app.store.create(btrfsClass('replicated', POOL, { volumeBindingMode: 'WaitForFirstConsumer', parameters: { pool: POOL, replicas: '2', replicationInterval: '5s' } }));
  await h.startControllers();
  for (const node of ['node-a', 'node-b']) await startAgent(node);
  for (const node of ['node-a', 'node-b']) {
    await waitFor(`${node} pool reported`, async () => (await h.app.store.tryGet('CSIStorageCapacity', 'kube-system', poolCapacityName(node, 'replicated')))?.metadata.annotations?.[annPoolTotal], 20_000);
    await waitFor(`${node} replication endpoint`, async () => (await h.app.store.tryGet('Node', undefined, node))?.metadata.annotations?.[annReplicationEndpoint], 20_000);
  }
}, 90_000);

afterAll(async () => {
  relay.close();
  for (const sock of link.open) sock.destroy();
  await closePoolHarness(h, roots);
});

const pvOf = async (name: string) => (await h.app.store.get('PersistentVolume', undefined, name));
const podOf = async (name: string) => (await h.app.store.tryGet('Pod', NS, name));
const running = (name: string) => async () => {
  const p = await podOf(name);
  return p?.status?.phase === 'Running' ? p : undefined;
};
const pvEvents = async (name: string) =>
  (await h.app.store.list('Event', { namespace: 'default' })).items.filter((e) => (e as { involvedObject?: { name?: string } }).involvedObject?.name === name).map((e) => `${(e as { reason?: string }).reason}: ${(e as { message?: string }).message}`);

/** Waits until the replica on `node` holds a snapshot taken at or after `since` (ms). */
async function replicaCaughtUp(pvName: string, node: string, since: number, timeoutMs = 60_000) {
  return waitFor(`replica on ${node} in sync after ${new Date(since).toISOString()}`, async () => {
    const r = readReplication((await pvOf(pvName)).metadata.annotations)?.replicas.find((x) => x.node === node);
    // lastSyncTime has whole seconds: the snapshot was asked for at or after it.
    return r?.state === 'InSync' && r.lastSyncTime && Date.parse(r.lastSyncTime) >= Math.floor(since / 1000) * 1000 ? r : undefined;
  }, timeoutMs).catch(async (e) => {
    throw new Error(`${(e as Error).message}: ${JSON.stringify((await pvOf(pvName)).metadata.annotations)} ${JSON.stringify(await pvEvents(pvName))}`);
  });
}


describe.skipIf(skip)('replicated btrfs pool volumes through real agents', () => {
  it('replicates, fails over to the replica with the last transfer’s data, and fences the old copy when its node returns', async () => {
    await h.app.store.create({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'data', namespace: NS },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '64Mi' } }, storageClassName: 'replicated' },
    });
    await h.app.store.create(podUsing('app', NS, 'data', 'node-a'));
    const pv = await boundVolume(h.app, 'data', 30_000, NS);
    const pvName = pv.metadata.name!;
    await waitFor('pod app Running', running('app'), 30_000).catch(async (e) => {
      throw new Error(`${(e as Error).message}: ${JSON.stringify((await podOf('app'))?.status)} ${JSON.stringify((await pvOf(pvName)).metadata.annotations)}`);
    });
    expect((await podOf('app'))?.spec?.nodeName).toBe('node-a');

    // Written before a transfer: kept by the failover.
    const onA = path.join(poolOf('node-a'), pvName);
    await fs.mkdir(path.join(onA, 'sub'));
    await fs.writeFile(path.join(onA, 'sub', 'random.bin'), randomBytes(4 * MiB));
    await fs.writeFile(path.join(onA, 'hello.txt'), 'hello from node-a');
    const before = await checksums(onA);
    const wroteAt = Date.now();
    const synced = await replicaCaughtUp(pvName, 'node-b', wroteAt);
    const view = readReplication((await pvOf(pvName)).metadata.annotations)!;
    expect(view).toMatchObject({ activeNode: 'node-a', epoch: 0 });
    expect((await pvOf(pvName)).spec?.nodeAffinity?.required?.nodeSelectorTerms?.[0]?.matchExpressions?.[0]?.values).toEqual(['node-a', 'node-b']);
    // The replica on node-b is read-only snapshots only, never a writable copy.
    await expect(fs.stat(path.join(poolOf('node-b'), pvName))).rejects.toMatchObject({ code: 'ENOENT' });
    const snaps = await fs.readdir(path.join(poolOf('node-b'), '.stowage-replicas', pvName));
    expect(snaps.length).toBeGreaterThan(0);

    // Node-a dies: its agent stops (no more heartbeats, no more transfers); a last write there is lost.
    await agents.get('node-a')!.stop();
    await fs.writeFile(path.join(onA, 'after-last-transfer.txt'), 'lost with node-a');
    const stoppedAt = Date.now();
    await waitFor('node-a NotReady', async () => {
      const n = await h.app.store.tryGet('Node', undefined, 'node-a');
      return n?.status?.conditions?.some((c) => c.type === 'Ready' && c.status !== 'True');
    }, 30_000);
    const notReadyAt = Date.now();

    // The pod is started again: it lands on node-b, whose replica becomes the active copy.
    await h.app.store.delete('Pod', NS, 'app', { gracePeriodSeconds: 0 });
    await waitFor('pod app gone', async () => !(await podOf('app')), 30_000);
    await h.app.store.create(podUsing('app2', NS, 'data'));
    const p2 = await waitFor('pod app2 Running', running('app2'), 60_000).catch(async (e) => {
      throw new Error(`${(e as Error).message}: ${JSON.stringify((await podOf('app2'))?.status)} ${JSON.stringify(await pvEvents(pvName))}`);
    });
    const runningAt = Date.now();
    expect(p2.spec?.nodeName).toBe('node-b');
    const after = readReplication((await pvOf(pvName)).metadata.annotations)!;
    expect(after).toMatchObject({ activeNode: 'node-b', epoch: 1 });
    expect((await pvEvents(pvName)).some((e) => e.startsWith('FailedOver:'))).toBe(true);
    const onB = path.join(poolOf('node-b'), pvName);
    // The data of the last completed transfer, nothing written after it.
    expect(await checksums(onB)).toEqual(before);
    // The data-loss window the PV showed before the failover covered what was lost.
    expect(Date.parse(synced.lastSyncTime!)).toBeLessThanOrEqual(stoppedAt);
    console.log(`failover: node NotReady -> pod Running on the replica in ${((runningAt - notReadyAt) / 1000).toFixed(1)} s`);

    // Writes after the failover survive node-a's return.
    await fs.writeFile(path.join(onB, 'after-failover.txt'), 'written on node-b');
    const onBNow = await checksums(onB);
    const returnedAt = Date.now();
    await startAgent('node-a');
    // Node-a's stale copy is fenced (removed) and node-a becomes a replica of node-b.
    await waitFor('node-a fenced', async () => {
      try {
        await fs.stat(onA);
        return false;
      } catch (e) {
        return (e as NodeJS.ErrnoException).code === 'ENOENT';
      }
    }, 60_000);
    await replicaCaughtUp(pvName, 'node-a', returnedAt, 90_000);
    expect((await pvEvents(pvName)).some((e) => e.startsWith('CopyFenced:'))).toBe(true);
    // Resynced incrementally, from the snapshot node-a took and node-b was promoted from: not the 4 MiB again.
    const resync = (await new VolumeReplicaStore(h.app.store).list(pvName)).find((r) => r.node === 'node-a');
    expect(resync?.lastBytes).toBeDefined();
    expect(Number(resync!.lastBytes)).toBeLessThan(MiB);
    const snapsOnA = (await fs.readdir(path.join(poolOf('node-a'), '.stowage-replicas', pvName))).sort((x, y) => Number(x.slice(5)) - Number(y.slice(5)));
    expect(await checksums(path.join(poolOf('node-a'), '.stowage-replicas', pvName, snapsOnA.at(-1)!))).toEqual(onBNow);
    // The active copy never moved back: node-b publishes, node-a has nothing published.
    expect(readReplication((await pvOf(pvName)).metadata.annotations)).toMatchObject({ activeNode: 'node-b', epoch: 1 });
    await waitFor('node-a unpublished its old pod', async () => (await fs.readdir(podsOf('node-a'))).length === 0, 30_000);
    expect(await checksums(onB)).toEqual(onBNow);
  }, 300_000);

  it('never promotes a replica when only the link between the nodes is cut, and catches up once it heals', async () => {
    await h.app.store.create({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'cut', namespace: NS },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '32Mi' } }, storageClassName: 'replicated' },
    });
    await h.app.store.create(podUsing('writer', NS, 'cut', 'node-a'));
    const pvName = (await boundVolume(h.app, 'cut', 30_000, NS)).metadata.name!;
    await waitFor('pod writer Running', running('writer'), 30_000);
    const onA = path.join(poolOf('node-a'), pvName);
    await fs.writeFile(path.join(onA, 'one.txt'), 'before the cut');
    const first = await replicaCaughtUp(pvName, 'node-b', Date.now());

    link.cut = true;
    for (const sock of link.open) sock.destroy();
    await fs.writeFile(path.join(onA, 'two.txt'), 'during the cut');
    // Transfers fail for a while (at least two intervals); both nodes stay Ready, nothing is promoted.
    const cutAt = Date.now();
    await waitFor('a failed transfer shown', async () => readReplication((await pvOf(pvName)).metadata.annotations)?.replicas.find((r) => r.node === 'node-b')?.error, 60_000);
    await waitFor('two intervals', async () => Date.now() - cutAt > 11_000, 20_000);
    const during = readReplication((await pvOf(pvName)).metadata.annotations)!;
    expect(during.activeNode).toBe('node-a');
    expect(during.epoch).toBe(0);
    expect(during.replicas[0].lastSyncTime).toBe(first.lastSyncTime);
    for (const n of ['node-a', 'node-b']) expect((await h.app.store.get('Node', undefined, n)).status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect((await podOf('writer'))?.spec?.nodeName).toBe('node-a');

    link.cut = false;
    const healedAt = Date.now();
    await replicaCaughtUp(pvName, 'node-b', healedAt, 90_000);
    const snaps = (await fs.readdir(path.join(poolOf('node-b'), '.stowage-replicas', pvName))).sort((x, y) => Number(x.slice(5)) - Number(y.slice(5)));
    expect(Object.keys(await checksums(path.join(poolOf('node-b'), '.stowage-replicas', pvName, snaps.at(-1)!))).sort()).toEqual(['one.txt', 'two.txt']);
    expect(readReplication((await pvOf(pvName)).metadata.annotations)).toMatchObject({ activeNode: 'node-a', epoch: 0 });
  }, 300_000);

  it('drains a node: once its pods are gone a final transfer, then the switch, with nothing lost', async () => {
    const admin = { type: 'user' as const, id: 'a', name: 'admin', role: 'admin' as const, namespaces: [] };
    await h.app.store.create({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'moved', namespace: NS },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '32Mi' } }, storageClassName: 'replicated' },
    });
    await h.app.store.create(podUsing('mover', NS, 'moved', 'node-a'));
    const pvName = (await boundVolume(h.app, 'moved', 30_000, NS)).metadata.name!;
    await waitFor('pod mover Running', running('mover'), 30_000);
    const onA = path.join(poolOf('node-a'), pvName);
    await fs.writeFile(path.join(onA, 'early.txt'), 'replicated early');
    await replicaCaughtUp(pvName, 'node-b', Date.now());

    const preview = await h.app.replication.drainPreview(admin, 'node-a');
    expect(preview.moves.map((m) => [m.pvName, m.to])).toContainEqual([pvName, 'node-b']);
    expect(preview.podsToStop.map((x) => x.name)).toContain('mover');
    await h.app.replication.drain(admin, 'node-a');
    // Written after the last periodic transfer, right before the pod stops: the final transfer carries it.
    await fs.writeFile(path.join(onA, 'last.bin'), randomBytes(2 * MiB));
    const whole = await checksums(onA);
    // Every pod on node-a stops (the earlier test's writer too, whose volume moves as well).
    for (const name of preview.podsToStop.map((x) => x.name)) await h.app.store.delete('Pod', NS, name, { gracePeriodSeconds: 0 });
    await waitFor('the active copy moved to node-b', async () => {
      const v = readReplication((await pvOf(pvName)).metadata.annotations);
      return v?.activeNode === 'node-b' ? v : undefined;
    }, 90_000).catch(async (e) => {
      throw new Error(`${(e as Error).message}: ${JSON.stringify((await pvOf(pvName)).metadata.annotations)} ${JSON.stringify(await pvEvents(pvName))}`);
    });
    expect((await pvEvents(pvName)).some((e) => e.startsWith('ReplicaMoved:'))).toBe(true);
    // Nothing lost: node-b's writable copy is node-a's last state, the final write included.
    expect(await checksums(path.join(poolOf('node-b'), pvName))).toEqual(whole);
    // A new pod of the claim lands on node-b (node-a is cordoned).
    await h.app.store.create(podUsing('mover2', NS, 'moved'));
    expect((await waitFor('pod mover2 Running', running('mover2'), 60_000)).spec?.nodeName).toBe('node-b');
    expect((await h.app.store.get('Node', undefined, 'node-a')).spec?.unschedulable).toBe(true);
    await h.app.replication.uncordon(admin, 'node-a');
    expect((await h.app.store.get('Node', undefined, 'node-a')).spec?.unschedulable).toBe(false);
  }, 300_000);
});

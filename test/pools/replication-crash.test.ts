// kill -9 during replication, through real agents and pools: two nodes, each with its own
// btrfs pool on a loop device, pods directory and replication listener, each agent a
// process of its own, and the controllers (all of them, as `stowage controllers` runs them)
// a third process; the API server and Postgres stay up (test/pools/crash/).
//  1. A full transfer of a few tens of MiB is cut three times while its receive job runs:
//     the replica's agent, the primary's agent, then the controllers are killed and started
//     again. A later attempt completes; the replica's snapshot has the source's checksums;
//     neither node keeps a snapshot beyond the acknowledged one and the one in flight, nor a
//     half-received one; and at no point does the replica's node hold a writable copy.
//  2. The primary's node dies and the pod is started again: during the promotion the
//     controllers and the new primary's agent are killed and started again. Then exactly
//     one writable copy exists, on the new active node, named by the PV; it holds the last
//     acknowledged snapshot's data; the old node's copy is fenced when its agent returns,
//     and its pods directory never publishes the new pod.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSubvolumeShow } from '../../server/agent/replication/rules';
import { poolCapacityName } from '../../server/domain/btrfs-pool';
import { readReplication } from '../../server/domain/replication';
import { replicaSnapshotDir, replicaSnapshotSeq } from '../../server/domain/replication-paths';
import { annAsset, annPoolTotal, annReplicationEndpoint } from '../../server/domain/well-known/annotations';
import { btrfsProvisioner } from '../../server/domain/well-known/provisioners';
import { DataJobStore } from '../../server/store/data-jobs';
import { AssetStore } from '../../server/store/provisioned-assets';
import { VolumeReplicaStore, type ReplicaRow } from '../../server/store/volume-replicas';
import { waitFor } from '../controllers/fixtures';
import { boundVolume, type LocalHarness } from '../local-volumes/harness';
import { nodeProcesses, type NodeProcesses } from './crash/node-processes';
import { btrfsClass, checksums, closePoolHarness, makePool, openPoolHarness, podUsing, skipWithoutPools, subvolumes } from './fixture';

const run = promisify(execFile);
const skip = skipWithoutPools('replication crash test');

const POOL = '/pools/fast';
const NS = 'apps';
const MiB = 1 << 20;
const NODES = ['node-a', 'node-b'] as const;
type NodeName = (typeof NODES)[number];
let h: LocalHarness;
let roots: string;
let jobs: DataJobStore;
let replicas: VolumeReplicaStore;
let assets: AssetStore;
const procs = new Map<NodeName, NodeProcesses>();
const poolOf = (node: string) => path.join(roots, node, POOL);
const podsOf = (node: string) => path.join(roots, node, 'pods');
const snapsOf = (node: string, pv: string) => path.join(roots, node, replicaSnapshotDir(POOL, pv));

beforeAll(async () => {
  if (skip) return;
  ({ h, dir: roots } = await openPoolHarness('stowage-replication-crash-'));
  jobs = new DataJobStore(h.app.store);
  replicas = new VolumeReplicaStore(h.app.store);
  assets = new AssetStore(h.app.store);
  for (const node of NODES) {
    await fs.mkdir(path.join(roots, node, 'pools'), { recursive: true });
    await fs.mkdir(podsOf(node), { recursive: true });
    await makePool(path.join(roots, node, 'pools'), 'fast', 384);
    procs.set(node, await nodeProcesses(h, node, { agent: { poolRoot: path.join(roots, node), podsDir: podsOf(node), replicationListen: '127.0.0.1:0' }, controllers: 'all' }));
  }
  await h.app.store.create(btrfsClass('replicated', POOL, { volumeBindingMode: 'WaitForFirstConsumer', parameters: { pool: POOL, replicas: '2', replicationInterval: '5s' } }));
  await Promise.all([procs.get('node-a')!.start('agent'), procs.get('node-b')!.start('agent'), procs.get('node-a')!.start('controllers')]);
  for (const node of NODES) {
    await waitFor(`${node} pool reported`, async () => (await h.app.store.tryGet('CSIStorageCapacity', 'kube-system', poolCapacityName(node, 'replicated')))?.metadata.annotations?.[annPoolTotal], 30_000);
    await waitFor(`${node} replication endpoint`, async () => (await h.app.store.tryGet('Node', undefined, node))?.metadata.annotations?.[annReplicationEndpoint], 30_000);
  }
}, 120_000);

afterAll(async () => {
  for (const p of procs.values()) await p.killAll();
  await closePoolHarness(h, roots);
});

const pvOf = async (name: string) => h.app.store.get('PersistentVolume', undefined, name);
const podOf = async (name: string) => h.app.store.tryGet('Pod', NS, name);
const running = (name: string) => async () => {
  const p = await podOf(name);
  return p?.status?.phase === 'Running' ? p : undefined;
};
const exists = (p: string) => fs.stat(p).then(
  () => true,
  (e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? false : Promise.reject(e)),
);
const receiveJob = (pv: string, node: string, seq: number) => jobs.get(`replica-receive/${pv}_${node}_${seq}`);
const rowOf = async (pv: string, node: string) => (await replicas.list(pv)).find((r) => r.node === node);


/**
 * Watches, every 50 ms until stopped, which nodes hold `<pool>/<pv>` and which pods each
 * node's pods directory publishes; returns what it saw that must never be.
 */
function watchCopies(pv: string, never: (holders: string[], published: Record<string, string[]>) => string | undefined) {
  const seen: string[] = [];
  let stop = false;
  const loop = (async () => {
    while (!stop) {
      const holders: string[] = [];
      const published: Record<string, string[]> = {};
      for (const n of NODES) {
        if (await exists(path.join(poolOf(n), pv))) holders.push(n);
        published[n] = await fs.readdir(podsOf(n)).catch(() => []);
      }
      const bad = never(holders, published);
      if (bad && seen.length < 20) seen.push(bad);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return async () => {
    stop = true;
    await loop;
    return seen;
  };
}

/** Every snapshot in the volume's folder on `node`: its seq, whether read-only and received. */
async function snapshotsOn(node: string, pv: string) {
  const names = await fs.readdir(snapsOf(node, pv)).catch(() => [] as string[]);
  return Promise.all(
    names.map(async (n) => {
      const { stdout } = await run('btrfs', ['subvolume', 'show', path.join(snapsOf(node, pv), n)]);
      return { name: n, seq: replicaSnapshotSeq(n), ...parseSubvolumeShow(stdout) };
    }),
  );
}

/**
 * Waits until the volume's snapshot folders on both nodes hold at most what the keep rules
 * allow (every copy's acknowledged snapshot and the one in flight), every one on a node
 * whole (read-only, and received where it was received) unless it is the one in flight,
 * and until neither pool holds any other subvolume than the volume and its snapshots.
 */
async function withinKeepRules(pv: string) {
  const found = await waitFor('the folders within the keep rules', async () => {
    const before = await replicas.list(pv);
    const found = Object.fromEntries(await Promise.all(NODES.map(async (n) => [n, await snapshotsOn(n, pv)] as const)));
    const after = await replicas.list(pv);
    const allowed = new Set([...allowedSeqs(before), ...allowedSeqs(after)]);
    const inFlight = new Set([...before, ...after].map((r) => r.transfer?.seq).filter((x) => x !== undefined));
    const wrong = NODES.flatMap((n) => found[n].filter((s) => s.seq === undefined || !allowed.has(s.seq) || (!s.readOnly && !inFlight.has(s.seq))).map((s) => `${n}: ${s.name}`));
    if (wrong.length) throw new Error(`beyond the keep rules (${[...allowed].join(', ')}): ${wrong.join(', ')}`);
    return found;
  }, 30_000);
  for (const n of NODES) {
    const other = (await subvolumes(poolOf(n))).filter((s) => s !== pv && replicaSnapshotSeq(s) === undefined);
    expect(other, `subvolumes on ${n}`).toEqual([]);
  }
  return found;
}

/** The seqs the keep rules allow in the folders: every row's acknowledged one and the one in flight. */
const allowedSeqs = (rows: ReplicaRow[]) => new Set(rows.flatMap((r) => [r.ackedSeq, r.transfer?.seq]).filter((x): x is number => x !== undefined));

/**
 * Waits until a transfer to `node` is in flight with its receive job running (the receiver
 * claimed it: it waits for the sender or is receiving), an attempt other than `after`
 * (a job still shown running for an agent killed is not a new one); returns it.
 */
async function receiving(pv: string, node: string, after?: string) {
  return waitFor(`a receive running on ${node}`, async () => {
    const r = await rowOf(pv, node);
    if (!r?.transfer) return undefined;
    const j = await receiveJob(pv, node, r.transfer.seq);
    const id = `${r.transfer.seq}/${j?.attempt}/${j?.startedAt?.toISOString()}`;
    return j?.state === 'running' && id !== after ? { id, seq: r.transfer.seq, acked: r.ackedSeq, done: j.progress?.doneBytes ?? '0' } : undefined;
  }, 60_000);
}

describe.skipIf(skip)('kill -9 during replication transfers and promotions', () => {
  let pvName = '';
  let acked: Record<string, string> = {};

  it('a transfer cut by kill -9 of either agent and of the controllers completes later, whole, leaving nothing behind', async () => {
    await h.app.store.create({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'data', namespace: NS },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '128Mi' } }, storageClassName: 'replicated' },
    });
    await h.app.store.create(podUsing('app', NS, 'data', 'node-a'));
    pvName = (await boundVolume(h.app, 'data', 30_000, NS)).metadata.name!;
    await waitFor('pod app Running', running('app'), 30_000);
    const stopWatching = watchCopies(pvName, (holders) => (holders.includes('node-b') ? `node-b holds a writable ${pvName} (holders: ${holders.join(', ')})` : undefined));

    // A few tens of MiB, so that a full transfer takes a moment.
    const onA = path.join(poolOf('node-a'), pvName);
    for (let i = 0; i < 8; i++) await fs.writeFile(path.join(onA, `block-${i}.bin`), randomBytes(8 * MiB));
    await fs.writeFile(path.join(onA, 'hello.txt'), 'hello from node-a');
    const source = await checksums(onA);
    // Snapshots asked for so far may have been taken while the files above were being
    // written, and hold part of them; the controllers record a snapshot's seq before the
    // agent takes it, so one past this seq is taken after the writes and holds them all.
    const writtenBy = Number((await assets.get(btrfsProvisioner, pvName))?.details?.seq ?? 0);

    const cuts: string[] = [];
    let last: string | undefined;
    for (const [node, which, midStream] of [['node-b', 'agent', true], ['node-a', 'agent', true], ['node-a', 'controllers', false]] as const) {
      const at = await receiving(pvName, 'node-b', last);
      // The agents are cut once the stream is under way if that can be caught: the snapshot
      // being received is there, not yet acknowledged (else once it is, just after).
      const partial = midStream
        ? await waitFor('the stream under way', async () => {
            const r = await rowOf(pvName, 'node-b');
            if (r?.ackedSeq !== undefined && r.ackedSeq >= at.seq) return 'after it was acknowledged';
            return (await exists(path.join(snapsOf('node-b', pvName), `snap-${at.seq}`))) ? 'with a partial snapshot on node-b' : undefined;
          }, 60_000)
        : 'while the receive job ran';
      await procs.get(node)!.crash([which]);
      cuts.push(`${node} ${which} at seq ${at.seq} ${partial} (acknowledged before: ${at.acked ?? 'none'})`);
      last = at.id;
    }
    console.log(`transfer cut by: ${cuts.join('; ')}`);

    const synced = await waitFor('the replica on node-b acknowledged a snapshot taken after the writes', async () => {
      const r = await rowOf(pvName, 'node-b');
      return r?.ackedSeq !== undefined && r.ackedSeq > writtenBy ? r : undefined;
    }, 90_000);
    // The source has not changed since, so that acknowledged snapshot is the source, byte for byte.
    const snapB = path.join(snapsOf('node-b', pvName), `snap-${synced.ackedSeq}`);
    expect(await checksums(snapB)).toEqual(source);
    acked = source;

    await withinKeepRules(pvName);
    expect(await stopWatching()).toEqual([]);
  }, 150_000);

  it('a promotion cut by kill -9 of the controllers and of the new primary’s agent ends with one writable copy, fenced old copy, nothing acknowledged lost', async () => {
    expect(pvName).not.toBe('');
    // Node-a dies for good (until it returns below); the new pod must not be published there, ever.
    const stopWatching = watchCopies(pvName, (_holders, published) => (published['node-a'].some((p) => p.includes('app2')) ? `node-a publishes ${published['node-a'].join(', ')}` : undefined));
    await procs.get('node-a')!.killAll();
    // The controllers ran beside node-a's agent: they are started again on their own.
    await procs.get('node-a')!.start('controllers');
    await waitFor('node-a NotReady', async () => (await h.app.store.tryGet('Node', undefined, 'node-a'))?.status?.conditions?.some((c) => c.type === 'Ready' && c.status !== 'True'), 30_000);
    const lastAcked = (await rowOf(pvName, 'node-b'))!.ackedSeq!;

    await h.app.store.delete('Pod', NS, 'app', { gracePeriodSeconds: 0 });
    await waitFor('pod app gone', async () => !(await podOf('app')), 30_000);
    await h.app.store.create(podUsing('app2', NS, 'data'));
    // The record moved to node-b, before (if caught) its copy is made.
    const moved = await waitFor('the record moved to node-b', async () => {
      const r = await assets.get(btrfsProvisioner, pvName);
      return r?.node === 'node-b' ? r : undefined;
    }, 60_000);
    const copyMade = await exists(path.join(poolOf('node-b'), pvName));
    await procs.get('node-a')!.crash(['controllers']);
    await procs.get('node-b')!.crash(['agent']);
    console.log(`promotion cut: record ${moved.state}, the new copy ${copyMade ? 'made' : 'not made yet'}`);

    const p2 = await waitFor('pod app2 Running', running('app2'), 60_000);
    expect(p2.spec?.nodeName).toBe('node-b');
    const view = readReplication((await pvOf(pvName)).metadata.annotations)!;
    expect(view).toMatchObject({ activeNode: 'node-b', epoch: 1 });
    expect((await pvOf(pvName)).metadata.annotations?.[annAsset]).toContain('node-b');
    expect(await assets.get(btrfsProvisioner, pvName)).toMatchObject({ node: 'node-b', state: 'created' });
    // The last acknowledged transfer's data is the active copy's.
    const onB = path.join(poolOf('node-b'), pvName);
    expect(await checksums(onB)).toEqual(acked);
    expect((await rowOf(pvName, 'node-a'))).toMatchObject({ role: 'fenced', ackedSeq: lastAcked });

    // Node-a returns: its old copy is removed, and it becomes a replica of node-b.
    await fs.writeFile(path.join(onB, 'after-failover.txt'), 'written on node-b');
    await procs.get('node-a')!.start('agent');
    await waitFor('node-a fenced', async () => !(await exists(path.join(poolOf('node-a'), pvName))), 60_000);
    await waitFor('node-a a replica in sync', async () => {
      const r = await rowOf(pvName, 'node-a');
      return r?.role === 'replica' && r.ackedSeq !== undefined && r.ackedSeq > lastAcked ? r : undefined;
    }, 60_000);
    await waitFor('node-a unpublished its old pod', async () => (await fs.readdir(podsOf('node-a'))).length === 0, 30_000);
    // Exactly one writable copy, on node-b.
    const holders = [];
    for (const n of NODES) if (await exists(path.join(poolOf(n), pvName))) holders.push(n);
    expect(holders).toEqual(['node-b']);
    expect(readReplication((await pvOf(pvName)).metadata.annotations)).toMatchObject({ activeNode: 'node-b', epoch: 1 });
    expect((await checksums(onB))['after-failover.txt']).toBeDefined();
    // Nothing left of the cut promotion or the fenced copy's old snapshots beyond the keep rules.
    await withinKeepRules(pvName);
    expect(await stopWatching()).toEqual([]);
  }, 150_000);
});

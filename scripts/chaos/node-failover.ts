// The "node failover" fault of the chaos run (with pools): a claim of the replicated class
// (two copies, every 5 s) on one node holds a file of known checksum once its replica has
// acknowledged a snapshot taken after it; the fault takes that node down (agent stopped,
// network cut), starts the claim's pod again, and reads the data where it runs; then the
// node returns, and the run looks for writable copies on every node and for the returned
// node's replica (invariants failoverKeptAcknowledgedData, oneWritableCopy).
import { createHash } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { kubeRequest, type KubeTarget } from '../cluster/kube';
import { REPLICATED_CLASS, type Topology } from '../cluster/topology';
import { untilDone } from './client';
import type { FailoverOutcome, ReplicatedClaim } from './invariants';

const FILE = 'chaos-replicated.bin';
const WAIT_MS = 180_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function get(k: KubeTarget, p: string): Promise<any> {
  const r = await kubeRequest(k, 'GET', p, undefined, 10_000).catch(() => undefined);
  return r?.status === 200 ? r.body : undefined;
}

async function poll<T>(what: () => Promise<T | undefined>, timeoutMs: number, everyMs = 500): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const v = await what().catch(() => undefined);
    if (v !== undefined) return v;
    await sleep(everyMs);
  }
  return undefined;
}

const replicasOf = (pv: any): { node: string; state: string; lastSyncTime?: string }[] => {
  try {
    return JSON.parse(pv?.metadata?.annotations?.['replication.stowage.io/replicas'] ?? '[]');
  } catch {
    return [];
  }
};

/** Waits until the replica on `node` (any node but `except`, when node is undefined) holds a snapshot taken at or after `since`. */
async function replicaInSync(k: KubeTarget, pvName: string, since: number, o: { node?: string; except?: string }): Promise<boolean> {
  const ok = await poll(async () => {
    const pv = await get(k, `/api/v1/persistentvolumes/${pvName}`);
    const r = replicasOf(pv).find((x) => (o.node ? x.node === o.node : x.node !== o.except));
    return r?.state === 'InSync' && r.lastSyncTime && Date.parse(r.lastSyncTime) >= Math.floor(since / 1000) * 1000 ? true : undefined;
  }, WAIT_MS);
  return ok === true;
}

function pod(name: string, claim: string, node?: string) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { ...(node ? { nodeSelector: { 'kubernetes.io/hostname': node } } : {}), containers: [{ name: 'app', image: 'busybox' }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName: claim } }] },
  };
}

/** Before the fault: the claim and its pod on node `i`, its data written, and the replica's acknowledgement of it. */
export async function prepareNodeFailover(t: Topology, k: KubeTarget, ns: string, i: number, rand: () => number, say: (m: string) => void): Promise<ReplicatedClaim> {
  const node = t.nodes[i];
  const claim = 'replicated-0';
  const dl = Date.now() + WAIT_MS;
  await untilDone(k, 'POST', `/api/v1/namespaces/${ns}/persistentvolumeclaims`, { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: claim }, spec: { accessModes: ['ReadWriteOnce'], storageClassName: REPLICATED_CLASS, resources: { requests: { storage: '16Mi' } } } }, dl, (s) => s === 201 || s === 409);
  await untilDone(k, 'POST', `/api/v1/namespaces/${ns}/pods`, pod(`${claim}-pod`, claim, node.name), dl, (s) => s === 201 || s === 409);
  const bound = await poll(async () => {
    const c = await get(k, `/api/v1/namespaces/${ns}/persistentvolumeclaims/${claim}`);
    return c?.status?.phase === 'Bound' ? (c.spec.volumeName as string) : undefined;
  }, WAIT_MS);
  if (!bound) throw new Error(`node-failover: claim ${claim} did not bind on ${node.name}`);
  const dir = path.join(t.poolMount(node), bound);
  if (!existsSync(dir)) throw new Error(`node-failover: ${dir} does not exist`);
  const content = Buffer.from(Array.from({ length: 256 * 1024 }, () => Math.floor(rand() * 256)));
  const fd = openSync(path.join(dir, FILE), 'w');
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  const writtenAt = Date.now();
  if (!(await replicaInSync(k, bound, writtenAt + 1000, { except: node.name }))) throw new Error(`node-failover: the replica of ${bound} did not acknowledge a snapshot after the write`);
  const sha256 = createHash('sha256').update(content).digest('hex');
  say(`    node-failover: ${claim} (${bound}) on ${node.name} replicated (${sha256.slice(0, 12)})`);
  return { claim, pvName: bound, node: node.name, sha256 };
}

/** The fault: node `i` down, the claim's pod started again elsewhere, the node back; what was seen. */
export async function runNodeFailover(t: Topology, k: KubeTarget, ns: string, i: number, c: ReplicatedClaim, say: (m: string) => void): Promise<FailoverOutcome> {
  const out: FailoverOutcome = { claim: c.claim, writableCopies: [], runningOnTwo: [], resynced: false };
  let sampling = true;
  // Meanwhile: never pods of the claim Running on two nodes.
  const sampler = (async () => {
    while (sampling) {
      const pods = (await get(k, `/api/v1/namespaces/${ns}/pods`))?.items ?? [];
      const nodes = new Set<string>(pods.filter((p: any) => p.status?.phase === 'Running' && p.spec?.volumes?.some((v: any) => v.persistentVolumeClaim?.claimName === c.claim)).map((p: any) => p.spec.nodeName));
      if (nodes.size > 1) out.runningOnTwo.push(`pods Running on ${[...nodes].join(' and ')} at once`);
      await sleep(500);
    }
  })();
  try {
    await t.takeNodeDown(i);
    const down = Date.now();
    const notReady = await poll(async () => ((await get(k, `/api/v1/nodes/${c.node}`))?.status?.conditions ?? []).some((x: any) => x.type === 'Ready' && x.status !== 'True') || undefined, WAIT_MS);
    if (!notReady) return { ...out, problem: `${c.node} never became NotReady` };
    await kubeRequest(k, 'DELETE', `/api/v1/namespaces/${ns}/pods/${c.claim}-pod`, { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0 }, 10_000).catch(() => undefined);
    await untilDone(k, 'POST', `/api/v1/namespaces/${ns}/pods`, pod(`${c.claim}-pod2`, c.claim), Date.now() + WAIT_MS, (s) => s === 201 || s === 409);
    const running = await poll(async () => {
      const p = await get(k, `/api/v1/namespaces/${ns}/pods/${c.claim}-pod2`);
      return p?.status?.phase === 'Running' ? (p.spec.nodeName as string) : undefined;
    }, WAIT_MS);
    if (!running) return { ...out, problem: 'the new pod never ran' };
    out.newNode = running;
    say(`    node-failover: ${c.node} down; ${c.claim} running on ${running} ${((Date.now() - down) / 1000).toFixed(0)} s later`);
    const there = t.nodes.find((n) => n.name === running);
    const file = there ? path.join(t.poolMount(there), c.pvName, FILE) : undefined;
    if (file && existsSync(file)) out.sha256 = createHash('sha256').update(readFileSync(file)).digest('hex');
    // The node returns: its old copy is fenced and it resyncs as a replica.
    const back = Date.now();
    await t.bringNodeBack(i);
    out.resynced = await replicaInSync(k, c.pvName, back, { node: c.node });
    const pv = await get(k, `/api/v1/persistentvolumes/${c.pvName}`);
    out.activeNode = pv?.metadata?.annotations?.['replication.stowage.io/active-node'];
    out.epoch = Number(pv?.metadata?.annotations?.['replication.stowage.io/epoch'] ?? NaN);
    out.writableCopies = t.nodes.filter((n) => existsSync(path.join(t.poolMount(n), c.pvName))).map((n) => n.name);
    say(`    node-failover: ${c.node} back; active ${out.activeNode} (epoch ${out.epoch}), writable copies on [${out.writableCopies.join(', ')}], ${c.node} ${out.resynced ? 'in sync again' : 'NOT in sync'}`);
    return out;
  } finally {
    sampling = false;
    await sampler;
  }
}

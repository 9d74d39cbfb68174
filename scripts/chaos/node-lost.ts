// The "node lost" fault of the chaos run: before it, claims of the btrfs pool class on one
// node hold a small file of known checksum and have Completed VolumeBackups in a target
// every node reaches; the fault stops that node's agent for good and removes its pool;
// then each lost claim is restored from its last backup as a new claim on another node,
// and the restored file's checksum is read back (invariant restoredFromLastBackup).
import { createHash } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { kubeRequest, type KubeTarget } from '../cluster/kube';
import { POOL_CLASS, type Topology } from '../cluster/topology';
import { untilDone } from './client';
import type { LostClaim, RestoreOutcome } from './invariants';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const FILE = 'chaos-data.bin';
const TARGET = 'chaos-target';
const WAIT_MS = 120_000;

export interface NodeLostPlan {
  /** Index of the node to lose, and of the node the restores go to. */
  lost: number;
  restoreOn: number;
  claims: number;
}

/** Which node is lost and where its claims come back (from the seeded generator). */
export function planNodeLost(nodes: number, rand: () => number, claims = 2): NodeLostPlan {
  // The generator's first draws after a small seed are tiny: use its low digits, so the
  // seed varies the node.
  const lost = Math.floor(rand() * 1e6) % nodes;
  return { lost, restoreOn: (lost + 1 + Math.floor(rand() * (nodes - 1))) % nodes, claims };
}

async function poll<T>(what: () => Promise<T | undefined>, timeoutMs: number): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const v = await what().catch(() => undefined);
    if (v !== undefined) return v;
    await sleep(500);
  }
  return undefined;
}

async function get(k: KubeTarget, p: string): Promise<any> {
  const r = await kubeRequest(k, 'GET', p, undefined, 10_000);
  return r.status === 200 ? r.body : undefined;
}

function pvNode(pv: any): string | undefined {
  return pv?.spec?.nodeAffinity?.required?.nodeSelectorTerms?.[0]?.matchExpressions?.[0]?.values?.[0];
}

/** A claim of the pool class and a pod pinned to `node` using it; the bound PV (undefined: not within the wait). */
async function claimOnNode(k: KubeTarget, ns: string, name: string, node: string, dataSourceRef?: unknown): Promise<any> {
  const dl = Date.now() + WAIT_MS;
  await untilDone(k, 'POST', `/api/v1/namespaces/${ns}/persistentvolumeclaims`, {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name },
    spec: { accessModes: ['ReadWriteOnce'], storageClassName: POOL_CLASS, resources: { requests: { storage: '16Mi' } }, ...(dataSourceRef ? { dataSourceRef } : {}) },
  }, dl, (s) => s === 201 || s === 409);
  await untilDone(k, 'POST', `/api/v1/namespaces/${ns}/pods`, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `${name}-pod` },
    spec: { nodeSelector: { 'kubernetes.io/hostname': node }, containers: [{ name: 'app', image: 'busybox', volumeMounts: [{ name: 'data', mountPath: '/data' }] }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName: name } }] },
  }, dl, (s) => s === 201 || s === 409);
  const claim = await poll(async () => {
    const c = await get(k, `/api/v1/namespaces/${ns}/persistentvolumeclaims/${name}`);
    return c?.status?.phase === 'Bound' ? c : undefined;
  }, Math.max(0, dl - Date.now()));
  return claim ? get(k, `/api/v1/persistentvolumes/${claim.spec.volumeName}`) : undefined;
}

/** Where the host sees a pool volume's directory (its agent sees it at the class's pool path). */
function hostPathOf(t: Topology, pv: any): string | undefined {
  const node = t.nodes.find((n) => n.name === pvNode(pv));
  const p: string | undefined = pv?.spec?.local?.path;
  if (!node || !p) return undefined;
  const rel = path.relative(t.poolPath, p);
  return rel.startsWith('..') ? undefined : path.join(t.poolMount(node), rel);
}

function writeData(dir: string, content: Buffer): string {
  const fd = openSync(path.join(dir, FILE), 'w');
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return createHash('sha256').update(content).digest('hex');
}

async function backUp(k: KubeTarget, ns: string, claim: string, name: string): Promise<number | undefined> {
  await untilDone(k, 'POST', `/apis/stowage.io/v1/namespaces/${ns}/volumebackups`, {
    apiVersion: 'stowage.io/v1',
    kind: 'VolumeBackup',
    metadata: { name },
    spec: { source: { persistentVolumeClaimName: claim }, backupTargetName: TARGET },
  }, Date.now() + WAIT_MS, (s) => s === 201 || s === 409);
  return poll(async () => {
    const b = await get(k, `/apis/stowage.io/v1/namespaces/${ns}/volumebackups/${name}`);
    if (b?.status?.phase === 'Failed') throw new Error(`backup ${name} failed: ${b.status?.error?.message ?? ''}`);
    return b?.status?.phase === 'Completed' ? Date.now() : undefined;
  }, WAIT_MS);
}

/**
 * Before the fault: the target, then each claim on the node to lose with two versions of
 * its data, each backed up (so "the last backup" is one of two). Returns what the
 * invariant checks the restores against.
 */
export async function prepareNodeLost(t: Topology, k: KubeTarget, ns: string, plan: NodeLostPlan, rand: () => number, say: (m: string) => void): Promise<LostClaim[]> {
  const targetDir = path.join(t.o.dir, 'backups');
  mkdirSync(targetDir, { recursive: true });
  const r = await untilDone(k, 'POST', '/apis/stowage.io/v1/backuptargets', { apiVersion: 'stowage.io/v1', kind: 'BackupTarget', metadata: { name: TARGET }, spec: { path: targetDir } }, Date.now() + 30_000, (s) => s === 201 || s === 409);
  if (!r) throw new Error('node-lost: could not make the BackupTarget');
  const node = t.nodes[plan.lost];
  const lost: LostClaim[] = [];
  for (let c = 0; c < plan.claims; c++) {
    const claim = `lost-${c}`;
    const pv = await claimOnNode(k, ns, claim, node.name);
    const dir = hostPathOf(t, pv);
    if (!dir || !existsSync(dir)) throw new Error(`node-lost: claim ${claim} did not bind on ${node.name} within ${WAIT_MS / 1000} s`);
    const entry: LostClaim = { claim, lostNode: node.name, backups: [] };
    for (const v of [1, 2]) {
      const content = Buffer.from(Array.from({ length: 64 * 1024 }, () => Math.floor(rand() * 256)));
      const sha256 = writeData(dir, content);
      const name = `${claim}-b${v}`;
      const completedAt = await backUp(k, ns, claim, name);
      if (completedAt === undefined) throw new Error(`node-lost: backup ${name} not Completed within ${WAIT_MS / 1000} s`);
      entry.backups.push({ name, sha256, completedAt });
      say(`    node-lost: ${name} of ${claim} on ${node.name} Completed (${sha256.slice(0, 12)})`);
    }
    lost.push(entry);
  }
  return lost;
}

/** The fault, then the restores: each lost claim from its last backup, on another node. */
export async function loseNodeAndRestore(t: Topology, k: KubeTarget, ns: string, plan: NodeLostPlan, lost: readonly LostClaim[], say: (m: string) => void): Promise<RestoreOutcome[]> {
  await t.loseNode(plan.lost);
  say(`    node-lost: ${t.nodes[plan.lost].name}'s agent stopped for good and its pool removed`);
  const to = t.nodes[plan.restoreOn].name;
  return Promise.all(
    lost.map(async (l): Promise<RestoreOutcome> => {
      const last = [...l.backups].sort((a, b) => a.completedAt - b.completedAt).at(-1)!;
      const restoredClaim = `${l.claim}-restored`;
      const out: RestoreOutcome = { claim: l.claim, restoredClaim, backupName: last.name };
      const pv = await claimOnNode(k, ns, restoredClaim, to, { apiGroup: 'stowage.io', kind: 'VolumeBackup', name: last.name });
      if (!pv) return { ...out, problem: `not Bound within ${WAIT_MS / 1000} s` };
      out.node = pvNode(pv);
      const dir = hostPathOf(t, pv);
      const file = dir ? path.join(dir, FILE) : undefined;
      if (!file || !existsSync(file)) return { ...out, problem: `no ${FILE} in the restored volume ${pv.metadata.name}` };
      out.sha256 = createHash('sha256').update(readFileSync(file)).digest('hex');
      return out;
    }),
  );
}

// A real Stowage for local-volume tests: its own database, the HTTPS API (with the agent
// API), the controllers (binder, local-volume manager, node lifecycle), a discovery
// directory of real directories, and node agents talking HTTPS with node tokens.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { agentHttpClient } from '../../server/agent/agent-client';
import { AgentLoop } from '../../server/agent/agent-loop';
import type { DataMover } from '../../server/agent/data-job-runner';
import { realAgentOs } from '../../server/agent/os';
import { createAppContext, type AppContext } from '../../server/wiring/context';
import { logger } from '../../server/services/logger';
import { startControllers, type RunningControllers } from '../../server/controllers/start';
import { startApiServer, type RunningApiServer } from '../../server/kube/api-server';
import type { PersistentVolumeClaim } from '../../server/resources/persistent-volume-claim/schema';
import type { NodeAgentOptions } from '../../server/services/node-agent';
import { waitFor } from '../controllers/fixtures';
import { createTestDatabase } from '../db';
import type { PersistentVolume } from '../../server/resources/persistent-volume/schema';

export const CLASS = 'local-test';

export interface LocalHarness {
  url: string;
  app: AppContext;
  api: RunningApiServer;
  dir: string;
  /** The discovery directory of class local-test. */
  disks: string;
  controllers?: RunningControllers;
  startControllers(): Promise<RunningControllers>;
  /** A node token, and an agent loop for that node (started). */
  startAgent(node: string, o?: { maxParallel?: number; podsDir?: string; poolRoot?: string; dataMover?: DataMover; replication?: { listen: string; advertise?: string } }): Promise<AgentLoop>;
  tokenFor(node: string): Promise<string>;
  setStorageClassMap(text: string): Promise<void>;
  close(): Promise<void>;
}

export function classMap(disks: string, extra = ''): string {
  return `${CLASS}:\n  hostDir: ${JSON.stringify(disks)}\n  requireMountPoints: false\n  parallelCleanups: 32\n${extra}`;
}

export async function openLocalHarness(o: { agent?: NodeAgentOptions; url?: string } = {}): Promise<LocalHarness> {
  const url = o.url ?? (await createTestDatabase());
  const app = await createAppContext(url, { leaseMs: 3_000, retryBaseMs: 300, retryMaxMs: 2_000, ...o.agent });
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'stowage-local-'));
  const disks = path.join(dir, 'disks');
  await fs.mkdir(disks);
  const api = await startApiServer({ app, dataDir: dir, host: '127.0.0.1', port: 0 });
  for (const ns of ['default', 'kube-system', 'apps']) {
    if (!(await app.store.tryGet('Namespace', undefined, ns))) await app.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  }
  await app.store.create({
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: CLASS },
    provisioner: 'kubernetes.io/no-provisioner',
    reclaimPolicy: 'Delete',
  });
  await app.store.create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'local-volume-config', namespace: 'kube-system' },
    data: { storageClassMap: classMap(disks) },
  });
  const agents: AgentLoop[] = [];
  const h: LocalHarness = {
    url,
    app,
    api,
    dir,
    disks,
    async startControllers() {
      h.controllers = await startControllers({
        app,
        connectionString: url,
        leaderElection: false,
        pendingGraceMs: 0,
        localVolumes: { pollMs: 200, baseDelayMs: 100, maxDelayMs: 1000 },
        nodeLifecycle: { graceMs: 4_000, resyncMs: 500 },
      });
      return h.controllers;
    },
    tokenFor: (node) => app.nodeAgent.createToken(node, 'test'),
    async startAgent(node, ao = {}) {
      const token = await h.tokenFor(node);
      const loop = new AgentLoop({
        api: agentHttpClient({ server: api.url, token, caPem: api.caPem }),
        os: realAgentOs,
        nodeName: node,
        log: logger.child({ component: 'agent', node }),
        configMs: 200,
        discoveryMs: 300,
        heartbeatMs: 1_000,
        claimMs: 200,
        maxParallel: ao.maxParallel ?? 4,
        progressIntervalMs: 200,
        ...(ao.podsDir ? { podsDir: ao.podsDir, publishMs: 200 } : {}),
        ...(ao.poolRoot ? { poolRoot: ao.poolRoot } : {}),
        ...(ao.dataMover ? { dataMover: ao.dataMover } : {}),
        ...(ao.replication ? { replication: ao.replication } : {}),
        poolMs: 200,
      });
      await loop.start();
      agents.push(loop);
      return loop;
    },
    async setStorageClassMap(text) {
      const cm = await app.store.get('ConfigMap', 'kube-system', 'local-volume-config');
      cm.data = { storageClassMap: text };
      await app.store.update(cm);
    },
    async close() {
      for (const a of agents) await a.stop();
      await h.controllers?.stop();
      await api.close();
      await app.close();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
  return h;
}

export async function localPvs(app: AppContext): Promise<PersistentVolume[]> {
  return (await app.store.list('PersistentVolume', { labelSelector: 'local.stowage.io/node' })).items;
}

export function claimFor(name: string, volumeName: string, namespace = 'apps'): PersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Ki' } }, storageClassName: CLASS, volumeName },
  };
}

/** Waits until claim `namespace/name` is Bound; its volume. */
export async function boundVolume(app: AppContext, name: string, timeoutMs = 30_000, namespace = 'apps'): Promise<PersistentVolume> {
  const claim = await waitFor(`claim ${name} Bound`, async () => {
    const c = (await app.store.tryGet('PersistentVolumeClaim', namespace, name));
    return c?.status?.phase === 'Bound' ? c : undefined;
  }, timeoutMs);
  return (await app.store.get('PersistentVolume', undefined, claim.spec!.volumeName!));
}

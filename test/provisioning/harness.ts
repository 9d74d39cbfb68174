// Provisioning end to end on a real Postgres and real directories: the binder (told which
// provisioners are in-tree), the provisioning controllers (the snapshotter among them) and
// the snapshot controller, on one test database, with an
// OS wrapper the test can make fail. Plus waiting for conditions with a deadline.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { logger } from '../../server/services/logger';
import { binderSpec } from '../../server/controllers/binder/binder';
import { provisioningDeps, provisioningSpecs, type ProvisioningOptions } from '../../server/controllers/provisioning-start';
import type { ProvisioningDeps } from '../../server/controllers/provisioner/deps';
import type { ReconcileContext } from '../../server/controllers/runtime/controller';
import { Manager } from '../../server/controllers/runtime/manager';
import { snapshotControllerSpec } from '../../server/controllers/snapshot/snapshot';
import { AssetStore } from '../../server/store/provisioned-assets';
import { createRealOs, type HostOs } from '../../server/provisioners/os';
import { FaultyOs } from '../../server/provisioners/os-fake';
import { inTreeProvisionerNames } from '../../server/domain/provisioner-capabilities';
import { releaseAndWarn } from '../../server/provisioners/testing';
import type { PersistentVolume } from '../../server/resources/persistent-volume/schema';
import type { PersistentVolumeClaim } from '../../server/resources/persistent-volume-claim/schema';
import { openTestStore, type TestStore } from '../db';
import type { StorageClass } from '../../server/resources/storage-class/schema';
import type { Event } from '../../server/resources/event/schema';
import { EventRecorder } from '../../server/services/event-recorder';
import { snapshotControllerComponent } from '../../server/domain/well-known/components';

export const NODE = 'node-test';
export const NS = 'team-a';

/** Polls `probe` until it returns a value other than undefined/false, or fails at the deadline. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${String(last)})` : ''}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A ReconcileContext for calling one reconcile directly. */
export function testContext(): ReconcileContext & { enqueued: string[] } {
  const enqueued: string[] = [];
  return {
    controller: 'test',
    signal: new AbortController().signal,
    log: logger,
    enqueue: (key) => enqueued.push(key),
    isQueued: () => false,
    wrote: () => {},
    enqueued,
  };
}

export interface Harness {
  ts: TestStore;
  dir: string;
  base: string;
  os: FaultyOs;
  assets: AssetStore;
  /** Dependencies of the provisioning controllers over this harness (to call a reconcile directly). */
  deps(over?: Partial<ProvisioningOptions>): ProvisioningDeps;
  /** Starts binder + provisioning controllers (again, after stop: a restart). */
  start(over?: Partial<ProvisioningOptions>): Promise<void>;
  stop(): Promise<void>;
  close(): Promise<void>;
  createClass(name: string, provisioner: string, parameters: Record<string, string>, extra?: Record<string, unknown>): Promise<StorageClass>;
  createClaim(name: string, className: string, over?: { size?: string; spec?: Record<string, unknown> }): Promise<PersistentVolumeClaim>;
  claim(name: string): Promise<PersistentVolumeClaim | undefined>;
  volume(name: string): Promise<PersistentVolume | undefined>;
  events(name: string, reason?: string): Promise<Event[]>;
  waitBound(name: string, timeoutMs?: number): Promise<{ claim: PersistentVolumeClaim; volume: PersistentVolume }>;
}

export async function openHarness(inner: HostOs = createRealOs(NODE)): Promise<Harness> {
  const ts = await openTestStore();
  // "default" holds the Events of cluster-scoped objects (PVs), as upstream.
  for (const name of [NS, 'default']) await ts.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'stowage-prov-'));
  const faulty = new FaultyOs(inner);
  const assets = new AssetStore(ts.store);
  let manager: Manager | undefined;
  const log = logger.child({ test: 'provisioning' });
  const h: Harness = {
    ts,
    dir,
    base: path.join(dir, 'volumes'),
    os: faulty,
    assets,
    deps: (over = {}) => provisioningDeps({ app: ts, os: faulty, nodeName: NODE, log, saveAttempts: 3, saveIntervalMs: 20, sweepGraceMs: 500, ...over }),
    async start(over = {}) {
      const d = h.deps(over);
      const tuning = { retryBaseMs: 50, retryMaxMs: 1000, resyncMs: 1000, ...over };
      manager = new Manager({
        store: ts.store,
        log,
        leaderElection: false,
        specs: () => [
          binderSpec({ store: ts.store, log, events: d.events, pendingGraceMs: 0, resyncMs: 1000, inTreeProvisioners: inTreeProvisionerNames }),
          ...provisioningSpecs(d, tuning),
          snapshotControllerSpec({ store: ts.store, log, events: new EventRecorder(ts.store, snapshotControllerComponent, log) }, { resyncMs: 1000 }),
        ],
        shutdownTimeoutMs: 10_000,
      });
      await manager.start();
    },
    async stop() {
      await manager?.stop();
      manager = undefined;
    },
    async close() {
      await h.stop();
      await ts.close();
      await releaseAndWarn(dir);
    },
    // create returns the object it stored, of the kind it was given.
    createClass: (name, provisioner, parameters, extra = {}) =>
      ts.store.create({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name }, provisioner, parameters, ...extra }),
    createClaim: (name, className, over = {}) =>
      ts.store.create({
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name, namespace: NS },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: over.size ?? '10Mi' } }, storageClassName: className, ...over.spec },
      }),
    claim: (name) => ts.store.tryGet('PersistentVolumeClaim', NS, name),
    volume: (name) => ts.store.tryGet('PersistentVolume', undefined, name),
    async events(name, reason) {
      const all = await ts.store.list('Event', { namespace: NS, fieldSelector: `involvedObject.name=${name}` });
      const def = await ts.store.list('Event', { namespace: 'default', fieldSelector: `involvedObject.name=${name}` });
      return ([...all.items, ...def.items] as Event[]).filter((e) => !reason || e.reason === reason); // lists of kind Event
    },
    async waitBound(name, timeoutMs) {
      return waitFor(
        `claim ${name} to be Bound`,
        async () => {
          const claim = await h.claim(name);
          if (claim?.status?.phase !== 'Bound') return undefined;
          const volume = await h.volume(claim.spec!.volumeName!);
          return volume?.status?.phase === 'Bound' ? { claim, volume } : undefined;
        },
        timeoutMs,
      );
    },
  };
  return h;
}

export const exists = (p: string) => fs.access(p).then(() => true, () => false);

// Starts dynamic provisioning and deletion on the shared runtime: the provisioner (with
// crash recovery of intent records on start), the deleter, PV protection and expansion, with the
// in-tree plugins (stowage.io/host-path, stowage.io/loop) on this node, and the used bytes of
// their volumes (volume-usage).
//
// The plugins make assets on the machine this process runs on; PVs get node affinity to
// `nodeName` (default: the OS hostname). With leader election, run it on the node whose
// disks the classes' basePath parameters name.
import type { Logger } from 'pino';
import { storeRestores } from './provisioner/restore';
import type { RestoreDeps } from './provisioner/deps';
import type { Services } from '../services/services';
import type { CSIStorageCapacity } from '../resources/csi-storage-capacity/schema';
import { TxBatcher } from './runtime/tx-batcher';
import { logger } from '../services/logger';
import { AssetStore } from '../store/provisioned-assets';
import { createRealOs, type HostOs } from '../provisioners/os';
import { createPlugins, type PluginRegistry } from '../provisioners/registry';
import { deleterSpec } from './deleter/deleter';
import { expanderSpec } from './expander/expander';
import { pvProtectionSpec } from './deleter/pv-protection';
import type { ProvisioningDeps } from './provisioner/deps';
import { persistentVolumeControllerComponent } from '../domain/well-known/components';
import { provisionerSpec } from './provisioner/provisioner';
import type { ControllerSpec } from './runtime/controller';
import { EventRecorders } from './runtime/recorders';
import { Manager } from './runtime/manager';
import { volumeUsageSpec } from './volume-usage/volume-usage';
import { snapshotterSpec } from './snapshotter/snapshotter';

export interface ProvisioningOptions {
  app: Pick<Services, 'store'>;
  /** Restores from VolumeBackups (default: backups and targets read from the store, jobs in data_jobs). */
  restores?: RestoreDeps;
  /** OS access (default: the real one). Tests and benchmarks pass fakes or fault injectors. */
  os?: HostOs;
  /** The node this process provisions on (default: the OS hostname). */
  nodeName?: string;
  /** Plugins by provisioner name (default: the in-tree ones over `os`). */
  plugins?: PluginRegistry;
  log?: Logger;
  /** PV save attempts before the asset is deleted (default 5) and the pause between them (ms, default 1000). */
  saveAttempts?: number;
  saveIntervalMs?: number;
  backgroundPollMs?: number;
  /** Idle time before the periodic sweep settles an intent record (ms, default 60 s). */
  sweepGraceMs?: number;
  /** Resync of pending claims, released volumes and the sweep (ms, default 60 s). */
  resyncMs?: number;
  /** Retry backoff of failed reconciles (ms; defaults 1 s doubling up to 5 min). */
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** Workers of the provisioner and of the deleter (default 4 each). */
  concurrency?: number;
  /** How long one call of an agent-backed plugin (btrfs pools) waits for a node's agent (ms, default 10 s). */
  agentWaitMs?: number;
  /** The process's Event recorders (default: ones of its own), shared with the controllers beside it. */
  recorders?: EventRecorders;
}

export interface StartProvisioningOptions extends ProvisioningOptions {
  /** The database, for the leader-election session (leader election is on when given). */
  connectionString?: string;
  leaderElection?: boolean;
  /** Name of the leader lock (default "stowage-provisioning"). */
  lockName?: string;
  retryPeriodMs?: number;
  leaseDurationMs?: number;
}

export interface RunningProvisioning {
  manager: Manager;
  plugins: PluginRegistry;
  assets: AssetStore;
  stop(): Promise<void>;
}

/** Reads the published pools' room (for the btrfs plugin). */
export function publishedCapacities(store: Services['store']): () => Promise<CSIStorageCapacity[]> {
  // A plain read of what is committed now (no list snapshot: nothing pages through it).
  return () => store.current('CSIStorageCapacity');
}

export function provisioningDeps(o: ProvisioningOptions): ProvisioningDeps {
  const log = o.log ?? logger.child({ component: 'provisioning' });
  const os = o.os ?? createRealOs(o.nodeName);
  const node = o.nodeName ?? os.hostname();
  const assets = new AssetStore(o.app.store);
  return {
    store: o.app.store,
    assets,
    plugins: o.plugins ?? createPlugins({ os, assets, nodeName: node, log, btrfs: { capacities: publishedCapacities(o.app.store), agentWaitMs: o.agentWaitMs } }),
    // Events of many reconciles share transactions (runtime/recorders.ts).
    events: (o.recorders ?? new EventRecorders(o.app.store, log)).for(persistentVolumeControllerComponent),
    log,
    node,
    saveAttempts: o.saveAttempts ?? 5,
    saveIntervalMs: o.saveIntervalMs ?? 1000,
    backgroundPollMs: o.backgroundPollMs ?? 5000,
    sweepGraceMs: o.sweepGraceMs ?? 60_000,
    saves: new TxBatcher(o.app.store, { maxBatch: 32, parallel: 2 }),
    restores: o.restores ?? storeRestores(o.app.store),
  };
}

/** The three controllers' specs, for a Manager of one's own (e.g. next to the binder). */
export function provisioningSpecs(
  d: ProvisioningDeps,
  o: Pick<ProvisioningOptions, 'retryBaseMs' | 'retryMaxMs' | 'resyncMs' | 'concurrency'> = {},
): ControllerSpec[] {
  const retry = { baseDelayMs: o.retryBaseMs, maxDelayMs: o.retryMaxMs, resyncMs: o.resyncMs, concurrency: o.concurrency };
  return [
    provisionerSpec(d, retry),
    deleterSpec(d, retry),
    pvProtectionSpec(d, { resyncMs: o.resyncMs }),
    expanderSpec(d, { resyncMs: o.resyncMs, baseDelayMs: o.retryBaseMs, maxDelayMs: o.retryMaxMs }),
    volumeUsageSpec(d),
    snapshotterSpec(d, { resyncMs: o.resyncMs, baseDelayMs: o.retryBaseMs, maxDelayMs: o.retryMaxMs }),
  ];
}

export async function startProvisioningControllers(o: StartProvisioningOptions): Promise<RunningProvisioning> {
  const d = provisioningDeps(o);
  const election = o.leaderElection ?? o.connectionString !== undefined;
  if (election && !o.connectionString) throw new Error('leader election needs the connection string of the database');
  const manager = new Manager({
    store: o.app.store,
    log: d.log,
    // Fresh specs each time this process starts leading: recovery runs again then.
    specs: () => provisioningSpecs(d, o),
    leaderElection: election
      ? {
          connectionString: o.connectionString!,
          lockName: o.lockName ?? 'stowage-provisioning',
          retryPeriodMs: o.retryPeriodMs,
          leaseDurationMs: o.leaseDurationMs,
        }
      : false,
  });
  await manager.start();
  return { manager, plugins: d.plugins, assets: d.assets, stop: () => manager.stop() };
}

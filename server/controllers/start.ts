// Starts Stowage's controllers on the shared runtime: inside `stowage start`, or alone
// with `stowage controllers`. With leader election (the default) only one process of many
// runs them; the others stand by and take over within seconds.
import { nearlyFullSpec } from './volume-usage/nearly-full';
import { EventRecorders } from './runtime/recorders';
import {
  backupTargetComponent,
  nodeLifecycleComponent,
  persistentVolumeControllerComponent,
  replicationComponent,
  schedulerComponent,
  snapshotControllerComponent,
  snapshotScheduleComponent,
  volumeBackupComponent,
  volumeUsageComponent,
} from '../domain/well-known/components';
import type { Services } from '../services/services';
import { logger } from '../services/logger';
import { createPlugins, thisNodeProvisionerNames } from '../provisioners/registry';
import { inTreeProvisionerNames } from '../domain/provisioner-capabilities';
import { btrfsProvisioner } from '../domain/well-known/provisioners';
import { claimRefKey, claimRefKeys } from '../domain/claim-ref';
import { podClaimNames } from '../domain/pod-claims';
import { createRealOs } from '../provisioners/os';
import { AssetStore } from '../store/provisioned-assets';
import { NodeAgentService } from '../services/node-agent';
import { binderSpec } from './binder/binder';
import { garbageCollectorSpec } from './garbage-collector/garbage-collector';
import { localVolumeManagerSpec, type LocalVolumeManagerOptions } from './local-volume/manager';
import { namespaceControllerSpec } from './namespace/namespace';
import { nodeLifecycleSpec, type NodeLifecycleOptions } from './node-lifecycle/node-lifecycle';
import { provisioningDeps, provisioningSpecs, publishedCapacities } from './provisioning-start';
import { placementSpec } from './placement/placement';
import { poolCapacitySpec } from './pool-capacity/pool-capacity';
import { pvcProtectionSpec } from './pvc-protection/pvc-protection';
import { resourceQuotaSpec } from './resource-quota/resource-quota';
import { snapshotControllerSpec } from './snapshot/snapshot';
import { snapshotScheduleSpec } from './snapshot-schedule/snapshot-schedule';
import { backupTargetSpec, type TargetReports } from './backup-target/backup-target';
import { volumeBackupSpec } from './volume-backup/volume-backup';
import { replicationSpec, type ReplicationOptions } from './replication/replication';
import type { DataJobQueue } from '../contracts/data-jobs';
import { installationId } from '../store/installation';
import { Manager } from './runtime/manager';
import type { KubeObject } from '../resources/types';
import { isKind } from '../resources/of-kind';
import { DataJobStore } from '../store/data-jobs';
import { TargetReports as TargetReportStore } from '../store/target-reports';
import { inBackground } from '../store/connection-lanes';

export interface StartControllersOptions {
  app: Services;
  /** The database, for the leader-election session. */
  connectionString: string;
  /** Default true. Tests turn it off to run several instances that really race. */
  leaderElection?: boolean;
  /** The most claims, volumes and pods (each) kept whole in memory (default DEFAULT_CACHE_OBJECTS). */
  cacheObjects?: number;
  /** Name of the leader lock (default "stowage-controllers"). */
  lockName?: string;
  retryPeriodMs?: number;
  leaseDurationMs?: number;
  /** Binder workers (default 256). */
  binderConcurrency?: number;
  /** How often the binder looks at Pending claims and unsettled volumes again (default 30 s). */
  binderResyncMs?: number;
  /** How long a claim that finds no volume waits before its explanation is written (ms). */
  pendingGraceMs?: number;
  /** Provisioner names with an in-tree plugin (default: the registry's). */
  inTreeProvisioners?: ReadonlySet<string>;
  /**
   * Also run the in-tree provisioners, the deleter and PV protection under the same
   * leader lock, making volumes on this node.
   */
  provisioning?: { nodeName: string };
  /** The local-volume manager (default on; `false` turns it off). */
  localVolumes?: LocalVolumeManagerOptions | false;
  /** The node lifecycle controller (default on, 40 s grace; `false` turns it off). */
  nodeLifecycle?: NodeLifecycleOptions | false;
  /** How long one call of the btrfs plugin waits for a node's agent (ms, default 10 s). */
  agentWaitMs?: number;
  /**
   * The backup controllers' ports: the data jobs and the agents' reports on the backup
   * targets (default: the store's, store/data-jobs.ts and store/target-reports.ts);
   * `false` turns the backup controllers off.
   */
  backups?: { jobs: DataJobQueue; reports: TargetReports } | false;
  /** The replication controller's timing (it runs with the backup controllers: both move data by data jobs). */
  replication?: ReplicationOptions;
}

/**
 * The kinds the controllers read most, answered from memory. Of the volumes only those
 * claimed (bound, or reserved by claimRef) and those not yet Available: those are read by
 * name on the hot paths, and a large pool of Available volumes then costs names, not objects.
 */
const CACHED_KINDS = {
  PersistentVolumeClaim: true,
  // The cache hands each kind's function only objects of that kind: isKind narrows, it never filters.
  // Whole: volumes reserved for a claim, and new ones until they are Available (the volume
  // controller reads each new volume once, right after its create). A pool of Available
  // volumes costs names only.
  PersistentVolume: (o: KubeObject) => isKind(o, 'PersistentVolume') && (Boolean(o.spec?.claimRef) || o.status?.phase !== 'Available'),
  StorageClass: true,
  Node: true,
  Pod: true,
} as const;

/**
 * How many claims, volumes and pods (each) are kept whole at most; past it the least
 * recently read or changed are kept by name (object-cache.ts), and past NAMES_KEPT names
 * not at all. A claim or volume kept whole costs 1.4-2.5 KB of heap (about 1.25 times its
 * JSON; a waiting claim with the binder's explanation is the largest): at a million claims
 * and a million volumes the cache holds about 100 MB of objects and 20 MB of names (at
 * 100,000 each it held 390 MB and 220 MB).
 */
export const DEFAULT_CACHE_OBJECTS = 25_000;

/**
 * Found by claim as well (ObjectStore.recentByIndex, key "namespace/claim"): volumes by the
 * claim they are reserved for (all such volumes are kept above), pods by the claims they name.
 */
const CACHE_INDEXES = {
  PersistentVolume: (o: KubeObject) => (isKind(o, 'PersistentVolume') ? claimRefKeys(o) : []),
  Pod: (o: KubeObject) => (isKind(o, 'Pod') ? podClaimNames(o).map((c) => claimRefKey(o.metadata.namespace ?? '', c)) : []),
};

export interface RunningControllers {
  manager: Manager;
  stop(): Promise<void>;
}

/** The in-tree plugins that act through node agents (no OS access of this process). */
function agentBackedPlugins(app: Services, agentWaitMs?: number) {
  const all = createPlugins({ os: createRealOs(''), assets: new AssetStore(app.store), nodeName: '', btrfs: { capacities: publishedCapacities(app.store), agentWaitMs } });
  return new Map([...all].filter(([name, p]) => name === btrfsProvisioner && p.agentBacked));
}

/**
 * Starts the controllers on the store's background pool (store/connection-lanes.ts): what
 * they and their cache read and write never takes a connection the API's requests need.
 */
export function startControllers(opts: StartControllersOptions): Promise<RunningControllers> {
  return inBackground(() => start(opts));
}

async function start(opts: StartControllersOptions): Promise<RunningControllers> {
  const { app } = opts;
  const log = logger.child({ component: 'controllers' });
  let installation: Promise<string> | undefined;
  // Made once in settings, read once per process.
  const backups = opts.backups === undefined ? { jobs: new DataJobStore(app.store), reports: new TargetReportStore(app.store) } : opts.backups;
  const thisInstallation = () => (installation ??= installationId(app.store).catch((e) => ((installation = undefined), Promise.reject(e))));
  // Every controller's Event recorder, one per component, made here once (runtime/recorders.ts).
  const recorders = new EventRecorders(app.store, log);
  const events = (component: string) => recorders.for(component);
  const manager = new Manager({
    store: app.store,
    log,
    specs: () => [
      binderSpec({
        store: app.store,
        log,
        events: events(persistentVolumeControllerComponent),
        concurrency: opts.binderConcurrency,
        pendingGraceMs: opts.pendingGraceMs,
        resyncMs: opts.binderResyncMs,
        inTreeProvisioners: opts.inTreeProvisioners ?? inTreeProvisionerNames,
      }),
      pvcProtectionSpec({ store: app.store }),
      namespaceControllerSpec({ store: app.store }),
      garbageCollectorSpec({ store: app.store, log }),
      poolCapacitySpec({ store: app.store, log }),
      resourceQuotaSpec({ store: app.store }),
      snapshotControllerSpec({ store: app.store, log, events: events(snapshotControllerComponent) }),
      snapshotScheduleSpec({ store: app.store, log, events: events(snapshotScheduleComponent) }),
      ...(backups
        ? [
            volumeBackupSpec({ store: app.store, log, events: events(volumeBackupComponent), jobs: backups.jobs, installation: thisInstallation }),
            backupTargetSpec({ store: app.store, log, events: events(backupTargetComponent), reports: backups.reports, installation: thisInstallation }),
            replicationSpec({ store: app.store, log, events: events(replicationComponent), jobs: backups.jobs }, opts.replication),
          ]
        : []),
      placementSpec({
        store: app.store,
        log,
        events: events(schedulerComponent),
        nodeLocalProvisioners: opts.provisioning
          ? { names: thisNodeProvisionerNames, node: opts.provisioning.nodeName }
          : undefined,
      }),
      ...(opts.localVolumes === false ? [] : [localVolumeManagerSpec({ store: app.store, agents: app.nodeAgent ?? new NodeAgentService(app.store), log, recorders }, opts.localVolumes)]),
      ...(opts.nodeLifecycle === false ? [] : [nodeLifecycleSpec({ store: app.store, log, events: events(nodeLifecycleComponent) }, opts.nodeLifecycle)]),
      nearlyFullSpec({ store: app.store, settings: app.settings, events: events(volumeUsageComponent), log }),
      // Fresh provisioning specs each time this process starts leading: recovery runs then.
      ...(opts.provisioning
        ? provisioningSpecs(provisioningDeps({ app, nodeName: opts.provisioning.nodeName, agentWaitMs: opts.agentWaitMs, recorders }))
        : // No node of its own: only the agent-backed plugin (btrfs pools), which acts on any node through its agent.
          provisioningSpecs(provisioningDeps({ app, nodeName: '', plugins: agentBackedPlugins(app, opts.agentWaitMs), recorders }))),
    ],
    leaderElection:
      opts.leaderElection === false
        ? false
        : {
            connectionString: opts.connectionString,
            lockName: opts.lockName ?? 'stowage-controllers',
            retryPeriodMs: opts.retryPeriodMs,
            leaseDurationMs: opts.leaseDurationMs,
          },
  });
  // The objects reconciles read again and again, kept in memory (ObjectStore.recent).
  const most = opts.cacheObjects ?? DEFAULT_CACHE_OBJECTS;
  const forget = await app.store.keepInMemory(CACHED_KINDS, { indexes: CACHE_INDEXES, limits: { PersistentVolumeClaim: most, PersistentVolume: most, Pod: most } });
  try {
    await manager.start();
  } catch (err) {
    await forget();
    throw err;
  }
  return {
    manager,
    stop: async () => {
      await manager.stop();
      await forget();
    },
  };
}

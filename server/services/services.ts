// Every service of a running Stowage, composed once over one store. The transports (tRPC,
// the Kubernetes API, the web server) and the controllers take their services from here;
// none builds one per request. The composition root (server/wiring/context.ts) opens the
// store and supplies what only it may know: the real OS for admission, and the config.
import type { SignInLimits } from '../domain/sign-in-limits';
import type { Admission } from '../resources/types';
import type { ObjectStore } from '../store/object-store';
import { CapacityService } from './capacity';
import { ClaimCheckService } from './claim-check';
import { ClaimDoctorService } from './claim-doctor';
import { ClassReplaceService } from './class-replace';
import { DependentsService } from './dependents';
import { HealthService } from './health';
import { HistoryService } from './history';
import { ListService } from './lists';
import { LocalVolumeService } from './local-volumes';
import { NodeAgentService, type NodeAgentOptions } from './node-agent';
import { BackupService } from './backups';
import { ReplicationService } from './replication';
import { ObjectService } from './objects';
import { ReclaimService } from './reclaim';
import { SnapshotService } from './snapshots';
import { SettingsService } from './settings';
import { UserAdminService } from './user-admin';
import { UserService } from './users';

export interface Services {
  store: ObjectStore;
  objects: ObjectService;
  /** Backup targets' names for the backup form, and verify requests. */
  backups: BackupService;
  lists: ListService;
  claims: ClaimCheckService;
  users: UserService;
  /** The dashboard's users and tokens page: who may manage whom, secrets shown once. */
  userAdmin: UserAdminService;
  /** Object timelines and the audit log. */
  history: HistoryService;
  /** The node agents' side: tokens, discovery reports, cleanup jobs. */
  nodeAgent: NodeAgentService;
  /** StorageClass "Replace in place", with the same admission as `objects`. */
  classes: ClassReplaceService;
  capacity: CapacityService;
  /** The claim page's doctor: capacity, fixes with preview and apply. */
  claimDoctor: ClaimDoctorService;
  localVolumes: LocalVolumeService;
  /** The reclaim center. */
  reclaim: ReclaimService;
  /** /livez, /readyz and /healthz of both listeners. */
  health: HealthService;
  /** Take a snapshot now, save a claim's schedule, the default snapshot class. */
  snapshots: SnapshotService;
  /** Settings administrators change in the dashboard (the "claim nearly full" threshold). */
  settings: SettingsService;
  /** Replicated pool volumes: node drain (preview, apply) and uncordon. */
  replication: ReplicationService;
  /** What names a class or a backup target, for its delete dialog. */
  dependents: DependentsService;
}

export interface ServicesConfig {
  /** Extra checks of every object write (the in-tree provisioners' StorageClass checks). */
  admission?: Admission;
  signInLimits?: SignInLimits;
  agentOptions?: NodeAgentOptions;
  /** The node this process's in-tree provisioners make volumes on (for the claim check). */
  nodeName?: string;
  /** The process is starting: /readyz fails until `health.markStarted()`. */
  starting?: boolean;
  /** The "claim nearly full" threshold until an administrator sets one (STOWAGE_NEARLY_FULL_PERCENT). */
  nearlyFullPercent?: number;
}

export function buildServices(store: ObjectStore, config: ServicesConfig = {}): Services {
  const objects = new ObjectService(store, config.admission);
  const lists = new ListService(store);
  const nodeAgent = new NodeAgentService(store, config.agentOptions);
  const localVolumes = new LocalVolumeService(store, nodeAgent);
  const users = new UserService(store, config.signInLimits);
  const settings = new SettingsService(store, config.nearlyFullPercent);
  return {
    store,
    objects,
    lists,
    claims: new ClaimCheckService(store, config.nodeName),
    users,
    userAdmin: new UserAdminService(store, users),
    history: new HistoryService(store, objects),
    nodeAgent,
    classes: new ClassReplaceService(store, config.admission),
    capacity: new CapacityService(store, settings),
    claimDoctor: new ClaimDoctorService(objects),
    localVolumes,
    reclaim: new ReclaimService(objects, lists, localVolumes),
    health: new HealthService(store, { starting: config.starting }),
    snapshots: new SnapshotService(store, objects),
    backups: new BackupService(store, objects),
    settings,
    replication: new ReplicationService(store),
    dependents: new DependentsService(store),
  };
}

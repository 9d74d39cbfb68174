// Everything a running Stowage process shares: the database, the store and the services.
import { NodeAgentService, type NodeAgentOptions } from '../services/node-agent';
import { storageClassAdmission } from '../provisioners/admission';
import { createRealOs } from '../provisioners/os';
import { ClaimCheckService } from '../services/claim-check';
import { ClassReplaceService } from '../services/class-replace';
import { HistoryService } from '../services/history';
import { ListService } from '../services/lists';
import { ObjectService } from '../services/objects';
import { loadSignInLimits } from './config';
import { UserService } from '../services/users';
import { ObjectStore } from '../store/object-store';

export interface AppContext {
  store: ObjectStore;
  objects: ObjectService;
  lists: ListService;
  claims: ClaimCheckService;
  users: UserService;
  /** Object timelines and the audit log. */
  history: HistoryService;
  /** The node agents' side: tokens, discovery reports, cleanup jobs. */
  nodeAgent: NodeAgentService;
  /** StorageClass "Replace in place", with the same admission as `objects`. */
  classes: ClassReplaceService;
  close(): Promise<void>;
}

/** `nodeName`: the node this process's in-tree provisioners make volumes on (for the claim check). */
export async function createAppContext(
  connectionString: string,
  poolSize = 10,
  agentOptions: NodeAgentOptions = {},
  nodeName?: string,
): Promise<AppContext> {
  const store = new ObjectStore(connectionString, poolSize);
  await store.start();
  // StorageClasses of the in-tree provisioners are checked against this machine's disks.
  const admission = storageClassAdmission(createRealOs());
  const objects = new ObjectService(store, admission);
  return {
    store,
    objects,
    history: new HistoryService(store, objects),
    lists: new ListService(store),
    claims: new ClaimCheckService(store, nodeName),
    users: new UserService(store, loadSignInLimits()),
    nodeAgent: new NodeAgentService(store, agentOptions),
    classes: new ClassReplaceService(store, admission),
    close: async () => {
      await store.stop();
    },
  };
}

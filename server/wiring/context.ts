// The composition root's services: opens the store and composes every service over it
// (services/services.ts) with what only the running process knows: the machine's disks
// for the in-tree provisioners' StorageClass checks, and the sign-in limits from the
// environment.
import { storageClassAdmission } from '../provisioners/admission';
import { createRealOs } from '../provisioners/os';
import type { NodeAgentOptions } from '../services/node-agent';
import { buildServices, type Services } from '../services/services';
import { ObjectStore } from '../store/object-store';
import { loadNearlyFullPercent, loadSignInLimits } from './config';

/** Everything a running Stowage process shares: the store and the services over it. */
export interface AppContext extends Services {
  close(): Promise<void>;
}

/**
 * `nodeName`: the node this process's in-tree provisioners make volumes on (for the claim
 * check). The store's pools keep their default size (store/connection-lanes.ts).
 */
export async function createAppContext(
  connectionString: string,
  agentOptions: NodeAgentOptions = {},
  nodeName?: string,
  /** Serving: /readyz fails until the caller's `health.markStarted()`. */
  starting = false,
): Promise<AppContext> {
  const store = new ObjectStore(connectionString);
  await store.start();
  // StorageClasses of the in-tree provisioners are checked against this machine's disks.
  const admission = storageClassAdmission(createRealOs());
  return {
    ...buildServices(store, { admission, signInLimits: loadSignInLimits(), agentOptions, nodeName, starting, nearlyFullPercent: loadNearlyFullPercent() }),
    close: () => store.stop(),
  };
}

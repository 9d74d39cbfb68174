// An AppContext over a test database, for tests of services and transports.
import type { AppContext } from '../server/app/context';
import { ClaimCheckService } from '../server/services/claim-check';
import { ListService } from '../server/services/lists';
import { NodeAgentService, type NodeAgentOptions } from '../server/services/node-agent';
import { ObjectService } from '../server/services/objects';
import { UserService } from '../server/services/users';
import { openTestStore } from './db';

export async function openTestApp(agentOptions: NodeAgentOptions = {}): Promise<AppContext & { url: string }> {
  const t = await openTestStore();
  return {
    url: t.url,
    db: t.db,
    store: t.store,
    objects: new ObjectService(t.store),
    lists: new ListService(t.store),
    claims: new ClaimCheckService(t.store, 'node-1'),
    users: new UserService(t.db),
    nodeAgent: new NodeAgentService(t.store, agentOptions),
    close: t.close,
  };
}

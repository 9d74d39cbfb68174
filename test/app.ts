// An AppContext over a test database, for tests of services and transports.
import type { AppContext } from '../server/app/context';
import { ClaimCheckService } from '../server/services/claim-check';
import { ClassReplaceService } from '../server/services/class-replace';
import { HistoryService } from '../server/services/history';
import { ListService } from '../server/services/lists';
import { NodeAgentService, type NodeAgentOptions } from '../server/services/node-agent';
import { ObjectService } from '../server/services/objects';
import { UserService } from '../server/services/users';
import { openTestStore } from './db';

export async function openTestApp(agentOptions: NodeAgentOptions = {}): Promise<AppContext & { url: string }> {
  const t = await openTestStore();
  const objects = new ObjectService(t.store);
  return {
    url: t.url,
    store: t.store,
    objects,
    history: new HistoryService(t.store, objects),
    lists: new ListService(t.store),
    claims: new ClaimCheckService(t.store, 'node-1'),
    users: new UserService(t.store),
    nodeAgent: new NodeAgentService(t.store, agentOptions),
    classes: new ClassReplaceService(t.store),
    close: t.close,
  };
}

// An AppContext over a test database, for tests of services and transports.
import type { AppContext } from '../server/app/context';
import type { NodeAgentOptions } from '../server/services/node-agent';
import { buildServices } from '../server/services/services';
import { openTestStore } from './db';

export async function openTestApp(agentOptions: NodeAgentOptions = {}): Promise<AppContext & { url: string }> {
  const t = await openTestStore();
  return {
    url: t.url,
    ...buildServices(t.store, { agentOptions, nodeName: 'node-1' }),
    close: t.close,
  };
}

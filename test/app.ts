// An AppContext over a test database, for tests of services and transports.
import type { AppContext } from '../server/wiring/context';
import type { NodeAgentOptions } from '../server/services/node-agent';
import { buildServices } from '../server/services/services';
import { openTestStore } from './db';

/** A test app on a database of its own, or on `url` (a second replica of the same database). */
export async function openTestApp(agentOptions: NodeAgentOptions = {}, url?: string): Promise<AppContext & { url: string }> {
  const t = await openTestStore(url);
  return {
    url: t.url,
    ...buildServices(t.store, { agentOptions, nodeName: 'node-1' }),
    close: t.close,
  };
}

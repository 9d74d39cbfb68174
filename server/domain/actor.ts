// Who made a change, as the history table records it: `user:alice` (the dashboard, or any
// session), `token:alice/ci` (an API token of alice named ci), `controller:binder`,
// `agent:node-1` (a node agent's token), or `system` when no one is known (startup
// bootstrap, tools, tests that write to the store directly).
import type { UserPrincipal } from './authorization';

export const SYSTEM_ACTOR = 'system';

/** The actor of a user's request: a session acts as the user; an API token is named. */
export function actorOfPrincipal(p: Pick<UserPrincipal, 'name'> & { token?: string }): string {
  return p.token !== undefined ? `token:${p.name}/${p.token || 'unnamed'}` : `user:${p.name}`;
}

export function controllerActor(name: string): string {
  return `controller:${name}`;
}

export function agentActor(nodeName: string): string {
  return `agent:${nodeName}`;
}

export type ActorType = 'user' | 'token' | 'controller' | 'agent' | 'system';

/** The type and the name of an actor string (`user:alice` -> user, alice). */
export function parseActor(actor: string): { type: ActorType; name: string } {
  const i = actor.indexOf(':');
  const type = i > 0 ? actor.slice(0, i) : '';
  if (type === 'user' || type === 'token' || type === 'controller' || type === 'agent') return { type, name: actor.slice(i + 1) };
  return { type: 'system', name: actor };
}

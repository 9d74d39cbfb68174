// An authorization refusal as a person reads it. The API answers with upstream's RBAC words
// ('persistentvolumes "pv-1" is forbidden: User "dev" cannot delete resource
// "persistentvolumes" in API group "" at the cluster scope') so kubectl and scripts see what
// Kubernetes says; the dashboard says the same without the API's vocabulary ("Your account
// (dev) may not delete volumes: only an administrator can."), the exact text kept for a
// tooltip. Pure.
import { strategyForResource } from '@/server/resources/registry';
import { KINDS } from '../objects/kinds';

const RBAC = /^(?:(\S+?)(?: "([^"]*)")? is forbidden: )?User "([^"]*)" cannot (\S+) resource "([^"]+)" in API group "([^"]*)" (at the cluster scope|in the namespace "([^"]*)")$/;
/** A message longer than this is shown as it is rather than read. */
const MAX_MESSAGE = 2000;

const VERBS: Record<string, string> = {
  get: 'open',
  list: 'list',
  watch: 'watch',
  create: 'create',
  update: 'change',
  patch: 'change',
  delete: 'delete',
  deletecollection: 'delete',
};

/** The dashboard's word for a resource: "volumes" for persistentvolumes, else the resource itself. */
function nounOf(resource: string, group: string): string {
  const kind = strategyForResource(group, resource)?.kind;
  return KINDS.find((k) => k.kind === kind)?.noun ?? resource;
}

export interface ForbiddenRefusal {
  user: string;
  verb: string;
  resource: string;
  group: string;
  name?: string;
  /** Absent: the cluster scope. */
  namespace?: string;
}

export function parseForbidden(message: string): ForbiddenRefusal | undefined {
  if (message.length > MAX_MESSAGE) return undefined;
  const m = RBAC.exec(message.trim());
  if (!m) return undefined;
  const [, , name, user, verb, resource, group, , namespace] = m;
  return { user, verb, resource, group, ...(name ? { name } : {}), ...(namespace !== undefined ? { namespace } : {}) };
}

/** "Your account (dev) may not delete volumes in the namespace team-b." */
export function forbiddenText(r: ForbiddenRefusal): string {
  const verb = Object.hasOwn(VERBS, r.verb) ? VERBS[r.verb] : r.verb;
  const what = nounOf(r.resource, r.group);
  const where = r.namespace !== undefined ? ` in the namespace ${r.namespace}` : '';
  const who = r.user ? `Your account (${r.user})` : 'Your account';
  const scope = r.namespace === undefined ? ': only an administrator can' : ': ask an administrator for access';
  return `${who} may not ${verb} ${what}${where}${scope}.`;
}

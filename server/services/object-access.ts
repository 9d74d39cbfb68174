// Who may do what with objects, shared by every service that reads or writes them: the
// kind's strategy by name (404 for an unknown kind), the namespace a check is made in, the
// Forbidden answer in upstream's words, and what a principal may see of objects.
import { isAllowed, visibleNamespaces, type Principal, type Verb } from '../domain/authorization';
import { qualifiedResource, StowageError } from '../domain/errors';
import type { Reader } from '../domain/redaction';
import { strategyForKind } from '../resources/registry';
import type { Strategy } from '../resources/types';

export function strategyOrThrow(kind: string): Strategy {
  const s = strategyForKind(kind);
  if (!s) throw new StowageError('NotFound', `the server could not find the requested resource (kind "${kind}")`);
  return s;
}

/** The namespace authorization is checked against: a Namespace object is its own. */
export function scopeOf(s: Strategy, namespace: string | undefined, name?: string): string | undefined {
  if (s.kind === 'Namespace') return name;
  return s.namespaced ? namespace : undefined;
}

export function forbidden(p: Principal, verb: Verb | 'deletecollection', s: Strategy, namespace?: string, name?: string): StowageError {
  const group = s.group;
  const where = s.namespaced && namespace ? `in the namespace "${namespace}"` : 'at the cluster scope';
  const resource = qualifiedResource(s.plural, s.group);
  const subject = name ? `${resource} "${name}"` : resource;
  return new StowageError(
    'Forbidden',
    `${subject} is forbidden: User "${p.name}" cannot ${verb} resource "${s.plural}" in API group "${group}" ${where}`,
    { kind: s.plural, name, group },
  );
}

/** What `p` may see of objects: the input of the one redaction every read goes through. */
export function readerOf(p: Principal): Reader {
  const claims = visibleNamespaces(p, 'list', 'PersistentVolumeClaim');
  return { secrets: p.role === 'admin', volumes: isAllowed(p, 'list', 'PersistentVolume'), namespaces: claims };
}

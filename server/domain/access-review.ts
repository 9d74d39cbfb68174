// `kubectl auth can-i` and `kubectl auth whoami`: the answers of SelfSubjectAccessReview and
// SelfSubjectReview, computed from the same rule every request is checked against
// (authorization.ts), so what the API says a user may do is what it lets them do.
import { isAllowed, VERBS, type Principal, type Verb } from './authorization';

export interface ResourceAttributes {
  namespace?: string;
  verb?: string;
  group?: string;
  resource?: string;
  subresource?: string;
  name?: string;
}

export interface NonResourceAttributes {
  path?: string;
  verb?: string;
}

/** A kind as the review names it: its API group and plural. */
export interface ReviewedKind {
  kind: string;
  namespaced: boolean;
}

export interface AccessDecision {
  allowed: boolean;
  reason?: string;
}

/** Paths every signed-in principal may GET (discovery, health, version, OpenAPI). */
const PUBLIC_PATHS = ['/api', '/apis', '/version', '/healthz', '/livez', '/readyz', '/openapi'];

function underPublicPath(path: string): boolean {
  return PUBLIC_PATHS.some((p) => path === p || path.startsWith(`${p}/`));
}

export function reviewNonResource(attrs: NonResourceAttributes): AccessDecision {
  const verb = (attrs.verb ?? '').toLowerCase();
  const path = attrs.path ?? '';
  if (verb === 'get' && underPublicPath(path)) return { allowed: true, reason: 'discovery and health paths are open to every signed-in user' };
  return { allowed: false };
}

/**
 * May `p` do `attrs.verb` on `attrs.resource`? `kind` is undefined when Stowage does not
 * serve the resource. Verb "*" asks for every verb; "deletecollection" is a delete of many.
 */
export function reviewResource(p: Principal, attrs: ResourceAttributes, kind: ReviewedKind | undefined): AccessDecision {
  const verb = (attrs.verb ?? '').toLowerCase();
  const resource = attrs.resource ?? '';
  if (!kind) {
    return { allowed: false, reason: resource === '*' ? 'Stowage answers for one resource at a time' : `the server does not serve ${resource || 'that resource'}` };
  }
  const namespace = kind.namespaced && attrs.namespace ? attrs.namespace : undefined;
  let verbs: Verb[];
  if (verb === '*') verbs = [...VERBS];
  else if (verb === 'deletecollection') verbs = ['delete'];
  else if ((VERBS as readonly string[]).includes(verb)) verbs = [verb as Verb];
  else return { allowed: false, reason: `unknown verb ${JSON.stringify(attrs.verb ?? '')}` };
  const allowed = verbs.every((v) => isAllowed(p, v, kind.kind, namespace, attrs.subresource || undefined));
  if (allowed) return { allowed, reason: `role ${p.role} allows it` };
  return { allowed, reason: `role ${p.role} does not allow ${verb} on ${resource}${namespace ? ` in namespace ${namespace}` : ''}` };
}

/** The groups a principal is reported in (SelfSubjectReview, TokenReview-style). */
export function groupsOf(p: Principal): string[] {
  return [`stowage:${p.role}s`, 'system:authenticated'];
}

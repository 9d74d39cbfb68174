// From a URL path to what it names: a discovery document, or a resource (collection,
// object or subresource, possibly in a namespace, possibly under the legacy /watch/ prefix).
import { strategies } from '../resources/registry';
import type { Strategy } from '../resources/types';

export type Route =
  | { type: 'health' }
  | { type: 'version' }
  | { type: 'api' }
  | { type: 'apis' }
  | { type: 'group'; group: string }
  | { type: 'groupVersion'; group: string; version: string }
  | { type: 'openapi'; version: 'v2' | 'v3' }
  | {
      type: 'resource';
      strategy: Strategy;
      /** Set for namespaced kinds under /namespaces/{ns}/; undefined means all namespaces. */
      namespace?: string;
      name?: string;
      subresource?: string;
      /** The legacy /watch/ path prefix was used. */
      watchPath: boolean;
    }
  /** SelfSubjectAccessReview / SelfSubjectReview: create-only questions about the caller. */
  | { type: 'review'; review: ReviewResource }
  | { type: 'notFound' };

/** Resources that are questions, not stored objects: `kubectl auth can-i` and `kubectl auth whoami`. */
export interface ReviewResource {
  group: string;
  version: string;
  plural: string;
  kind: 'SelfSubjectAccessReview' | 'SelfSubjectReview';
}

export const REVIEW_RESOURCES: readonly ReviewResource[] = [
  { group: 'authorization.k8s.io', version: 'v1', plural: 'selfsubjectaccessreviews', kind: 'SelfSubjectAccessReview' },
  { group: 'authentication.k8s.io', version: 'v1', plural: 'selfsubjectreviews', kind: 'SelfSubjectReview' },
];

export const SERVED_GROUPS: { group: string; version: string }[] = [
  ...new Set([...strategies.map((s) => s.group), ...REVIEW_RESOURCES.map((r) => r.group)]),
]
  .filter((g) => g !== '')
  .map((group) => ({ group, version: 'v1' }));

function strategyFor(group: string, version: string, plural: string): Strategy | undefined {
  return strategies.find((s) => s.group === group && s.version === version && s.plural === plural);
}

function decode(seg: string): string | undefined {
  try {
    return decodeURIComponent(seg);
  } catch {
    return undefined;
  }
}

export function route(pathname: string): Route {
  const raw = pathname.replace(/\/+$/, '').split('/').slice(1);
  const segs: string[] = [];
  for (const s of raw) {
    const d = decode(s);
    if (d === undefined || d === '' || d.includes('\0')) return { type: 'notFound' };
    segs.push(d);
  }
  const p = segs.join('/');
  if ((segs[0] === 'healthz' || segs[0] === 'livez' || segs[0] === 'readyz') && segs.length <= 2) return { type: 'health' };
  if (p === 'version') return { type: 'version' };
  if (p === 'openapi/v2' || p === 'swagger.json') return { type: 'openapi', version: 'v2' };
  if (p === 'openapi/v3' || p.startsWith('openapi/v3/')) return { type: 'openapi', version: 'v3' };
  if (p === 'api') return { type: 'api' };
  if (p === 'apis') return { type: 'apis' };

  let group: string;
  let version: string;
  let rest: string[];
  if (segs[0] === 'api' && segs.length >= 2) {
    group = '';
    version = segs[1];
    rest = segs.slice(2);
    if (version !== 'v1') return { type: 'notFound' };
  } else if (segs[0] === 'apis' && segs.length >= 2) {
    group = segs[1];
    if (!SERVED_GROUPS.some((g) => g.group === group)) return { type: 'notFound' };
    if (segs.length === 2) return { type: 'group', group };
    version = segs[2];
    rest = segs.slice(3);
    if (!SERVED_GROUPS.some((g) => g.group === group && g.version === version)) return { type: 'notFound' };
  } else {
    return { type: 'notFound' };
  }
  if (rest.length === 0) return { type: 'groupVersion', group, version };

  const watchPath = rest[0] === 'watch';
  if (watchPath) rest = rest.slice(1);
  let namespace: string | undefined;
  // /namespaces/{ns}/{resource}...; but in the core group /namespaces/{name}[/status] is the Namespace itself.
  if (rest[0] === 'namespaces' && rest.length >= 3 && (group !== '' || (rest[2] !== 'status' && rest[2] !== 'finalize'))) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [plural, name, subresource, ...extra] = rest;
  if (extra.length > 0) return { type: 'notFound' };
  const review = REVIEW_RESOURCES.find((x) => x.group === group && x.version === version && x.plural === plural);
  if (review) return name === undefined && namespace === undefined && !watchPath ? { type: 'review', review } : { type: 'notFound' };
  const strategy = strategyFor(group, version, plural);
  if (!strategy) return { type: 'notFound' };
  if (namespace !== undefined && !strategy.namespaced) return { type: 'notFound' };
  if (!strategy.namespaced || namespace !== undefined) {
    // fine: cluster-scoped, or namespaced within a namespace
  } else if (name !== undefined) {
    // A namespaced object must be named within its namespace.
    return { type: 'notFound' };
  }
  const served = (subresource === 'status' && strategy.hasStatus) || (subresource === 'finalize' && strategy.kindFinalizers !== undefined);
  if (subresource !== undefined && !served) return { type: 'notFound' };
  if (watchPath && subresource !== undefined) return { type: 'notFound' };
  return { type: 'resource', strategy, namespace, name, subresource, watchPath };
}

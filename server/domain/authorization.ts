// Who may do what: a pure decision over a principal, a verb, a kind and a namespace.
// Services call it for every request, so every transport enforces the same rules.

export type Role = 'admin' | 'developer' | 'viewer';
export const ROLES: readonly Role[] = ['admin', 'developer', 'viewer'];

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete';
export const VERBS: readonly Verb[] = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];
const READ: ReadonlySet<Verb> = new Set(['get', 'list', 'watch']);

export interface UserPrincipal {
  type: 'user';
  id: string;
  name: string;
  role: Role;
  /** Namespaces a developer belongs to (ignored for admin and viewer). */
  namespaces: string[];
  /** The name of the API token the request came with (absent for sessions): history's actor. */
  token?: string;
}

export type Principal = UserPrincipal;

/**
 * What a developer may do with each kind (admins may do everything, viewers read what is
 * not admin-only). Every kind Stowage serves has a row: the registry-completeness test
 * fails for a kind without one.
 * - own-namespace: read and write in their namespaces; status subresource read-only
 * - own-namespace-read: read in their namespaces (quotas, events are the controllers' and admins')
 * - own-namespace-object: read the Namespace objects of their namespaces
 * - cluster-read: read across the cluster (StorageClasses)
 * - none: no access (cluster objects such as volumes and nodes are the admins')
 * - admin-only: only admins, not even viewers (may hold secrets)
 */
export type DeveloperAccess = 'own-namespace' | 'own-namespace-read' | 'own-namespace-object' | 'cluster-read' | 'none' | 'admin-only';

export const KIND_ACCESS: Readonly<Record<string, DeveloperAccess>> = {
  PersistentVolumeClaim: 'own-namespace',
  Pod: 'own-namespace',
  Event: 'own-namespace-read',
  ResourceQuota: 'own-namespace-read',
  Namespace: 'own-namespace-object',
  StorageClass: 'cluster-read',
  PersistentVolume: 'none',
  Node: 'none',
  CSIStorageCapacity: 'none',
  Secret: 'admin-only',
  ConfigMap: 'admin-only',
  // Developers snapshot and restore the claims of their namespaces. Classes are written by
  // admins and read by everyone, as StorageClasses (a developer picks one; secret parameters
  // are redacted); contents are the admin's alone (they name other namespaces' snapshots).
  VolumeSnapshot: 'own-namespace',
  VolumeSnapshotContent: 'none',
  VolumeSnapshotClass: 'cluster-read',
  // Scheduled snapshots of their claims: as VolumeSnapshots.
  SnapshotSchedule: 'own-namespace',
  // Backups of their claims: as VolumeSnapshots. Targets name paths on the nodes: the
  // admins' alone (developers learn targets' names and readiness through the backup form).
  VolumeBackup: 'own-namespace',
  BackupTarget: 'admin-only',
};

/** Kinds only admins (and the controllers, internally) may read or write. */
export const ADMIN_ONLY_KINDS: ReadonlySet<string> = new Set(
  Object.entries(KIND_ACCESS).filter(([, a]) => a === 'admin-only').map(([k]) => k),
);

/**
 * A node agent (a node token): it acts only for its own node, and only through the agent
 * API; every other API answers it 403.
 */
export interface NodePrincipal {
  type: 'node';
  /** The node the token was issued for. */
  nodeName: string;
}

/** May a node agent act for `nodeName`? Only for its own node. */
export function nodeMayActFor(p: NodePrincipal, nodeName: string): boolean {
  return p.nodeName === nodeName;
}

/**
 * May `p` do `verb` on objects of `kind` in `namespace` (on their `subresource`, e.g.
 * "status")? For namespaced kinds, an undefined namespace means "across all namespaces".
 */
export function isAllowed(p: Principal, verb: Verb, kind: string, namespace?: string, subresource?: string): boolean {
  if (p.role === 'admin') return true;
  if (ADMIN_ONLY_KINDS.has(kind)) return false;
  if (p.role === 'viewer') return READ.has(verb);
  // developer
  const inOwn = namespace !== undefined && p.namespaces.includes(namespace);
  switch (Object.hasOwn(KIND_ACCESS, kind) ? KIND_ACCESS[kind] : 'none') {
    case 'own-namespace':
      // Status belongs to the controllers: a developer reads it, never writes it.
      return inOwn && (subresource === undefined || READ.has(verb));
    case 'own-namespace-read':
      return inOwn && READ.has(verb);
    case 'own-namespace-object':
      // Their own namespace objects (namespace = its name).
      return READ.has(verb) && inOwn;
    case 'cluster-read':
      return READ.has(verb);
    default:
      return false;
  }
}

/**
 * May `p` read the process metrics (`/metrics`)? They describe the whole installation
 * (every controller's queue, errors, request counts), so only principals who may read
 * everything: admins and viewers (upstream grants `get` on the nonResource URL /metrics
 * to cluster-wide readers such as system:monitoring). Nobody unauthenticated.
 */
export function mayReadMetrics(p: Principal | undefined): boolean {
  return p !== undefined && (p.role === 'admin' || p.role === 'viewer');
}

/**
 * For a list or watch across all namespaces: the namespaces whose objects `p` may
 * see, or 'all'. A developer sees only their own; nothing is an error.
 */
export function visibleNamespaces(p: Principal, verb: Verb, kind: string): 'all' | string[] {
  if (p.role === 'admin' || p.role === 'viewer') return isAllowed(p, verb, kind) ? 'all' : [];
  return p.namespaces.filter((ns) => isAllowed(p, verb, kind, ns));
}

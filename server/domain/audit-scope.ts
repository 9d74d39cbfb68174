// Which history rows a principal may read, from the same rules as every read
// (authorization.ts): a row is visible when its object is. The result is what the store's
// audit query filters on, so paging and counts never include a hidden row. Pure.
import { isAllowed, visibleNamespaces, type Principal } from './authorization';

export interface KindInfo {
  kind: string;
  namespaced: boolean;
}

export interface AuditScope {
  /** Every row (admins). */
  all: boolean;
  /** Kinds visible in every namespace (and cluster-scoped kinds the principal may list). */
  kinds: string[];
  /** Namespaced kinds visible only in some namespaces. */
  inNamespaces: { kind: string; namespaces: string[] }[];
  /** Namespace objects visible by name (a developer's own namespaces). */
  namespaceNames: string[];
}

export function auditScope(p: Principal, kinds: readonly KindInfo[]): AuditScope {
  const scope: AuditScope = { all: p.role === 'admin', kinds: [], inNamespaces: [], namespaceNames: [] };
  if (scope.all) return scope;
  for (const k of kinds) {
    if (k.kind === 'Namespace') {
      const names = visibleNamespaces(p, 'list', k.kind);
      if (names === 'all') scope.kinds.push(k.kind);
      else scope.namespaceNames.push(...names);
      continue;
    }
    if (isAllowed(p, 'list', k.kind)) {
      scope.kinds.push(k.kind);
      continue;
    }
    if (!k.namespaced) continue;
    const ns = visibleNamespaces(p, 'list', k.kind);
    if (ns === 'all') scope.kinds.push(k.kind);
    else if (ns.length > 0) scope.inNamespaces.push({ kind: k.kind, namespaces: ns });
  }
  return scope;
}

/** Whether one row (kind, namespace, name) is inside the scope: the same test as the query's. */
export function inScope(scope: AuditScope, row: { kind: string; namespace: string; name: string }): boolean {
  if (scope.all || scope.kinds.includes(row.kind)) return true;
  if (row.kind === 'Namespace') return scope.namespaceNames.includes(row.name);
  return scope.inNamespaces.some((s) => s.kind === row.kind && s.namespaces.includes(row.namespace));
}

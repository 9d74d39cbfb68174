'use client';
// Who is signed in, and what they may do (the same pure rule the server enforces).
import { useQuery } from '@tanstack/react-query';
import { createContext, useContext, type ReactNode } from 'react';
import { isAllowed, visibleNamespaces, type Principal, type Role, type Verb } from '@/server/domain/authorization';
import { useTRPC } from '../data/trpc';

export interface Me {
  name: string;
  role: Role;
  namespaces: string[];
}

export function useMeQuery() {
  const trpc = useTRPC();
  return useQuery({ ...trpc.auth.me.queryOptions(), staleTime: 60_000 });
}

const MeContext = createContext<Me | null>(null);

export function MeProvider({ me, children }: { me: Me; children: ReactNode }) {
  return <MeContext.Provider value={me}>{children}</MeContext.Provider>;
}

/** The signed-in user; only inside the shell, which renders nothing until it knows. */
export function useMe(): Me {
  const me = useContext(MeContext);
  if (!me) throw new Error('useMe outside the signed-in shell');
  return me;
}

function principalOf(me: Me): Principal {
  return { type: 'user', id: me.name, name: me.name, role: me.role, namespaces: me.namespaces };
}

export interface Permissions {
  can(verb: Verb, kind: string, namespace?: string): boolean;
  /** May the user list this kind anywhere at all (nav entries). */
  canListSomewhere(kind: string, namespaced: boolean): boolean;
  /** Namespaces where the user may do `verb` on `kind`, or 'all'. */
  namespacesFor(verb: Verb, kind: string): 'all' | string[];
}

export function permissionsOf(me: Me): Permissions {
  const p = principalOf(me);
  return {
    can: (verb, kind, namespace) => isAllowed(p, verb, kind, namespace),
    canListSomewhere: (kind, namespaced) => {
      if (isAllowed(p, 'list', kind)) return true;
      if (!namespaced && kind !== 'Namespace') return false;
      const visible = visibleNamespaces(p, 'list', kind);
      return visible === 'all' || visible.length > 0;
    },
    namespacesFor: (verb, kind) => visibleNamespaces(p, verb, kind),
  };
}

export function usePermissions(): Permissions {
  return permissionsOf(useMe());
}

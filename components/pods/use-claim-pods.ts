'use client';
// The pods of a claim's namespace that name the claim (live: the list query follows the
// change feed like every list in the dashboard). `loading` until the first answer: a caller
// must not read "no pod uses it" from an empty list that is still on its way.
import { useQuery } from '@tanstack/react-query';
import { isPodTerminated, podClaimNames } from '@/server/domain/pod-claims';
import type { PersistentVolumeClaim } from '@/server/resources/persistent-volume-claim/schema';
import type { Pod } from '@/server/resources/pod/schema';
import { isKind } from '@/server/resources/of-kind';
import { usePermissions } from '../session/session';
import { useTRPC } from '../data/trpc';

export interface ClaimPodsState {
  pods: Pod[];
  inUse: string[];
  allowed: boolean;
  loading: boolean;
}

/** The pods that use claim `namespace/name` (a volume's page asks with its claimRef). */
export function usePodsOfClaim(namespace: string, name: string, enabled = true): ClaimPodsState {
  const trpc = useTRPC();
  const perms = usePermissions();
  const allowed = Boolean(namespace && name) && perms.can('list', 'Pod', namespace);
  const q = useQuery({ ...trpc.objects.list.queryOptions({ kind: 'Pod', namespace }), enabled: enabled && allowed });
  const pods = (q.data?.items ?? []).filter((p) => isKind(p, 'Pod')).filter((p) => podClaimNames(p).includes(name));
  const inUse = pods.filter((p) => !isPodTerminated(p)).map((p) => p.metadata.name ?? '').sort();
  return { pods, inUse, allowed, loading: enabled && allowed && q.data === undefined && !q.isError };
}

export function useClaimPods(claim: PersistentVolumeClaim, enabled = true): ClaimPodsState {
  return usePodsOfClaim(claim.metadata.namespace ?? '', claim.metadata.name ?? '', enabled);
}

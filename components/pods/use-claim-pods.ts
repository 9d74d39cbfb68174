'use client';
// The pods of a claim's namespace that name the claim (live: the list query follows the
// change feed like every list in the dashboard).
import { useQuery } from '@tanstack/react-query';
import { isPodTerminated, podClaimNames } from '@/server/domain/pod-claims';
import type { KubeObject } from '@/server/resources/types';
import { usePermissions } from '../session/session';
import { useTRPC } from '../data/trpc';

export function useClaimPods(claim: KubeObject, enabled = true): { pods: KubeObject[]; inUse: string[]; allowed: boolean; loading: boolean } {
  const trpc = useTRPC();
  const perms = usePermissions();
  const ns = claim.metadata.namespace ?? '';
  const allowed = perms.can('list', 'Pod', ns);
  const q = useQuery({ ...trpc.objects.list.queryOptions({ kind: 'Pod', namespace: ns }), enabled: enabled && allowed });
  const pods = (q.data?.items ?? []).filter((p) => podClaimNames(p).includes(claim.metadata.name ?? ''));
  const inUse = pods.filter((p) => !isPodTerminated(p)).map((p) => p.metadata.name ?? '').sort();
  return { pods, inUse, allowed, loading: q.isLoading };
}

'use client';
// The pods of a claim's namespace that name the claim (live: the list query follows the
// change feed like every list in the dashboard).
import { useQuery } from '@tanstack/react-query';
import { isPodTerminated, podClaimNames } from '@/server/domain/pod-claims';
import type { PersistentVolumeClaim } from '@/server/resources/persistent-volume-claim/schema';
import type { Pod } from '@/server/resources/pod/schema';
import { isKind } from '@/server/resources/of-kind';
import { usePermissions } from '../session/session';
import { useTRPC } from '../data/trpc';

export function useClaimPods(claim: PersistentVolumeClaim, enabled = true): { pods: Pod[]; inUse: string[]; allowed: boolean; loading: boolean } {
  const trpc = useTRPC();
  const perms = usePermissions();
  const ns = claim.metadata.namespace ?? '';
  const allowed = perms.can('list', 'Pod', ns);
  const q = useQuery({ ...trpc.objects.list.queryOptions({ kind: 'Pod', namespace: ns }), enabled: enabled && allowed });
  const pods = (q.data?.items ?? []).filter((p) => isKind(p, 'Pod')).filter((p) => podClaimNames(p).includes(claim.metadata.name ?? ''));
  const inUse = pods.filter((p) => !isPodTerminated(p)).map((p) => p.metadata.name ?? '').sort();
  return { pods, inUse, allowed, loading: q.isLoading };
}

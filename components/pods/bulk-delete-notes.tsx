'use client';
// The bulk delete dialog's warnings for claims, as the single delete dialog gives them: the
// claims pods still use, and the claims whose data is deleted with them (reclaim policy Delete).
import { Alert, List, Text } from '@mantine/core';
import { useQueries, useQuery } from '@tanstack/react-query';
import type { PersistentVolumeClaim } from '@/server/resources/persistent-volume-claim/schema';
import { isKind } from '@/server/resources/of-kind';
import { usePermissions } from '../session/session';
import { useTRPC } from '../data/trpc';
import { bulkClaimDeletion } from './bulk-delete-consequences';

/** At most this many volumes are looked up one by one; past it the dialog says the policy is unknown. */
const MAX_VOLUMES = 100;

export function useBulkClaimDeletion(claims: PersistentVolumeClaim[], enabled: boolean) {
  const trpc = useTRPC();
  const perms = usePermissions();
  const namespaces = [...new Set(claims.map((c) => c.metadata.namespace ?? ''))].filter((ns) => perms.can('list', 'Pod', ns));
  const pods = useQueries({ queries: namespaces.map((ns) => ({ ...trpc.objects.list.queryOptions({ kind: 'Pod', namespace: ns }), enabled })) });
  const canVolumes = perms.can('get', 'PersistentVolume');
  const volumeNames = [...new Set(claims.map((c) => c.spec?.volumeName).filter((v): v is string => Boolean(v)))].slice(0, MAX_VOLUMES);
  const volumes = useQueries({ queries: (canVolumes ? volumeNames : []).map((name) => ({ ...trpc.objects.get.queryOptions({ kind: 'PersistentVolume', name }), enabled, retry: false })) });
  const classes = useQuery({ ...trpc.objects.list.queryOptions({ kind: 'StorageClass' }), enabled: enabled && !canVolumes && perms.can('list', 'StorageClass') });
  const loading = enabled && (pods.some((q) => q.isPending && q.fetchStatus !== 'idle') || volumes.some((q) => q.isPending && q.fetchStatus !== 'idle') || (classes.isPending && classes.fetchStatus !== 'idle'));
  const policy = new Map<string, string>();
  for (const q of volumes) if (q.data && isKind(q.data, 'PersistentVolume')) policy.set(q.data.metadata.name ?? '', q.data.spec?.persistentVolumeReclaimPolicy ?? 'Retain');
  const classPolicy = new Map<string, string>();
  for (const sc of classes.data?.items ?? []) if (isKind(sc, 'StorageClass')) classPolicy.set(sc.metadata.name ?? '', sc.reclaimPolicy ?? 'Delete');
  const allPods = pods.flatMap((q) => (q.data?.items ?? []).filter((p) => isKind(p, 'Pod')));
  const facts = bulkClaimDeletion(claims, allPods, (c) => (canVolumes ? policy.get(c.spec?.volumeName ?? '') : classPolicy.get(c.spec?.storageClassName ?? '')));
  return { loading, facts };
}

export function BulkClaimDeleteNotes({ facts }: { facts: ReturnType<typeof bulkClaimDeletion> }) {
  return (
    <>
      {facts.inUse.length > 0 && (
        <Alert color="orange" title={`In use: ${facts.inUse.length} of the claims`} data-testid="bulk-delete-in-use">
          <Text size="sm">Each stays Terminating until the pods that use it are deleted or finished.</Text>
          <List size="sm">
            {facts.inUse.slice(0, 10).map((u) => (
              <List.Item key={u.claim}>
                {u.claim}: used by {u.pods.join(', ')}
              </List.Item>
            ))}
          </List>
        </Alert>
      )}
      {facts.dataDeleted.length > 0 && (
        <Alert color="red" title={`Data deleted: ${facts.dataDeleted.length} of the claims`} data-testid="bulk-delete-data">
          <Text size="sm">Their volumes have reclaim policy Delete: once a claim is gone, its volume and all data on it are deleted.</Text>
          <List size="sm">
            {facts.dataDeleted.slice(0, 10).map((c) => (
              <List.Item key={c}>{c}</List.Item>
            ))}
          </List>
        </Alert>
      )}
      {facts.policyUnknown.length > 0 && (
        <Text size="sm" data-testid="bulk-delete-unknown">
          {facts.policyUnknown.length} bound claim{facts.policyUnknown.length === 1 ? '' : 's'} keep or lose their data according to a reclaim policy you cannot see.
        </Text>
      )}
    </>
  );
}

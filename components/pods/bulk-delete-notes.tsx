'use client';
// The bulk delete dialog's warnings for claims, as the single delete dialog gives them: the
// claims pods still use, the claims whose data is deleted with them (reclaim policy Delete),
// and what stays and stops of what was made from them (snapshots, backups, schedules).
import { Alert, List, Text } from '@mantine/core';
import { useQueries, useQuery } from '@tanstack/react-query';
import type { PersistentVolumeClaim } from '@/server/resources/persistent-volume-claim/schema';
import { isKind } from '@/server/resources/of-kind';
import { usePermissions } from '../session/session';
import { useTRPC } from '../data/trpc';
import { bulkClaimDeletion } from './bulk-delete-consequences';
import type { KubeObject } from '@/server/resources/types';
import type { SnapshotSchedule } from '@/server/resources/snapshot-schedule/schema';
import type { VolumeSnapshot } from '@/server/resources/volume-snapshot/schema';
import { backupsOfClaim } from '../backups/backup-view';
import { BACKUP_KIND, isVolumeBackup } from '../backups/types';
import { dependentsText, mergeDependents, type DependentsText } from '../claims/claim-dependents';
import { schedulesOfClaim, snapshotsOfClaim } from '../snapshots/snapshot-view';
import { StaysStops } from '../objects/stays-stops';

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
  // What was made from the claims (snapshots, backups) and what snapshots them (schedules), as the single dialog says.
  const madeFrom = (kind: string) => {
    const nss = [...new Set(claims.map((c) => c.metadata.namespace ?? ''))].filter((ns) => perms.can('list', kind, ns));
    return nss.map((ns) => ({ ...trpc.objects.list.queryOptions({ kind, namespace: ns }), enabled }));
  };
  const snaps = useQueries({ queries: madeFrom('VolumeSnapshot') });
  const scheds = useQueries({ queries: madeFrom('SnapshotSchedule') });
  const backups = useQueries({ queries: madeFrom(BACKUP_KIND) });
  const items = (qs: { data?: { items: KubeObject[] } }[]) => qs.flatMap((q) => q.data?.items ?? []);
  const allSnaps = items(snaps).filter((o): o is VolumeSnapshot => isKind(o, 'VolumeSnapshot'));
  const allScheds = items(scheds).filter((o): o is SnapshotSchedule => isKind(o, 'SnapshotSchedule'));
  const allBackups = items(backups).filter(isVolumeBackup);
  const dependents = mergeDependents(
    claims.map((c) => {
      const ns = c.metadata.namespace ?? '';
      const name = c.metadata.name ?? '';
      const inNs = <T extends KubeObject>(xs: T[]) => xs.filter((x) => x.metadata.namespace === ns);
      return {
        snapshots: snapshotsOfClaim(inNs(allSnaps), name).map((s) => `${ns}/${s.name}`),
        schedules: schedulesOfClaim(inNs(allScheds), c).map((s) => ({ name: `${ns}/${s.metadata.name ?? ''}`, suspended: Boolean(s.spec?.suspend) })),
        backups: backupsOfClaim(allBackups, ns, name).map((b) => `${ns}/${b.name}`),
      };
    }),
  );
  const dependentsLoading = enabled && [...snaps, ...scheds, ...backups].some((q) => q.isPending && q.fetchStatus !== 'idle');
  return { loading: loading || dependentsLoading, facts, dependents: dependentsText(dependents) };
}

/** What stays and what stops of what was made from the claims (their snapshots, backups and schedules). */
export function BulkDependentsNotes({ text }: { text: DependentsText }) {
  return <StaysStops stays={text.stays} stops={text.stops} testId="bulk-delete" />;
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

'use client';
// Extra words in the delete dialog, by kind: for a claim, the pods that use it (the
// deletion waits for them), what its volume's reclaim policy does to the data, and what
// stays and stops of what was made from it (snapshots, backups, schedules); for a class or
// a backup target, what names it.
import { Alert, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { KubeObject } from '@/server/resources/types';
import type { PersistentVolumeClaim } from '@/server/resources/persistent-volume-claim/schema';
import { isKind } from '@/server/resources/of-kind';
import { usePermissions } from '../session/session';
import { useTRPC } from '../data/trpc';
import { inUseSentence, reclaimSentence } from './delete-consequences';
import { useClaimPods } from './use-claim-pods';
import { ClaimDependentsNotes } from '../claims/claim-dependents-notes';
import { DependentsNotes, isDependentsKind } from '../objects/delete-dependents-notes';

function ClaimDeleteNotes({ claim }: { claim: PersistentVolumeClaim }) {
  const trpc = useTRPC();
  const perms = usePermissions();
  const { inUse, loading } = useClaimPods(claim);
  const volumeName: string | undefined = claim.spec?.volumeName || undefined;
  const className: string | undefined = claim.spec?.storageClassName || undefined;
  const canVolume = perms.can('get', 'PersistentVolume');
  const volume = useQuery({
    ...trpc.objects.get.queryOptions({ kind: 'PersistentVolume', name: volumeName ?? '-' }),
    enabled: Boolean(volumeName) && canVolume,
  });
  const sc = useQuery({
    ...trpc.objects.get.queryOptions({ kind: 'StorageClass', name: className ?? '-' }),
    enabled: Boolean(volumeName) && !canVolume && Boolean(className),
  });
  const fromVolume: string | undefined = volume.data && isKind(volume.data, 'PersistentVolume') ? volume.data.spec?.persistentVolumeReclaimPolicy : undefined;
  const fromClass: string | undefined = sc.data && isKind(sc.data, 'StorageClass') ? (sc.data.reclaimPolicy ?? 'Delete') : undefined;
  const used = inUseSentence(inUse);
  if (loading) {
    return (
      <Text size="sm" c="dimmed" data-testid="delete-checking">
        Checking which pods use the claim…
      </Text>
    );
  }
  return (
    <>
      {used && (
        <Alert color="orange" title="In use" data-testid="delete-in-use">
          {used}
        </Alert>
      )}
      <Text size="sm" data-testid="delete-reclaim">
        {reclaimSentence({
          usedBy: inUse,
          volumeName,
          policy: fromVolume ?? fromClass,
          policySource: fromVolume ? 'volume' : fromClass ? 'class' : undefined,
        })}
      </Text>
      <ClaimDependentsNotes claim={claim} />
    </>
  );
}

export function DeleteNotes({ obj }: { obj: KubeObject }) {
  if (isKind(obj, 'PersistentVolumeClaim')) return <ClaimDeleteNotes claim={obj} />;
  if (isDependentsKind(obj.kind) && obj.metadata.name) return <DependentsNotes kind={obj.kind} name={obj.metadata.name} />;
  return null;
}

'use client';
// In a claim's delete dialog: what stays (its snapshots, its backups) and what stops (the
// schedules that snapshot it), with a button to pause those schedules before the delete.
import { Button, Text } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { PersistentVolumeClaim } from '@/server/resources/persistent-volume-claim/schema';
import type { SnapshotSchedule } from '@/server/resources/snapshot-schedule/schema';
import type { VolumeSnapshot } from '@/server/resources/volume-snapshot/schema';
import { isKind } from '@/server/resources/of-kind';
import { useTRPC, useTRPCClient } from '../data/trpc';
import { errorInfo } from '../format/format';
import { usePermissions } from '../session/session';
import { backupsOfClaim } from '../backups/backup-view';
import { BACKUP_KIND, isVolumeBackup } from '../backups/types';
import { schedulesOfClaim, snapshotsOfClaim } from '../snapshots/snapshot-view';
import { dependentsText } from './claim-dependents';
import { StaysStops } from '../objects/stays-stops';

export function ClaimDependentsNotes({ claim }: { claim: PersistentVolumeClaim }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const perms = usePermissions();
  const ns = claim.metadata.namespace ?? '';
  const name = claim.metadata.name ?? '';
  const snaps = useQuery({ ...trpc.objects.list.queryOptions({ kind: 'VolumeSnapshot', namespace: ns }), enabled: perms.can('list', 'VolumeSnapshot', ns) });
  const scheds = useQuery({ ...trpc.objects.list.queryOptions({ kind: 'SnapshotSchedule', namespace: ns }), enabled: perms.can('list', 'SnapshotSchedule', ns) });
  const backups = useQuery({ ...trpc.objects.list.queryOptions({ kind: BACKUP_KIND, namespace: ns }), enabled: perms.can('list', BACKUP_KIND, ns) });
  const schedules = schedulesOfClaim((scheds.data?.items ?? []).filter((o): o is SnapshotSchedule => isKind(o, 'SnapshotSchedule')), claim);
  const text = dependentsText({
    snapshots: snapshotsOfClaim((snaps.data?.items ?? []).filter((o): o is VolumeSnapshot => isKind(o, 'VolumeSnapshot')), name).map((s) => s.name),
    schedules: schedules.map((s) => ({ name: s.metadata.name ?? '', suspended: Boolean(s.spec?.suspend) })),
    backups: backupsOfClaim((backups.data?.items ?? []).filter(isVolumeBackup), ns, name).map((b) => b.name),
  });
  const pause = useMutation({
    mutationFn: async (names: string[]) => {
      for (const s of schedules.filter((x) => names.includes(x.metadata.name ?? ''))) {
        const next = { ...s, spec: { ...s.spec, suspend: true } };
        await client.objects.update.mutate({ kind: 'SnapshotSchedule', namespace: ns, name: s.metadata.name ?? '', manifest: JSON.stringify(next) });
      }
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: trpc.objects.list.queryKey({ kind: 'SnapshotSchedule', namespace: ns }) }),
  });
  if (text.stays.length === 0 && text.stops.length === 0) return null;
  const mayPause = perms.can('update', 'SnapshotSchedule', ns);
  return (
    <StaysStops stays={text.stays} stops={text.stops}>
      {mayPause && text.toPause.length > 0 && (
        <Button size="xs" variant="light" w="fit-content" loading={pause.isPending} onClick={() => pause.mutate(text.toPause)} data-testid="pause-schedules">
          Pause {text.toPause.length === 1 ? 'the schedule' : `the ${text.toPause.length} schedules`} now
        </Button>
      )}
      {pause.error && (
        <Text size="sm" c="red" role="alert">
          {errorInfo(pause.error).message}
        </Text>
      )}
    </StaysStops>
  );
}

'use client';
// Above the summary of a snapshot's page: whether it can be restored, and the button that
// does (the claim form, starting from it). Of a snapshot class's page: the default switch.
import { Alert, Button, Group, Paper, Stack, Switch, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { annIsDefaultSnapshotClass } from '@/server/domain/well-known/annotations';
import type { VolumeSnapshotClass } from '@/server/resources/volume-snapshot-class/schema';
import type { VolumeSnapshot } from '@/server/resources/volume-snapshot/schema';
import { useTRPC } from '../data/trpc';
import { errorInfo } from '../format/format';
import { usePermissions } from '../session/session';
import { restoreHref } from './restore-link';
import { snapshotState } from './snapshot-view';

export function SnapshotRestorePanel({ vs }: { vs: VolumeSnapshot }) {
  const perms = usePermissions();
  const ns = vs.metadata.namespace ?? '';
  const state = snapshotState(vs);
  return (
    <Stack gap="xs">
      {state === 'Failed' && (
        <Alert color="red" title="The snapshot failed" data-testid="snapshot-error">
          {vs.status?.error?.message}
        </Alert>
      )}
      {perms.can('create', 'PersistentVolumeClaim', ns) && state !== 'Terminating' && (
        <Group gap="xs">
          <Button component={Link} href={restoreHref(ns, vs.metadata.name ?? '')} size="xs" variant="light" w="fit-content" disabled={state !== 'Ready'} data-testid="restore-snapshot">
            Restore to a new claim
          </Button>
          {state === 'Pending' && (
            <Text size="xs" c="dimmed">
              It can be restored once it is ready.
            </Text>
          )}
        </Group>
      )}
    </Stack>
  );
}

export function SnapshotClassDefaultSwitch({ vsc }: { vsc: VolumeSnapshotClass }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const perms = usePermissions();
  const move = useMutation(trpc.snapshots.setDefaultClass.mutationOptions({ onSuccess: () => void queryClient.invalidateQueries() }));
  const on = vsc.metadata.annotations?.[annIsDefaultSnapshotClass] === 'true';
  const mayUpdate = perms.can('update', 'VolumeSnapshotClass');
  return (
    <Paper withBorder p="sm">
      <Switch
        label={`Default class for ${vsc.driver}`}
        description="Snapshots that name no class get this one when their claim's volume is of this driver. Each driver has one default."
        checked={on}
        disabled={!mayUpdate || move.isPending}
        onChange={(e) => move.mutate({ name: vsc.metadata.name ?? '', on: e.currentTarget.checked })}
        data-testid="snapshot-class-default"
      />
      {move.error && (
        <Text size="sm" c="red" role="alert" mt="xs">
          {errorInfo(move.error).message}
        </Text>
      )}
    </Paper>
  );
}

'use client';
// The Backups section of a claim page: back up now (into a chosen target, the default one
// preselected), and the claim's backups with their progress, Restore and Delete. Live: the
// list is the generic objects list, which the shell's change stream refreshes.
import { Alert, Button, Group, Loader, Paper, Select, Stack, Text, Title, Tooltip } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { PersistentVolumeClaim } from '@/server/resources/persistent-volume-claim/schema';
import { useTRPC } from '../data/trpc';
import { errorInfo } from '../format/format';
import { usePermissions } from '../session/session';
import { BackupTable } from './backup-table';
import { backupOfClaim, backupsOfClaim, preselectedTarget } from './backup-view';
import { BACKUP_KIND, isVolumeBackup } from './types';

export function ClaimBackups({ claim }: { claim: PersistentVolumeClaim }) {
  const trpc = useTRPC();
  const perms = usePermissions();
  const ns = claim.metadata.namespace ?? '';
  const name = claim.metadata.name ?? '';
  const mayList = perms.can('list', BACKUP_KIND, ns);
  const list = useQuery({ ...trpc.objects.list.queryOptions({ kind: BACKUP_KIND, namespace: ns }), enabled: mayList });
  const rows = backupsOfClaim((list.data?.items ?? []).filter(isVolumeBackup), ns, name);
  const mayCreate = perms.can('create', BACKUP_KIND, ns);
  if (!mayList) return null;
  return (
    <Paper withBorder p="md" data-testid="claim-backups">
      <Stack gap="sm">
        <Title order={2} size="h5">
          Backups
        </Title>
        {mayCreate && <BackUpNow claim={claim} />}
        {list.isPending ? (
          <Loader size="sm" aria-label="Loading backups" />
        ) : list.isError ? (
          <Alert color="red">{errorInfo(list.error).message}</Alert>
        ) : rows.length === 0 ? (
          <Text size="sm" c="dimmed" data-testid="no-backups">
            No backups of this claim yet.
          </Text>
        ) : (
          <BackupTable
            label={`Backups of ${name}`}
            rows={rows}
            showSource={false}
            mayDelete={() => perms.can('delete', BACKUP_KIND, ns)}
            mayRestore={() => perms.can('create', 'PersistentVolumeClaim', ns)}
          />
        )}
      </Stack>
    </Paper>
  );
}

function BackUpNow({ claim }: { claim: PersistentVolumeClaim }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const ns = claim.metadata.namespace ?? '';
  const choices = useQuery(trpc.backups.targetChoices.queryOptions());
  const [picked, setPicked] = useState<string | null>(null);
  const target = picked ?? (choices.data ? (preselectedTarget(choices.data) ?? null) : null);
  const create = useMutation(
    trpc.objects.create.mutationOptions({
      onSuccess: () => void queryClient.invalidateQueries({ queryKey: trpc.objects.list.queryKey({ kind: BACKUP_KIND, namespace: ns }) }),
    }),
  );
  const bound = claim.status?.phase === 'Bound';
  const noTargets = choices.data !== undefined && choices.data.length === 0;
  const blocked = !bound ? 'The claim must be Bound to a volume first' : noTargets ? 'No backup target yet: an administrator makes one' : !target ? 'Choose a target' : undefined;
  const options = (choices.data ?? []).map((c) => ({ value: c.name, label: `${c.name}${c.default ? ' (default)' : ''}${c.ready ? '' : ' — not ready'}` }));
  return (
    <Stack gap={6}>
      <Text size="sm" c="dimmed">
        A backup copies this claim&apos;s data to a backup target outside the node: it outlives the node and the claim.
      </Text>
      <Group gap="sm" align="flex-end" wrap="wrap">
        <Select
          label="Target"
          w={240}
          maw="100%"
          data={options}
          value={target}
          onChange={setPicked}
          allowDeselect={false}
          placeholder={choices.isPending ? 'Loading…' : noTargets ? 'No targets' : 'Choose a target'}
          disabled={choices.isPending || noTargets}
          error={choices.isError ? errorInfo(choices.error).message : undefined}
          data-testid="backup-target-select"
        />
        <Tooltip label={blocked} disabled={!blocked}>
          <Button
            onClick={() => create.mutate({ manifest: JSON.stringify(backupOfClaim(ns, claim.metadata.name ?? '', target ?? undefined)), namespace: ns })}
            loading={create.isPending}
            disabled={Boolean(blocked)}
            data-testid="back-up-now"
          >
            Back up now
          </Button>
        </Tooltip>
      </Group>
      {create.error && (
        <Text size="sm" c="red" role="alert">
          {errorInfo(create.error).message}
        </Text>
      )}
    </Stack>
  );
}

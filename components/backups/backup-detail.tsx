'use client';
// The page of one backup: its phase and progress, where it came from and went, its
// conditions and Events, with Restore (a Completed one), Verify and Delete.
import { Alert, Anchor, Breadcrumbs, Button, DataList, Group, Loader, Paper, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import type { ReactNode } from 'react';
import { useTRPC } from '../data/trpc';
import { ageOf, errorInfo } from '../format/format';
import { SizeText } from '../format/size-text';
import { useNow } from '../format/use-now';
import { ConfirmDelete } from '../objects/delete-button';
import { EventsOf } from '../objects/object-detail';
import { ObjectLink } from '../objects/object-link';
import { StatusBadge } from '../objects/status-badge';
import { usePermissions } from '../session/session';
import { DataTable } from '../table/data-table';
import { BackupPhase } from './backup-table';
import { backupRow, deleteNote, restoreBlocker } from './backup-view';
import { restoreFormHref } from './links';
import { BACKUP_KIND, isVolumeBackup, VERIFY_REQUESTED_ANNOTATION, type Condition, type VolumeBackup } from './types';

export function BackupDetailPage({ namespace, name }: { namespace: string; name: string }) {
  const trpc = useTRPC();
  const get = useQuery(trpc.objects.get.queryOptions({ kind: BACKUP_KIND, namespace, name }));
  const crumbs = (
    <Breadcrumbs separator="›" fz="sm">
      <Anchor component={Link} href="/backups" fz="sm">
        Backups
      </Anchor>
      <Text fz="sm">{namespace}</Text>
    </Breadcrumbs>
  );
  if (get.isPending) return <Loader aria-label="Loading the backup" />;
  if (get.isError || !isVolumeBackup(get.data)) {
    return (
      <Stack gap="sm">
        {crumbs}
        <Alert color="red" title="Cannot show this backup">
          {get.isError ? errorInfo(get.error).message : 'This is not a volume backup.'}
        </Alert>
      </Stack>
    );
  }
  return (
    <Stack gap="md">
      {crumbs}
      <BackupView b={get.data} />
    </Stack>
  );
}

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <DataList.Item data-label={label}>
      <DataList.ItemLabel c="dimmed">{label}</DataList.ItemLabel>
      <DataList.ItemValue>
        {children ?? (
          <Text span c="dimmed" inherit>
            —
          </Text>
        )}
      </DataList.ItemValue>
    </DataList.Item>
  );
}

function BackupView({ b }: { b: VolumeBackup }) {
  const perms = usePermissions();
  const router = useRouter();
  const now = useNow(5000);
  const ns = b.metadata.namespace ?? '';
  const name = b.metadata.name ?? '';
  const row = backupRow(b);
  const st = b.status ?? {};
  const blocker = restoreBlocker(b);
  const mayRestore = perms.can('create', 'PersistentVolumeClaim', ns);
  return (
    <>
      <Group gap="sm" align="center" wrap="wrap">
        <Title order={1} size="h3" style={{ overflowWrap: 'anywhere' }}>
          {name}
        </Title>
        <Group gap="xs" ml="auto" wrap="wrap">
          {mayRestore &&
            (blocker ? (
              <Text size="sm" c="dimmed" data-testid="restore-blocked">
                {blocker}
              </Text>
            ) : (
              <Button component={Link} href={restoreFormHref(ns, name)} size="sm" data-testid="restore-backup">
                Restore to a new claim
              </Button>
            ))}
          {perms.can('update', BACKUP_KIND, ns) && st.phase === 'Completed' && <VerifyButton b={b} />}
          {perms.can('delete', BACKUP_KIND, ns) && (
            <ConfirmDelete obj={b} title="backup" noun="backup" label={`${ns}/${name}`} note={deleteNote(row)} onDeleted={() => router.push('/backups')} />
          )}
        </Group>
      </Group>
      <Paper withBorder p="md" maw={360}>
        <BackupPhase row={row} />
      </Paper>
      <Paper withBorder p="md">
        <DataList size="sm" gap={6} labelWidth={150} data-testid="backup-fields">
          <Field label="Source claim">{row.source ? <ObjectLink kind="PersistentVolumeClaim" namespace={ns} name={st.sourceClaimName ?? b.spec?.source?.persistentVolumeClaimName ?? ''}>{row.source}</ObjectLink> : undefined}</Field>
          <Field label="Snapshot read">{st.snapshotName}</Field>
          <Field label="Target">{row.target}</Field>
          <Field label="Node">{st.node}</Field>
          <Field label="Format">{st.format}</Field>
          <Field label="Class">{st.storageClassName ? `${st.storageClassName}${st.provisioner ? ` (${st.provisioner})` : ''}` : undefined}</Field>
          <Field label="Size">{st.sizeBytes ? <SizeText value={st.sizeBytes} data-testid="backup-size" /> : undefined}</Field>
          <Field label="Read">{st.totalBytes ? <><SizeText value={st.doneBytes ?? '0'} /> of <SizeText value={st.totalBytes} /></> : undefined}</Field>
          <Field label="New in the target">{st.newBytes ? <SizeText value={st.newBytes} /> : undefined}</Field>
          <Field label="Started">{st.startTime ? <span title={st.startTime}>{ageOf(st.startTime, now)} ago</span> : undefined}</Field>
          <Field label="Completed">{st.completionTime ? <span title={st.completionTime}>{ageOf(st.completionTime, now)} ago</span> : undefined}</Field>
          <Field label="Imported">{row.imported ? 'yes: made by another installation; deleting it keeps its data in the target' : 'no'}</Field>
          {b.metadata.annotations?.[VERIFY_REQUESTED_ANNOTATION] && <Field label="Verify requested">{b.metadata.annotations[VERIFY_REQUESTED_ANNOTATION]}</Field>}
        </DataList>
      </Paper>
      <Conditions conditions={st.conditions ?? []} now={now} />
      <Stack gap={6}>
        <Title order={2} size="h5">
          Events
        </Title>
        <EventsOf obj={b} />
      </Stack>
    </>
  );
}

function Conditions({ conditions, now }: { conditions: Condition[]; now: number }) {
  if (conditions.length === 0) return null;
  return (
    <Stack gap={6}>
      <Title order={2} size="h5">
        Conditions
      </Title>
      <DataTable
        label="Conditions"
        data-testid="backup-conditions"
        rows={conditions}
        rowKey={(c) => c.type ?? ''}
        columns={[
          { key: 'type', header: 'TYPE', cell: (c) => c.type },
          { key: 'status', header: 'STATUS', cell: (c) => <StatusBadge value={c.status ?? 'Unknown'} /> },
          { key: 'reason', header: 'REASON', cell: (c) => c.reason ?? '' },
          { key: 'message', header: 'MESSAGE', width: 'minmax(160px, 3fr)', cell: (c) => c.message ?? '' },
          { key: 'age', header: 'SINCE', nowrap: true, cellProps: (c) => ({ title: c.lastTransitionTime }), cell: (c) => ageOf(c.lastTransitionTime, now) },
        ]}
      />
    </Stack>
  );
}

function VerifyButton({ b }: { b: VolumeBackup }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const ref = { kind: BACKUP_KIND, namespace: b.metadata.namespace ?? '', name: b.metadata.name ?? '' };
  const verify = useMutation(
    trpc.backups.verify.mutationOptions({
      onSuccess: () => void queryClient.invalidateQueries({ queryKey: trpc.objects.get.queryKey(ref) }),
    }),
  );
  return (
    <Stack gap={2}>
      <Button size="sm" variant="light" onClick={() => verify.mutate({ namespace: ref.namespace, name: ref.name })} loading={verify.isPending} data-testid="verify-backup">
        Verify
      </Button>
      {verify.error && (
        <Text size="xs" c="red" role="alert">
          {errorInfo(verify.error).message}
        </Text>
      )}
      {verify.isSuccess && (
        <Text size="xs" c="dimmed" role="status">
          Asked: the result comes as an event.
        </Text>
      )}
    </Stack>
  );
}

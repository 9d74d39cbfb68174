'use client';
// The Snapshots tab of a claim page: take a snapshot now, the claim's snapshots (readiness,
// restore size, age, what took them) with Restore (the claim form, starting from it) and
// Delete (confirmed), and the schedules that snapshot this claim. Live: the lists are the
// generic objects lists, which the shell's change stream refreshes.
import { Alert, Anchor, Button, Group, Loader, Stack, Text, Tooltip, VisuallyHidden } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import type { PersistentVolumeClaim } from '@/server/resources/persistent-volume-claim/schema';
import type { VolumeSnapshot } from '@/server/resources/volume-snapshot/schema';
import { isKind } from '@/server/resources/of-kind';
import { useTRPC } from '../data/trpc';
import { ageOf, errorInfo } from '../format/format';
import { SizeText } from '../format/size-text';
import { useNow } from '../format/use-now';
import { ObjectLink } from '../objects/object-link';
import { StatusBadge } from '../objects/status-badge';
import { usePermissions } from '../session/session';
import { DataTable, type DataColumn } from '../table/data-table';
import { ClaimSchedules } from './claim-schedules';
import { RowDeleteButton } from '../objects/delete-button';
import { restoreHref } from './restore-link';
import { snapshotsOfClaim, type SnapshotRow } from './snapshot-view';

export function ClaimSnapshots({ claim }: { claim: PersistentVolumeClaim }) {
  const trpc = useTRPC();
  const perms = usePermissions();
  const ns = claim.metadata.namespace ?? '';
  const name = claim.metadata.name ?? '';
  const list = useQuery(trpc.objects.list.queryOptions({ kind: 'VolumeSnapshot', namespace: ns }));
  const snapshots = (list.data?.items ?? []).filter((o): o is VolumeSnapshot => isKind(o, 'VolumeSnapshot'));
  const rows = snapshotsOfClaim(snapshots, name);
  return (
    <Stack gap="md" data-testid="claim-snapshots">
      <TakeSnapshot claim={claim} mayCreate={perms.can('create', 'VolumeSnapshot', ns)} />
      {list.isPending ? (
        <Loader size="sm" />
      ) : list.isError ? (
        <Alert color="red">{errorInfo(list.error).message}</Alert>
      ) : rows.length === 0 ? (
        <Text size="sm" c="dimmed" data-testid="no-snapshots">
          No snapshots of this claim yet.
        </Text>
      ) : (
        <SnapshotTable rows={rows} mayDelete={perms.can('delete', 'VolumeSnapshot', ns)} mayRestore={perms.can('create', 'PersistentVolumeClaim', ns)} />
      )}
      <ClaimSchedules claim={claim} />
    </Stack>
  );
}

function TakeSnapshot({ claim, mayCreate }: { claim: PersistentVolumeClaim; mayCreate: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const ns = claim.metadata.namespace ?? '';
  const take = useMutation(
    trpc.snapshots.take.mutationOptions({
      onSuccess: () => void queryClient.invalidateQueries({ queryKey: trpc.objects.list.queryKey({ kind: 'VolumeSnapshot', namespace: ns }) }),
    }),
  );
  const bound = claim.status?.phase === 'Bound';
  return (
    <Group justify="space-between" align="center">
      <Text size="sm" c="dimmed">
        A snapshot keeps this claim&apos;s data as it is now; restore it to a new claim at any time.
      </Text>
      {mayCreate && (
        <Tooltip label="The claim must be Bound to a volume first" disabled={bound}>
          <Button size="sm" onClick={() => take.mutate({ namespace: ns, claim: claim.metadata.name ?? '' })} loading={take.isPending} disabled={!bound} data-testid="take-snapshot">
            Take snapshot
          </Button>
        </Tooltip>
      )}
      {take.error && (
        <Text size="sm" c="red" role="alert" w="100%">
          {errorInfo(take.error).message}
        </Text>
      )}
    </Group>
  );
}

function SnapshotTable({ rows, mayDelete, mayRestore }: { rows: SnapshotRow[]; mayDelete: boolean; mayRestore: boolean }) {
  const now = useNow(5000);
  const columns: DataColumn<SnapshotRow>[] = [
    { key: 'name', header: 'NAME', width: 'minmax(160px, 2fr)', cell: (r) => <ObjectLink kind="VolumeSnapshot" namespace={r.namespace} name={r.name} /> },
    {
      key: 'state',
      header: 'READY',
      cellProps: (r) => ({ 'data-testid': 'snapshot-state', title: r.error }),
      cell: (r) => (
        <Stack gap={2}>
          <StatusBadge value={r.state} />
          {r.progress !== undefined && (
            <Text size="xs" c="dimmed" data-testid="snapshot-progress">
              copying {Math.floor(r.progress * 100)}%
            </Text>
          )}
          {r.error && (
            <Text size="xs" c="red" lineClamp={3} data-testid="snapshot-error">
              {r.error}
            </Text>
          )}
        </Stack>
      ),
    },
    { key: 'size', header: 'SIZE', cellProps: () => ({ 'data-testid': 'snapshot-size' }), cell: (r) => (r.restoreSize ? <SizeText value={r.restoreSize} /> : <Text span c="dimmed" inherit>—</Text>) },
    { key: 'age', header: 'AGE', nowrap: true, cellProps: (r) => ({ title: r.takenAt }), cell: (r) => ageOf(r.takenAt, now) },
    { key: 'by', header: 'TAKEN BY', cell: (r) => (r.schedule ? <ObjectLink kind="SnapshotSchedule" namespace={r.namespace} name={r.schedule}>schedule {r.schedule}</ObjectLink> : 'hand') },
    {
      key: 'actions',
      header: <VisuallyHidden>Actions</VisuallyHidden>,
      width: 'minmax(180px, 1.4fr)',
      // The actions wrap onto two lines rather than run past the table's edge on a narrow screen.
      cell: (r) => (
        <Group gap="xs" wrap="wrap">
          {mayRestore && (
            <Tooltip label="Not ready to restore yet" disabled={r.state === 'Ready'}>
              <Anchor component={Link} href={restoreHref(r.namespace, r.name)} size="sm" data-testid="restore-snapshot" aria-disabled={r.state !== 'Ready'}>
                Restore to a new claim
              </Anchor>
            </Tooltip>
          )}
          {mayDelete && r.state !== 'Terminating' && <RowDeleteButton kind="VolumeSnapshot" namespace={r.namespace} name={r.name} what="snapshot" />}
        </Group>
      ),
    },
  ];
  return <DataTable label="Snapshots" data-testid="snapshot-table" columns={columns} rows={rows} rowKey={(r) => r.name} rowProps={(r) => ({ 'data-testid': 'snapshot-row', 'data-name': r.name, 'data-state': r.state })} minWidth={720} />;
}

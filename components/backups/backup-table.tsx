'use client';
// The one table of backups (a claim's, or a namespace's): phase, a progress bar while it
// reads, size, new bytes, when, and per row Restore (a Completed one) and Delete (a dialog
// saying what happens to the data in the target).
import { Anchor, Badge, Group, Progress, Stack, Text, Tooltip, VisuallyHidden } from '@mantine/core';
import Link from 'next/link';
import { ageOf } from '../format/format';
import { SizeText } from '../format/size-text';
import { useNow } from '../format/use-now';
import { RowDeleteButton } from '../objects/delete-button';
import { DataTable, type DataColumn } from '../table/data-table';
import { deleteNote, type BackupRow } from './backup-view';
import { backupHref, restoreFormHref } from './links';
import { BACKUP_KIND } from './types';

const PHASE_COLORS: Record<BackupRow['phase'], string> = { Pending: 'yellow', InProgress: 'blue', Completed: 'teal', Failed: 'red', Terminating: 'gray' };

export function BackupPhase({ row }: { row: Pick<BackupRow, 'phase' | 'progress' | 'error' | 'imported'> }) {
  return (
    <Stack gap={4}>
      <Group gap={4} wrap="wrap">
        <Badge color={PHASE_COLORS[row.phase]} variant="light" size="sm" tt="none" fw={600} miw="max-content" data-testid="status-badge" data-status={row.phase}>
          {row.phase === 'InProgress' ? 'In progress' : row.phase}
        </Badge>
        {row.imported && (
          <Tooltip label="Found in the target, made by another installation: read-only">
            <Badge size="sm" variant="outline" color="grape" tt="none" data-testid="backup-imported">
              imported
            </Badge>
          </Tooltip>
        )}
      </Group>
      {row.progress !== undefined && (
        <Progress value={row.progress} size="sm" striped animated aria-label={`Backed up ${row.progress}%`} data-testid="backup-progress" data-value={row.progress} />
      )}
      {row.error && (
        <Text size="xs" c="red" lineClamp={3} data-testid="backup-error">
          {row.error}
        </Text>
      )}
    </Stack>
  );
}

const dash = (
  <Text span c="dimmed" inherit>
    —
  </Text>
);

export function BackupTable({
  rows,
  mayDelete,
  mayRestore,
  showNamespace = false,
  showSource = true,
  label = 'Backups',
}: {
  rows: BackupRow[];
  mayDelete: (r: BackupRow) => boolean;
  mayRestore: (r: BackupRow) => boolean;
  showNamespace?: boolean;
  showSource?: boolean;
  label?: string;
}) {
  const now = useNow(5000);
  const columns: DataColumn<BackupRow>[] = [
    {
      key: 'name',
      header: 'NAME',
      width: 'minmax(140px, 2fr)',
      cell: (r) => (
        <Anchor component={Link} href={backupHref(r.namespace, r.name)} prefetch={false} inherit data-testid="backup-link">
          {r.name}
        </Anchor>
      ),
    },
    ...(showNamespace ? [{ key: 'namespace', header: 'NAMESPACE', cell: (r: BackupRow) => r.namespace }] : []),
    ...(showSource ? [{ key: 'source', header: 'SOURCE', cell: (r: BackupRow) => r.source || dash }] : []),
    { key: 'phase', header: 'PHASE', width: 'minmax(120px, 1.3fr)', cellProps: () => ({ 'data-testid': 'backup-phase' }), cell: (r) => <BackupPhase row={r} /> },
    { key: 'target', header: 'TARGET', cell: (r) => r.target ?? dash },
    { key: 'size', header: 'SIZE', nowrap: true, cellProps: () => ({ 'data-testid': 'backup-size' }), cell: (r) => (r.sizeBytes ? <SizeText value={r.sizeBytes} /> : dash) },
    { key: 'new', header: 'NEW', nowrap: true, cellProps: () => ({ title: 'Bytes this backup added to the target' }), cell: (r) => (r.newBytes ? <SizeText value={r.newBytes} /> : dash) },
    { key: 'time', header: 'AGE', nowrap: true, width: 'minmax(56px, 0.7fr)', cellProps: (r) => ({ title: r.time }), cell: (r) => ageOf(r.time, now) },
    {
      key: 'actions',
      header: <VisuallyHidden>Actions</VisuallyHidden>,
      width: 'minmax(170px, 1.5fr)',
      // The actions wrap rather than run past the table's edge on a narrow screen.
      cell: (r) => (
        <Group gap="xs" wrap="wrap">
          {mayRestore(r) && r.phase === 'Completed' && (
            <Anchor component={Link} href={restoreFormHref(r.namespace, r.name)} size="sm" data-testid="restore-backup">
              Restore to a new claim
            </Anchor>
          )}
          {mayDelete(r) && r.phase !== 'Terminating' && <RowDeleteButton kind={BACKUP_KIND} namespace={r.namespace} name={r.name} what="backup" note={deleteNote(r)} />}
        </Group>
      ),
    },
  ];
  return (
    <DataTable
      label={label}
      data-testid="backup-table"
      columns={columns}
      rows={rows}
      rowKey={(r) => `${r.namespace}/${r.name}`}
      rowProps={(r) => ({ 'data-testid': 'backup-row', 'data-name': r.name, 'data-phase': r.phase })}
      minWidth={showNamespace ? 900 : 780}
    />
  );
}

'use client';
// /backups: every backup the user may see (a developer's namespaces, an admin's all),
// grouped by namespace, with progress bars for running ones, imported ones marked, Restore
// and Delete (a dialog saying what happens to the data in the target).
import { Alert, Anchor, Group, Loader, Select, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useMemo, useState } from 'react';
import { useTRPC } from '../data/trpc';
import { errorInfo, plural } from '../format/format';
import { usePermissions } from '../session/session';
import { BackupTable } from './backup-table';
import { backupRows, type BackupRow } from './backup-view';
import { BACKUP_KIND, isVolumeBackup } from './types';

export function BackupsPage() {
  const trpc = useTRPC();
  const perms = usePermissions();
  const [namespace, setNamespace] = useState<string | null>(null);
  const list = useQuery(trpc.objects.list.queryOptions({ kind: BACKUP_KIND }));
  const rows = useMemo(() => backupRows((list.data?.items ?? []).filter(isVolumeBackup)), [list.data]);
  const namespaces = useMemo(() => [...new Set(rows.map((r) => r.namespace))].sort(), [rows]);
  const groups = useMemo(() => {
    const m = new Map<string, BackupRow[]>();
    for (const r of rows) if (!namespace || r.namespace === namespace) m.set(r.namespace, [...(m.get(r.namespace) ?? []), r]);
    return [...m.entries()].sort(([a], [b]) => a.localeCompare(b));
  }, [rows, namespace]);
  const visible = perms.namespacesFor('list', BACKUP_KIND);
  return (
    <Stack gap="md">
      <Group gap="xs" align="baseline" wrap="wrap">
        <Title order={1} size="h3">
          Backups
        </Title>
        {list.data && (
          <Text c="dimmed" size="sm" data-testid="list-count">
            {plural(rows.length, 'backup', 'backups')}
          </Text>
        )}
        {perms.can('list', 'BackupTarget') && (
          <Anchor component={Link} href="/backup-targets" size="sm" ml="auto">
            Backup targets
          </Anchor>
        )}
      </Group>
      <Text size="sm" c="dimmed">
        Back up a claim from its page (Backups). {visible === 'all' ? '' : `Showing your namespaces: ${visible.join(', ') || 'none'}.`}
      </Text>
      {namespaces.length > 1 && (
        <Select size="sm" w={220} maw="100%" placeholder="All namespaces" aria-label="Namespace" data={namespaces} value={namespace} onChange={setNamespace} clearable searchable />
      )}
      {list.isPending ? (
        <Loader size="sm" aria-label="Loading backups" />
      ) : list.isError ? (
        <Alert color="red">{errorInfo(list.error).message}</Alert>
      ) : groups.length === 0 ? (
        <Text size="sm" c="dimmed" data-testid="no-backups">
          No backups yet.
        </Text>
      ) : (
        groups.map(([ns, nsRows]) => (
          <Stack gap={6} key={ns} data-testid="backup-namespace" data-namespace={ns}>
            <Title order={2} size="h5">
              {ns}
            </Title>
            <BackupTable
              label={`Backups in ${ns}`}
              rows={nsRows}
              mayDelete={() => perms.can('delete', BACKUP_KIND, ns)}
              mayRestore={() => perms.can('create', 'PersistentVolumeClaim', ns)}
            />
          </Stack>
        ))
      )}
    </Stack>
  );
}

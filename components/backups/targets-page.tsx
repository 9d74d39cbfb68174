'use client';
// /backup-targets (admins): each target's path, default mark, readiness, health per node
// (reachable, writable, free space, why not), how many backups it holds and its stored vs
// logical bytes (the dedupe ratio); a form to add one; Delete.
import { Alert, Badge, Button, Checkbox, Group, Loader, Paper, Stack, Text, TextInput, Title, Tooltip } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { isDNS1123Subdomain } from '@/server/domain/names';
import { useTRPC } from '../data/trpc';
import { ageOf, errorInfo, plural } from '../format/format';
import { SizeText } from '../format/size-text';
import { useNow } from '../format/use-now';
import { RowDeleteButton } from '../objects/delete-button';
import { StatusBadge } from '../objects/status-badge';
import { RequirePermission } from '../session/admin-only';
import { usePermissions } from '../session/session';
import { DataTable } from '../table/data-table';
import { targetManifest, targetPathProblem, targetRow, type TargetRow } from './backup-view';
import { isBackupTarget, TARGET_KIND } from './types';

export function BackupTargetsPage() {
  return (
    <RequirePermission verb="list" kind={TARGET_KIND} title="Backup targets" back={{ href: '/backups', label: 'Back to backups' }}>
      <Targets />
    </RequirePermission>
  );
}

function Targets() {
  const trpc = useTRPC();
  const perms = usePermissions();
  const list = useQuery(trpc.objects.list.queryOptions({ kind: TARGET_KIND }));
  const rows = useMemo(() => (list.data?.items ?? []).filter(isBackupTarget).map(targetRow).sort((a, b) => a.name.localeCompare(b.name)), [list.data]);
  return (
    <Stack gap="md">
      <Group gap="xs" align="baseline">
        <Title order={1} size="h3">
          Backup targets
        </Title>
        {list.data && (
          <Text c="dimmed" size="sm" data-testid="list-count">
            {plural(rows.length, 'target', 'targets')}
          </Text>
        )}
      </Group>
      <Text size="sm" c="dimmed">
        A target is a directory every node mounts (NFS in production); backups are stored there, deduplicated, and outlive the nodes.
      </Text>
      {perms.can('create', TARGET_KIND) && <NewTarget hasDefault={rows.some((r) => r.isDefault)} />}
      {list.isPending ? (
        <Loader size="sm" aria-label="Loading targets" />
      ) : list.isError ? (
        <Alert color="red">{errorInfo(list.error).message}</Alert>
      ) : rows.length === 0 ? (
        <Text size="sm" c="dimmed" data-testid="no-targets">
          No backup targets yet.
        </Text>
      ) : (
        rows.map((r) => <TargetCard key={r.name} t={r} mayDelete={perms.can('delete', TARGET_KIND)} />)
      )}
    </Stack>
  );
}

function TargetCard({ t, mayDelete }: { t: TargetRow; mayDelete: boolean }) {
  const now = useNow(10000);
  return (
    <Paper withBorder p="md" data-testid="target-card" data-name={t.name} data-ready={t.ready}>
      <Stack gap="sm">
        <Group gap="sm" wrap="wrap" align="center">
          <Title order={2} size="h5" style={{ overflowWrap: 'anywhere' }}>
            {t.name}
          </Title>
          {t.isDefault && (
            <Badge size="sm" variant="light" tt="none" data-testid="target-default">
              default
            </Badge>
          )}
          <Tooltip label={t.readyMessage} disabled={!t.readyMessage}>
            <span data-testid="target-ready">
              <StatusBadge value={t.ready} />
            </span>
          </Tooltip>
          {mayDelete && (
            <Group ml="auto">
              <RowDeleteButton kind={TARGET_KIND} namespace="" name={t.name} what="backup target" />
            </Group>
          )}
        </Group>
        <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
          <Text span c="dimmed" inherit>
            Path{' '}
          </Text>
          <code data-testid="target-path">{t.path}</code>
        </Text>
        {t.ready === 'NotReady' && t.readyMessage && (
          <Text size="sm" c="red">
            {t.readyMessage}
          </Text>
        )}
        <Group gap="xl" wrap="wrap">
          <Text size="sm" data-testid="target-backups">
            <Text span c="dimmed" inherit>
              Backups{' '}
            </Text>
            {t.backups ?? '—'}
          </Text>
          <Text size="sm">
            <Text span c="dimmed" inherit>
              Stored{' '}
            </Text>
            {t.storedBytes ? <SizeText value={t.storedBytes} /> : '—'}
          </Text>
          <Text size="sm">
            <Text span c="dimmed" inherit>
              Logical{' '}
            </Text>
            {t.logicalBytes ? <SizeText value={t.logicalBytes} /> : '—'}
          </Text>
          <Text size="sm" title="Logical bytes ÷ stored bytes: what deduplication and compression save">
            <Text span c="dimmed" inherit>
              Dedupe{' '}
            </Text>
            <span data-testid="target-dedupe">{t.dedupe ?? '—'}</span>
          </Text>
        </Group>
        {t.nodes.length === 0 ? (
          <Text size="sm" c="dimmed">
            No node has reported on this target yet.
          </Text>
        ) : (
          <DataTable
            label={`Health of ${t.name} per node`}
            data-testid="target-nodes"
            rows={t.nodes}
            rowKey={(n) => n.node}
            rowProps={(n) => ({ 'data-testid': 'target-node', 'data-node': n.node, 'data-health': n.health })}
            columns={[
              { key: 'node', header: 'NODE', cell: (n) => n.node },
              { key: 'health', header: 'HEALTH', cell: (n) => <StatusBadge value={n.health === 'ok' ? 'Ready' : n.health === 'read-only' ? 'Warning' : 'NotReady'} /> },
              { key: 'state', header: 'STATE', width: 'minmax(120px, 1.2fr)', cell: (n) => (n.health === 'ok' ? 'reachable, writable' : n.health === 'read-only' ? 'reachable, not writable' : 'not reachable') },
              { key: 'free', header: 'FREE', nowrap: true, width: 'minmax(170px, 1.3fr)', cell: (n) => (n.freeBytes ? <><SizeText value={n.freeBytes} />{n.totalBytes ? <> of <SizeText value={n.totalBytes} /></> : null}</> : '—') },
              { key: 'reason', header: 'REASON', width: 'minmax(140px, 2fr)', cell: (n) => n.reason ?? '' },
              { key: 'checked', header: 'CHECKED', nowrap: true, cellProps: (n) => ({ title: n.checkedAt }), cell: (n) => ageOf(n.checkedAt, now) },
            ]}
            minWidth={640}
          />
        )}
      </Stack>
    </Paper>
  );
}

function NewTarget({ hasDefault }: { hasDefault: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [path, setPath] = useState('');
  const [isDefault, setIsDefault] = useState(false);
  const [touched, setTouched] = useState(false);
  const create = useMutation(
    trpc.objects.create.mutationOptions({
      onSuccess: () => {
        setName('');
        setPath('');
        setIsDefault(false);
        setTouched(false);
        void queryClient.invalidateQueries({ queryKey: trpc.objects.list.queryKey({ kind: TARGET_KIND }) });
      },
    }),
  );
  const nameErr = name ? isDNS1123Subdomain(name)[0] : 'Enter a name';
  const pathErr = targetPathProblem(path);
  return (
    <Paper withBorder p="md">
      <form
        aria-label="New backup target"
        onSubmit={(e) => {
          e.preventDefault();
          setTouched(true);
          if (nameErr || pathErr) return;
          create.mutate({ manifest: JSON.stringify(targetManifest(name, path.trim(), isDefault)) });
        }}
      >
        <Stack gap="sm">
          <Title order={2} size="h5">
            New target
          </Title>
          <Group gap="sm" align="flex-start" wrap="wrap">
            <TextInput label="Name" value={name} onChange={(e) => setName(e.currentTarget.value.trim())} error={touched ? nameErr : undefined} w={220} maw="100%" data-testid="target-name" />
            <TextInput label="Path" description="Absolute; the same on every node" placeholder="/mnt/backups" value={path} onChange={(e) => setPath(e.currentTarget.value)} error={touched ? pathErr : undefined} w={320} maw="100%" data-testid="target-path-input" />
          </Group>
          <Checkbox
            label={hasDefault ? 'Default target (there is one already: unmark it first)' : 'Default target (backups that name none go here)'}
            checked={isDefault}
            onChange={(e) => setIsDefault(e.currentTarget.checked)}
            data-testid="target-default-input"
          />
          {create.error && (
            <Text size="sm" c="red" role="alert">
              {errorInfo(create.error).message}
            </Text>
          )}
          <Group>
            <Button type="submit" loading={create.isPending} data-testid="create-target">
              Add target
            </Button>
          </Group>
        </Stack>
      </form>
    </Paper>
  );
}

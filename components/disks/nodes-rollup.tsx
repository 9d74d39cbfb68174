'use client';
// The Nodes page's roll-up of storage per node: each node linking to its page, its pools and
// disks, disks per class, wiping, failed, quarantined, and whether its agent reports.
import { Alert, Badge, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { labelPoolNode } from '@/server/domain/well-known/labels';
import { poolsPerNode } from '../nodes/node-view';
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { errorInfo } from '../format/format';
import { usePermissions } from '../session/session';
import { useTRPC } from '../data/trpc';
import type { NodeSummary } from '../data/api-types';
import { DataTable, type DataColumn } from '../table/data-table';

const red = (n: number) => ({ style: n ? { color: 'var(--mantine-color-red-filled)' } : undefined });

type RollupRow = NodeSummary & { pools: number };

const ROLLUP_COLUMNS: DataColumn<RollupRow>[] = [
  {
    key: 'node',
    header: 'Node',
    // The node's page (its pools, disks and volumes); its Disks page one link further.
    cell: (n) => (
      <Stack gap={0}>
        <Link href={`/nodes/${encodeURIComponent(n.name)}`} data-testid="rollup-node-link">
          {n.name}
        </Link>
        <Link href={`/nodes/${encodeURIComponent(n.name)}/disks`} data-testid="rollup-disks-link" style={{ fontSize: 'var(--mantine-font-size-xs)' }}>
          disks
        </Link>
      </Stack>
    ),
  },
  { key: 'pools', header: 'Pools', width: 'max-content', cellProps: () => ({ 'data-testid': 'rollup-pools' }), cell: (n) => n.pools },
  { key: 'disks', header: 'Disks', width: 'max-content', cellProps: () => ({ 'data-testid': 'rollup-disks' }), cell: (n) => n.classes.reduce((a, c) => a + c.disks, 0) },
  {
    key: 'agent',
    header: 'Agent',
    // As wide as its badge: "reporting" must not be cut on a phone.
    width: 'max-content',
    cell: (n) => (
      <Badge color={n.ready ? 'green' : 'red'} variant="light">
        {n.ready ? 'reporting' : 'not reporting'}
      </Badge>
    ),
  },
  {
    key: 'classes',
    header: 'Disks per class (eligible / Available / Bound)',
    width: 'minmax(200px, 3fr)',
    cell: (n) => (
      <Group gap="xs">
        {n.classes.length === 0 && <Text size="xs" c="dimmed">none</Text>}
        {n.classes.map((c) => (
          <Badge key={c.className} variant="outline" color="gray">
            {c.className}: {c.disks} ({c.eligible} / {c.available} / {c.bound})
          </Badge>
        ))}
      </Group>
    ),
  },
  { key: 'wiping', header: 'Wiping', cellProps: () => ({ 'data-testid': 'rollup-wiping' }), cell: (n) => n.wiping },
  { key: 'failed', header: 'Failed', cellProps: (n) => red(n.failed), cell: (n) => n.failed },
  { key: 'quarantined', header: 'Quarantined', cellProps: (n) => red(n.quarantined), cell: (n) => n.quarantined },
];

export function NodesRollup() {
  const trpc = useTRPC();
  const perms = usePermissions();
  const allowed = perms.can('get', 'PersistentVolume');
  const q = useQuery({ ...trpc.localVolumes.rollup.queryOptions(), refetchInterval: 2000, enabled: allowed, staleTime: 0 });
  const pools = useQuery({ ...trpc.objects.list.queryOptions({ kind: 'CSIStorageCapacity' }), refetchInterval: 10_000, enabled: allowed && perms.can('list', 'CSIStorageCapacity') });
  const perNode = poolsPerNode(pools.data?.items ?? [], labelPoolNode);
  if (!allowed) return null;
  if (q.error) return <Alert color="red">{errorInfo(q.error).message}</Alert>;
  if (!q.data) return null;
  return (
    <Paper withBorder p="sm" data-testid="nodes-rollup">
      <Title order={2} size="h4" mb="xs">
        Storage per node
      </Title>
      <DataTable
        label="Local disks per node"
        columns={ROLLUP_COLUMNS}
        rows={q.data.map((n) => ({ ...n, pools: perNode.get(n.name) ?? 0 }))}
        rowKey={(n) => n.name}
        rowProps={(n) => ({ 'data-testid': 'rollup-row', 'data-node': n.name })}
        striped={false}
      />
    </Paper>
  );
}

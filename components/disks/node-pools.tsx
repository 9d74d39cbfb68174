'use client';
// A node's btrfs pools on its page: for each class's pool, the share of the filesystem
// used and the share promised to volumes (their limits), the room for new volumes, or why
// the path cannot serve as a pool on this node. From the pools' CSIStorageCapacity objects.
// Below, what the node reported over time (capacity.poolReports: refused reports with
// their reason), for those who may read nodes.
import { Alert, Group, Paper, Progress, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { labelPoolNode } from '@/server/domain/well-known/labels';
import { useTRPC } from '../data/trpc';
import { DataTable, type DataColumn } from '../table/data-table';
import { formatSize } from '../format/size';
import { poolView, type PoolView } from './pool-view';

function PoolRow({ p }: { p: PoolView }) {
  if (p.problem) {
    return (
      <Alert color="orange" title={`${p.className}: ${p.path} cannot serve as a pool`} data-testid="pool-problem">
        {p.problem}
      </Alert>
    );
  }
  return (
    <Stack gap={4} data-testid="pool-row" data-class={p.className}>
      <Group gap="xl" style={{ rowGap: 4 }}>
        <Text size="sm" fw={600}>
          {p.className} <Text span c="dimmed" inherit>{p.path}</Text>
        </Text>
        <Text size="sm">Total {formatSize(p.totalBytes)}</Text>
        <Text size="sm">Allocated {formatSize(p.allocatedBytes)}</Text>
        <Text size="sm">Used {formatSize(p.usedBytes)}</Text>
        {p.totalBytes !== undefined && p.usedBytes !== undefined && <Text size="sm" data-testid="pool-free">Free {formatSize(p.totalBytes - p.usedBytes)}</Text>}
        <Text size="sm" data-testid="pool-room">Room for new volumes {formatSize(p.roomBytes)}</Text>
      </Group>
      <Progress value={p.allocatedPercent ?? 0} size="sm" color="blue" aria-label={`Allocated ${formatSize(p.allocatedBytes)} of ${formatSize(p.totalBytes)}`} />
      <Progress value={p.usedPercent ?? 0} size="sm" color="teal" aria-label={`Used ${formatSize(p.usedBytes)} of ${formatSize(p.totalBytes)}`} />
    </Stack>
  );
}

interface ReportRow {
  time: string;
  type: string;
  className: string;
  totalBytes?: string;
  freeBytes?: string;
  capacity: string;
  problem?: string;
}

const REPORT_COLUMNS: DataColumn<ReportRow>[] = [
  { key: 'time', header: 'When (UTC)', cell: (r) => r.time.replace('T', ' ').replace(/\.\d+Z$/, ''), nowrap: true, width: '11rem' },
  { key: 'class', header: 'Class', cell: (r) => r.className },
  { key: 'total', header: 'Total', cell: (r) => (r.totalBytes ? formatSize(r.totalBytes) : ''), nowrap: true },
  { key: 'free', header: 'Free', cell: (r) => (r.freeBytes ? formatSize(r.freeBytes) : ''), nowrap: true },
  { key: 'room', header: 'Room offered', cell: (r) => (r.type === 'DELETED' ? 'withdrawn' : formatSize(r.capacity)), nowrap: true },
  { key: 'problem', header: 'Problem', cell: (r) => r.problem ?? '', width: '2fr' },
];

/** What the node reported of its pools, newest first (the last 50 changes). */
function NodePoolReports({ node }: { node: string }) {
  const trpc = useTRPC();
  const q = useQuery({ ...trpc.capacity.poolReports.queryOptions({ node, limit: 50 }), refetchInterval: 10_000, retry: false });
  const rows = q.data ?? [];
  if (rows.length === 0) return null;
  return (
    <Stack gap={4} data-testid="node-pool-reports">
      <Text fw={600} size="sm">
        Reported over time
      </Text>
      <DataTable label={`Pool reports of ${node}`} columns={REPORT_COLUMNS} rows={rows} rowKey={(r, i) => `${r.time}-${r.className}-${i}`} minWidth={640} />
    </Stack>
  );
}

export function NodePools({ node }: { node: string }) {
  const trpc = useTRPC();
  const q = useQuery({ ...trpc.objects.list.queryOptions({ kind: 'CSIStorageCapacity', labelSelector: `${labelPoolNode}=${node}` }), refetchInterval: 5000 });
  const items = q.data?.items ?? [];
  if (items.length === 0) return null;
  return (
    <Paper withBorder p="md" data-testid="node-pools" aria-label="Pools" component="section">
      <Text fw={600} size="sm" mb="xs">
        Pools
      </Text>
      <Stack gap="md">
        {items.map((c) => (
          <PoolRow key={c.metadata.name} p={poolView(c)} />
        ))}
        <NodePoolReports node={node} />
      </Stack>
    </Paper>
  );
}

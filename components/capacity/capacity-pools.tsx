'use client';
// The Capacity page's pools: every node's btrfs pool per class (from the pools'
// CSIStorageCapacity objects, as the node page's Pools panel), with total, allocated
// (the volumes' limits), used (the filesystem's), free, and the room for new volumes;
// a pool that cannot serve says why.
import { Alert, Progress, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { labelPoolNode } from '@/server/domain/well-known/labels';
import type { KubeObject } from '@/server/resources/types';
import { useTRPC } from '../data/trpc';
import { poolView, type PoolView } from '../disks/pool-view';
import { SizeText } from '../format/size-text';
import { ObjectLink } from '../objects/object-link';
import { DataTable, type DataColumn } from '../table/data-table';

interface PoolRow extends PoolView {
  node: string;
}

function Share({ bytes, percent, label }: { bytes?: bigint; percent?: number; label: string }) {
  if (bytes === undefined) return <Text span size="sm" c="dimmed">unknown</Text>;
  return (
    <Stack gap={2}>
      <Text span size="sm">
        <SizeText value={bytes} />
        {percent !== undefined && (
          <Text span size="xs" c="dimmed">
            {' '}
            ({Math.round(percent)}%)
          </Text>
        )}
      </Text>
      {percent !== undefined && <Progress value={percent} size={4} color={percent >= 90 ? 'orange.8' : 'blue.8'} aria-label={`${label} ${Math.round(percent)}%`} />}
    </Stack>
  );
}

const COLUMNS: DataColumn<PoolRow>[] = [
  { key: 'node', header: 'Node', cell: (p) => <ObjectLink kind="Node" name={p.node} />, cellProps: (p) => ({ 'data-testid': `pool-node-${p.node}` }) },
  { key: 'class', header: 'Class', cell: (p) => p.className },
  { key: 'path', header: 'Pool', cell: (p) => <Text span size="sm" ff="monospace">{p.path}</Text> },
  { key: 'total', header: 'Total', cell: (p) => (p.totalBytes === undefined ? '' : <SizeText value={p.totalBytes} />) },
  { key: 'allocated', header: 'Allocated', cell: (p) => <Share bytes={p.allocatedBytes} percent={p.allocatedPercent} label="Allocated" /> },
  { key: 'used', header: 'Used', cellProps: () => ({ 'data-testid': 'pool-used' }), cell: (p) => <Share bytes={p.usedBytes} percent={p.usedPercent} label="Used" /> },
  { key: 'free', header: 'Free', cell: (p) => (p.totalBytes === undefined || p.usedBytes === undefined ? '' : <SizeText value={p.totalBytes - p.usedBytes} />) },
  { key: 'room', header: 'Room for new volumes', cellProps: () => ({ 'data-testid': 'pool-room' }), cell: (p) => (p.roomBytes === undefined ? '' : <SizeText value={p.roomBytes} />) },
];

/** Rows of the pools that serve, and the ones that cannot, from the capacity objects. */
export function poolRows(items: KubeObject[]): { serving: PoolRow[]; problems: PoolRow[] } {
  const rows = items
    .filter((c) => c.metadata.labels?.[labelPoolNode])
    .map((c) => ({ node: c.metadata.labels![labelPoolNode], ...poolView(c) }))
    .sort((a, b) => a.node.localeCompare(b.node) || a.className.localeCompare(b.className));
  return { serving: rows.filter((r) => !r.problem), problems: rows.filter((r) => r.problem) };
}

export function CapacityPools() {
  const trpc = useTRPC();
  const q = useQuery({ ...trpc.objects.list.queryOptions({ kind: 'CSIStorageCapacity' }), refetchInterval: 5000 });
  const { serving, problems } = poolRows(q.data?.items ?? []);
  if (q.isError) return <Alert color="red" title="Could not load the pools">{q.error.message}</Alert>;
  if (serving.length + problems.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        No node reports a pool. A StorageClass of stowage.io/btrfs names one (see `stowage pool create`).
      </Text>
    );
  }
  return (
    <Stack gap="sm" data-testid="capacity-pools">
      {serving.length > 0 && <DataTable label="Pools" columns={COLUMNS} rows={serving} rowKey={(p) => `${p.node}/${p.className}`} rowProps={(p) => ({ 'data-testid': `pool-row-${p.node}-${p.className}` })} striped={false} />}
      {problems.map((p) => (
        <Alert key={`${p.node}/${p.className}`} color="orange" title={`${p.className} on node ${p.node}: ${p.path} cannot serve as a pool`} data-testid="pool-problem">
          {p.problem}
        </Alert>
      ))}
    </Stack>
  );
}

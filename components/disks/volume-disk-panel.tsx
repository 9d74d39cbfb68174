'use client';
// A local PV's page: its disk (node, host path, class) and its cleanup history.
import { Badge, Paper, Progress, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import type { KubeObject } from '@/server/resources/types';
import { useTRPC } from '../data/trpc';
import type { JobView } from '../data/api-types';
import { DataTable, type DataColumn } from '../table/data-table';
import { formatEta, percentOf } from './disk-format';

const JOB_COLUMNS: DataColumn<JobView>[] = [
  { key: 'when', header: 'When', cell: (j) => new Date(j.createdAt).toLocaleString() },
  { key: 'method', header: 'Method', cell: (j) => j.method },
  {
    key: 'state',
    header: 'State',
    cell: (j) => <Badge color={j.state === 'succeeded' ? 'green' : j.state === 'running' ? 'violet' : j.state === 'queued' ? 'gray' : 'red'}>{j.state}</Badge>,
  },
  { key: 'attempt', header: 'Attempt', cell: (j) => `attempt ${j.attempt}` },
  {
    key: 'progress',
    header: 'Progress',
    width: 'minmax(160px, 2fr)',
    cell: (j) =>
      j.state === 'running' ? (
        <>
          <Progress value={percentOf(j.progress) ?? 0} animated striped />
          <Text size="xs">ETA {formatEta(j.progress?.etaSeconds)}</Text>
        </>
      ) : (
        <Text size="xs" c="red">
          {j.lastError}
        </Text>
      ),
  },
];

export function VolumeDiskPanel({ pv }: { pv: KubeObject }) {
  const trpc = useTRPC();
  const name = pv.metadata.name!;
  const q = useQuery({ ...trpc.localVolumes.volumeHistory.queryOptions({ pv: name }), refetchInterval: 1000, staleTime: 0 });
  if (!q.data) return null;
  const { disk, jobs } = q.data;
  return (
    <Paper withBorder p="sm" data-testid="volume-disk-panel">
      <Title order={2} size="h4">Local disk</Title>
      {disk ? (
        <Text size="sm">
          <Link href={`/nodes/${encodeURIComponent(disk.node)}/disks`}>{disk.node}</Link> · <code>{disk.hostPath}</code> · class {disk.className}
          {!disk.present && <Badge color="red" ml="xs">missing</Badge>}
        </Text>
      ) : (
        <Text size="sm" c="dimmed">
          The node&apos;s agent does not report this disk.
        </Text>
      )}
      <Title order={3} size="h5" mt="sm">
        Cleanup history
      </Title>
      {jobs.length === 0 ? (
        <Text size="sm" c="dimmed">
          Never wiped.
        </Text>
      ) : (
        <DataTable
          label="Cleanup history"
          data-testid="cleanup-history"
          columns={JOB_COLUMNS}
          rows={jobs}
          rowKey={(j) => String(j.id)}
          hideHeader
          withBorder={false}
          striped={false}
        />
      )}
    </Paper>
  );
}

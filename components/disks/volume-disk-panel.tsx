'use client';
// A local PV's page: its disk (node, host path, class) and its cleanup history.
import { Badge, Paper, Progress, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import type { KubeObject } from '@/server/resources/types';
import { useTRPC } from '../data/trpc';
import { formatEta, percentOf } from './disk-format';

export function VolumeDiskPanel({ pv }: { pv: KubeObject }) {
  const trpc = useTRPC();
  const name = pv.metadata.name!;
  const q = useQuery({ ...trpc.localVolumes.volumeHistory.queryOptions({ pv: name }), refetchInterval: 1000, staleTime: 0 });
  if (!q.data) return null;
  const { disk, jobs } = q.data;
  return (
    <Paper withBorder p="sm" data-testid="volume-disk-panel">
      <Title order={4}>Local disk</Title>
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
      <Title order={5} mt="sm">
        Cleanup history
      </Title>
      {jobs.length === 0 ? (
        <Text size="sm" c="dimmed">
          Never wiped.
        </Text>
      ) : (
        <Table data-testid="cleanup-history">
          <Table.Tbody>
            {jobs.map((j) => (
              <Table.Tr key={j.id}>
                <Table.Td>{new Date(j.createdAt).toLocaleString()}</Table.Td>
                <Table.Td>{j.method}</Table.Td>
                <Table.Td>
                  <Badge color={j.state === 'succeeded' ? 'green' : j.state === 'running' ? 'violet' : j.state === 'queued' ? 'gray' : 'red'}>{j.state}</Badge>
                </Table.Td>
                <Table.Td>attempt {j.attempt}</Table.Td>
                <Table.Td style={{ minWidth: 160 }}>
                  {j.state === 'running' ? (
                    <>
                      <Progress value={percentOf(j.progress) ?? 0} animated striped />
                      <Text size="xs">ETA {formatEta(j.progress?.etaSeconds)}</Text>
                    </>
                  ) : (
                    <Text size="xs" c="red">
                      {j.lastError}
                    </Text>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Paper>
  );
}

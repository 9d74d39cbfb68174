'use client';
// The Nodes page's roll-up of local disks: per node, disks per class, wiping, failed,
// quarantined, and whether its agent reports.
import { Alert, Badge, Group, Paper, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { errorInfo } from '../format/format';
import { usePermissions } from '../session/session';
import { useTRPC } from '../data/trpc';

export function NodesRollup() {
  const trpc = useTRPC();
  const perms = usePermissions();
  const allowed = perms.can('get', 'PersistentVolume');
  const q = useQuery({ ...trpc.localVolumes.rollup.queryOptions(), refetchInterval: 2000, enabled: allowed, staleTime: 0 });
  if (!allowed) return null;
  if (q.error) return <Alert color="red">{errorInfo(q.error).message}</Alert>;
  if (!q.data) return null;
  return (
    <Paper withBorder p="sm" data-testid="nodes-rollup">
      <Title order={4} mb="xs">
        Local disks
      </Title>
      <Table>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Node</Table.Th>
            <Table.Th>Agent</Table.Th>
            <Table.Th>Disks per class (eligible / Available / Bound)</Table.Th>
            <Table.Th>Wiping</Table.Th>
            <Table.Th>Failed</Table.Th>
            <Table.Th>Quarantined</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {q.data.map((n) => (
            <Table.Tr key={n.name} data-testid="rollup-row" data-node={n.name}>
              <Table.Td>
                <Link href={`/nodes/${encodeURIComponent(n.name)}/disks`} data-testid="rollup-disks-link">
                  {n.name}
                </Link>
              </Table.Td>
              <Table.Td>
                <Badge color={n.ready ? 'green' : 'red'} variant="light">
                  {n.ready ? 'reporting' : 'not reporting'}
                </Badge>
              </Table.Td>
              <Table.Td>
                <Group gap="xs">
                  {n.classes.length === 0 && <Text size="xs" c="dimmed">none</Text>}
                  {n.classes.map((c) => (
                    <Badge key={c.className} variant="outline" color="gray">
                      {c.className}: {c.disks} ({c.eligible} / {c.available} / {c.bound})
                    </Badge>
                  ))}
                </Group>
              </Table.Td>
              <Table.Td data-testid="rollup-wiping">{n.wiping}</Table.Td>
              <Table.Td c={n.failed ? 'red' : undefined}>{n.failed}</Table.Td>
              <Table.Td c={n.quarantined ? 'red' : undefined}>{n.quarantined}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Paper>
  );
}

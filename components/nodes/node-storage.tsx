'use client';
// A node's storage in one place, as Longhorn's node view: its status (Ready or not,
// cordoned, last heartbeat, zone) with Drain and Uncordon for administrators, its pools with
// allocated and used bars, its disks with their whole state and live wipes, and the volumes
// it holds a copy of (claim names, which copy, a replica's state), a page at a time from the
// server: bounded for a node with 10,000 volumes.
import { Anchor, Badge, Button, Group, Pagination, Paper, SegmentedControl, Stack, Text, Tooltip } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/trpc/root';
import { readyCondition } from '@/server/domain/node-lifecycle';
import { labelZone } from '@/server/domain/well-known/labels';
import type { Node } from '@/server/resources/node/schema';
import { useTRPC } from '../data/trpc';
import { ageOf, errorInfo } from '../format/format';
import { SizeText } from '../format/size-text';
import { useNow } from '../format/use-now';
import { NodeDiskTable } from '../disks/node-disks';
import { NodePools } from '../disks/node-pools';
import { ObjectLink } from '../objects/object-link';
import { StatusBadge } from '../objects/status-badge';
import { usePermissions } from '../session/session';
import { DataTable, type DataColumn } from '../table/data-table';
import { NodeDrainActions } from './drain-dialog';
import { copyText, pageCount } from './node-view';

type NodeVolume = inferRouterOutputs<AppRouter>['localVolumes']['nodeVolumes']['items'][number];

export const NODE_VOLUMES_PAGE = 50;

function NodeStatus({ node }: { node: Node }) {
  const now = useNow(5000);
  const ready = readyCondition(node);
  const isReady = ready?.status === 'True';
  const cordoned = node.spec?.unschedulable === true;
  const zone = node.metadata.labels?.[labelZone];
  const heartbeat = ready?.lastHeartbeatTime;
  return (
    <Paper withBorder p="md" component="section" aria-label="Node status" data-testid="node-status">
      <Group justify="space-between" align="flex-start" gap="sm">
        <Group gap="sm" align="center">
          <Badge color={isReady ? 'green' : 'red'} variant="light" data-testid="node-ready" data-ready={isReady}>
            {isReady ? 'Ready' : 'NotReady'}
          </Badge>
          {cordoned && (
            <Tooltip label="Cordoned: no new pod is placed on this node">
              <Badge color="orange" variant="light" data-testid="node-cordoned-status">
                cordoned
              </Badge>
            </Tooltip>
          )}
          <Text size="sm" data-testid="node-heartbeat">
            Last heartbeat{' '}
            {heartbeat ? (
              <Text span inherit title={heartbeat}>
                {ageOf(heartbeat, now)} ago
              </Text>
            ) : (
              <Text span c="dimmed" inherit>
                never
              </Text>
            )}
          </Text>
          <Text size="sm" data-testid="node-zone">
            Zone{' '}
            {zone ? (
              zone
            ) : (
              <Text span c="dimmed" inherit>
                none
              </Text>
            )}
          </Text>
        </Group>
        <NodeDrainActions node={node.metadata.name ?? ''} cordoned={cordoned} />
      </Group>
      {!isReady && ready?.message && (
        <Text size="sm" c="dimmed" mt="xs">
          {ready.message}
        </Text>
      )}
    </Paper>
  );
}

function CopyCell({ v }: { v: NodeVolume }) {
  const c = v.copy;
  if (c.role === 'replica') {
    return (
      <Group gap={6} wrap="wrap">
        <Badge size="sm" variant="light" color="grape" tt="none">
          replica
        </Badge>
        <StatusBadge value={c.state} size="xs" />
        <Text size="xs" c="dimmed" title={c.error}>
          {copyText(c)}
        </Text>
      </Group>
    );
  }
  return (
    <Badge size="sm" variant="light" color={c.role === 'active' ? 'blue' : 'gray'} tt="none">
      {copyText(c)}
    </Badge>
  );
}

const VOLUME_COLUMNS: DataColumn<NodeVolume>[] = [
  {
    key: 'claim',
    header: 'Claim',
    width: 'minmax(160px, 2fr)',
    cell: (v) => (
      <Stack gap={0}>
        <ObjectLink kind="PersistentVolume" name={v.pvName}>
          {v.claim ?? v.pvName}
        </ObjectLink>
        {v.claim && (
          <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
            {v.pvName}
          </Text>
        )}
      </Stack>
    ),
    cellProps: (v) => ({ 'data-testid': 'node-volume-claim', 'data-claim': v.claim ?? '' }),
  },
  { key: 'phase', header: 'Status', cell: (v) => (v.phase ? <StatusBadge value={v.phase} size="xs" /> : ''), width: 'max-content' },
  { key: 'class', header: 'Class', cell: (v) => v.storageClass || '—', width: 'minmax(80px, 1fr)' },
  { key: 'capacity', header: 'Capacity', cell: (v) => (v.capacityBytes ? <SizeText value={v.capacityBytes} /> : '—'), nowrap: true, width: 'max-content' },
  { key: 'copy', header: 'Copy here', cell: (v) => <CopyCell v={v} />, width: 'minmax(140px, 1.5fr)' },
];

function NodeVolumes({ node }: { node: string }) {
  const trpc = useTRPC();
  const [page, setPage] = useState(1);
  const [which, setWhich] = useState<'all' | 'replicas'>('all');
  const q = useQuery({
    ...trpc.localVolumes.nodeVolumes.queryOptions({ node, offset: (page - 1) * NODE_VOLUMES_PAGE, limit: NODE_VOLUMES_PAGE, replicasOnly: which === 'replicas' }),
    placeholderData: keepPreviousData,
    refetchInterval: 10_000,
  });
  const total = q.data?.total ?? 0;
  const pages = pageCount(total, NODE_VOLUMES_PAGE);
  return (
    <Paper withBorder p="md" component="section" aria-label="Volumes on this node" data-testid="node-volumes">
      <Group justify="space-between" mb="xs" gap="sm">
        <Text fw={600} size="sm">
          Volumes on this node{q.data ? ` (${total})` : ''}
        </Text>
        <SegmentedControl
          size="xs"
          value={which}
          onChange={(v) => {
            setWhich(v === 'replicas' ? 'replicas' : 'all');
            setPage(1);
          }}
          data={[
            { value: 'all', label: 'All copies' },
            { value: 'replicas', label: 'Replicas held' },
          ]}
          data-testid="node-volumes-which"
        />
      </Group>
      {q.isError ? (
        <Text size="sm" c="red" role="alert">
          {errorInfo(q.error).message}
        </Text>
      ) : !q.data ? (
        <Text size="sm" c="dimmed">
          Loading…
        </Text>
      ) : q.data.items.length === 0 && total === 0 ? (
        <Text size="sm" c="dimmed" data-testid="node-volumes-empty">
          {which === 'replicas' ? 'This node holds no replica of another node’s volume.' : 'No volume has a copy on this node.'}
        </Text>
      ) : (
        <Stack gap="xs">
          <DataTable
            label="Volumes on this node"
            columns={VOLUME_COLUMNS}
            rows={q.data.items}
            rowKey={(v) => v.pvName}
            rowProps={(v) => ({ 'data-testid': 'node-volume-row', 'data-pv': v.pvName, 'data-copy': v.copy.role })}
            minWidth={560}
          />
          {pages > 1 && (
            <Group justify="space-between">
              <Text size="xs" c="dimmed">
                {(page - 1) * NODE_VOLUMES_PAGE + 1}–{Math.min(total, page * NODE_VOLUMES_PAGE)} of {total}
              </Text>
              <Pagination size="sm" total={pages} value={Math.min(page, pages)} onChange={setPage} data-testid="node-volumes-pages" />
            </Group>
          )}
        </Stack>
      )}
    </Paper>
  );
}

/** Everything a node's page shows of its storage, above the object's summary. */
export function NodeStorage({ node }: { node: Node }) {
  const perms = usePermissions();
  const name = node.metadata.name ?? '';
  const mayReadVolumes = perms.can('list', 'PersistentVolume');
  return (
    <>
      <NodeStatus node={node} />
      <NodePools node={name} />
      {perms.can('get', 'PersistentVolume') && (
        <Paper withBorder p="md" component="section" aria-label="Disks" data-testid="node-disks-section">
          <Group justify="space-between" mb="xs">
            <Text fw={600} size="sm">
              Disks
            </Text>
            <Anchor component={Link} href={`/nodes/${encodeURIComponent(name)}/disks`} size="sm" data-testid="node-disks-link">
              Disks page
            </Anchor>
          </Group>
          <NodeDiskTable node={name} />
        </Paper>
      )}
      {mayReadVolumes && <NodeVolumes node={name} />}
      {!mayReadVolumes && (
        <Button component={Link} href={`/nodes/${encodeURIComponent(name)}/disks`} variant="light" size="xs" w="fit-content" data-testid="node-disks-link">
          Disks
        </Button>
      )}
    </>
  );
}

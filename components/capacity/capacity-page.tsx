'use client';
// The Capacity page: provisioned, bound, free, requested and used bytes per class, node and
// namespace, the trend per class with "days until full", and per namespace the days until
// its quotas' storage limits are full.
import { Alert, Anchor, Loader, Stack, Tabs, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { forecastText } from '@/server/domain/capacity-forecast';
import type { CapacityOverview, ClassTrend, NamespaceQuotaForecast } from '../data/api-types';
import { errorInfo } from '../format/format';
import { useTRPC } from '../data/trpc';
import { SizeText } from '../format/size-text';
import { percentOf } from './capacity-format';
import { TrendSection } from './capacity-trend';
import { CapacityPools } from './capacity-pools';
import { DataTable, type DataColumn } from '../table/data-table';

const UNKNOWN_USED = 'No volume here reports the bytes written on it (host-path and btrfs pool volumes and local disks do).';

function Used({ bytes }: { bytes: string | null }) {
  return bytes === null ? (
    <Text span size="sm" c="dimmed" title={UNKNOWN_USED}>
      unknown
    </Text>
  ) : (
    <SizeText value={bytes} />
  );
}

function Bound({ bound, provisioned }: { bound: string; provisioned: string }) {
  const pct = percentOf(bound, provisioned);
  return (
    <>
      <SizeText value={bound} />
      {pct !== undefined && (
        <Text span size="xs" c="dimmed">
          {' '}
          ({pct}%)
        </Text>
      )}
    </>
  );
}

type ClassRow = CapacityOverview['classes'][number];
type NodeRow = CapacityOverview['nodes'][number];
type NamespaceRow = CapacityOverview['namespaces'][number];

function classColumns(seeVolumes: boolean, trends: ClassTrend[] | undefined): DataColumn<ClassRow>[] {
  const volumes: DataColumn<ClassRow>[] = [
    { key: 'volumes', header: 'Volumes', cell: (c) => c.volumes },
    { key: 'provisioned', header: 'Provisioned', cellProps: () => ({ 'data-testid': 'provisioned' }), cell: (c) => <SizeText value={c.provisionedBytes} /> },
    { key: 'bound', header: 'Bound', cellProps: () => ({ 'data-testid': 'bound' }), cell: (c) => <Bound bound={c.boundBytes} provisioned={c.provisionedBytes} /> },
    { key: 'free', header: 'Free', cell: (c) => <SizeText value={c.freeBytes} /> },
    { key: 'used', header: 'Used', cell: (c) => <Used bytes={c.usedBytes} /> },
  ];
  const forecast: DataColumn<ClassRow> = {
    key: 'full',
    header: 'Days until full',
    cell: (c) => {
      const f = trends?.find((t) => t.storageClass === c.storageClass)?.forecast;
      return f ? forecastText(f) : '…';
    },
  };
  return [
    {
      key: 'class',
      header: 'Class',
      cell: (c) =>
        c.storageClass ? (
          <Anchor component={Link} href={`/storage-classes/${encodeURIComponent(c.storageClass)}`} fz="sm">
            {c.storageClass}
          </Anchor>
        ) : (
          <Text span c="dimmed" size="sm">
            (no class)
          </Text>
        ),
    },
    ...(seeVolumes ? volumes : []),
    { key: 'claims', header: 'Claims', cell: (c) => c.claims },
    { key: 'requested', header: 'Requested', cell: (c) => <SizeText value={c.requestedBytes} /> },
    ...(seeVolumes ? [forecast] : []),
  ];
}

function ClassTable({ o, trends }: { o: CapacityOverview; trends: ClassTrend[] | undefined }) {
  if (o.classes.length === 0) return <Text size="sm">No volumes or claims yet.</Text>;
  return (
    <DataTable
      label="Capacity per class"
      data-testid="capacity-classes"
      columns={classColumns(o.seeVolumes, trends)}
      rows={o.classes}
      rowKey={(c) => c.storageClass}
      rowProps={(c) => ({ 'data-testid': `class-row-${c.storageClass || 'none'}` })}
      striped={false}
    />
  );
}

const NODE_COLUMNS: DataColumn<NodeRow>[] = [
  {
    key: 'node',
    header: 'Node',
    cell: (n) => (
      <Anchor component={Link} href={`/nodes/${encodeURIComponent(n.nodeName)}/disks`} fz="sm">
        {n.nodeName}
      </Anchor>
    ),
  },
  { key: 'volumes', header: 'Volumes', cell: (n) => n.volumes },
  { key: 'provisioned', header: 'Provisioned', cell: (n) => <SizeText value={n.provisionedBytes} /> },
  { key: 'bound', header: 'Bound', cell: (n) => <Bound bound={n.boundBytes} provisioned={n.provisionedBytes} /> },
  { key: 'free', header: 'Free', cell: (n) => <SizeText value={n.freeBytes} /> },
  { key: 'used', header: 'Used', cell: (n) => <Used bytes={n.usedBytes} /> },
];

function NodeTable({ o }: { o: CapacityOverview }) {
  if (o.nodes.length === 0) return <Text size="sm">No local volumes: no volume is pinned to a node.</Text>;
  return <DataTable label="Capacity per node" data-testid="capacity-nodes" columns={NODE_COLUMNS} rows={o.nodes} rowKey={(n) => n.nodeName} striped={false} />;
}

/** Every storage limit of the namespace's quotas, soonest full first (the first in bold). */
function QuotaFull({ f }: { f: NamespaceQuotaForecast | undefined }) {
  if (!f)
    return (
      <Text span size="sm" c="dimmed">
        no storage quota
      </Text>
    );
  return (
    <Stack gap={0}>
      {f.limits.map((l, i) => (
        <div key={`${l.quota}/${l.resource}`} data-testid="quota-limit">
          <Text size="sm" fw={i === 0 ? 700 : undefined}>
            {forecastText(l.forecast)}
          </Text>
          <Text size="xs" c="dimmed">
            {l.quota}: {l.resource} <SizeText value={l.requestedBytes} /> of <SizeText value={l.hardBytes} />
          </Text>
        </div>
      ))}
    </Stack>
  );
}

function namespaceColumns(forecasts: NamespaceQuotaForecast[] | undefined): DataColumn<NamespaceRow>[] {
  return [
    {
      key: 'namespace',
      header: 'Namespace',
      cell: (n) => (
        <Anchor component={Link} href={`/namespaces/${encodeURIComponent(n.namespace)}`} fz="sm">
          {n.namespace}
        </Anchor>
      ),
    },
    {
      key: 'claims',
      header: 'Claims',
      cell: (n) => (
        <Anchor component={Link} href={`/claims?namespace=${encodeURIComponent(n.namespace)}`} fz="sm" aria-label={`${n.claims} claims in ${n.namespace}`}>
          {n.claims}
        </Anchor>
      ),
    },
    { key: 'pending', header: 'Pending', cell: (n) => n.pendingClaims },
    { key: 'requested', header: 'Requested', cell: (n) => <SizeText value={n.requestedBytes} /> },
    { key: 'bound-volumes', header: 'Bound volumes', cell: (n) => n.boundVolumes },
    { key: 'bound', header: 'Bound capacity', cell: (n) => <SizeText value={n.boundBytes} /> },
    { key: 'used', header: 'Used', cell: (n) => <Used bytes={n.usedBytes} /> },
    {
      key: 'full',
      header: 'Days until quota full',
      width: 'minmax(160px, 2fr)',
      cellProps: () => ({ 'data-testid': 'quota-forecast' }),
      cell: (n) => (forecasts ? <QuotaFull f={forecasts.find((f) => f.namespace === n.namespace)} /> : '…'),
    },
  ];
}

function NamespaceTable({ o, forecasts }: { o: CapacityOverview; forecasts: NamespaceQuotaForecast[] | undefined }) {
  if (o.namespaces.length === 0) return <Text size="sm">No claims yet.</Text>;
  return (
    <DataTable
      label="Capacity per namespace"
      data-testid="capacity-namespaces"
      columns={namespaceColumns(forecasts)}
      rows={o.namespaces}
      rowKey={(n) => n.namespace}
      rowProps={(n) => ({ 'data-testid': `namespace-row-${n.namespace}` })}
      striped={false}
    />
  );
}

export function CapacityPage() {
  const trpc = useTRPC();
  const overview = useQuery({ ...trpc.capacity.overview.queryOptions(), refetchInterval: 10_000 });
  const trend = useQuery({ ...trpc.capacity.trend.queryOptions(), refetchInterval: 60_000 });
  const forecasts = useQuery({ ...trpc.capacity.quotaForecast.queryOptions(), refetchInterval: 60_000 });
  const o = overview.data;
  return (
    <Stack gap="md">
      <div>
        <Title order={1} size="h3">
          Capacity
        </Title>
        <Text size="sm" c="dimmed">
          Provisioned is the capacity of the volumes, bound the part bound to claims, free the Available volumes, requested what claims ask for. Used is
          the sum of what the volumes report (host-path and btrfs pool volumes, local disks). Pools are the nodes&apos; btrfs pools.
        </Text>
      </div>
      {(overview.error || trend.error || forecasts.error) && (
        <Alert color="red" title="Could not load capacity">
          {errorInfo(overview.error ?? trend.error ?? forecasts.error).message}
        </Alert>
      )}
      {!o ? (
        <Loader role="status" aria-label="Loading capacity" />
      ) : (
        <>
          <Tabs defaultValue="classes" keepMounted={false}>
            <Tabs.List aria-label="Capacity by">
              <Tabs.Tab value="classes">Per class</Tabs.Tab>
              {o.seeVolumes && <Tabs.Tab value="nodes">Per node</Tabs.Tab>}
              {o.seeVolumes && <Tabs.Tab value="pools">Pools</Tabs.Tab>}
              <Tabs.Tab value="namespaces">Per namespace</Tabs.Tab>
            </Tabs.List>
            <Tabs.Panel value="classes" pt="sm">
              <ClassTable o={o} trends={trend.data?.classes} />
            </Tabs.Panel>
            {o.seeVolumes && (
              <Tabs.Panel value="nodes" pt="sm">
                <NodeTable o={o} />
              </Tabs.Panel>
            )}
            {o.seeVolumes && (
              <Tabs.Panel value="pools" pt="sm">
                <CapacityPools />
              </Tabs.Panel>
            )}
            <Tabs.Panel value="namespaces" pt="sm">
              <NamespaceTable o={o} forecasts={forecasts.data} />
            </Tabs.Panel>
          </Tabs>
          <TrendSection trend={trend.data} seeVolumes={o.seeVolumes} />
        </>
      )}
    </Stack>
  );
}

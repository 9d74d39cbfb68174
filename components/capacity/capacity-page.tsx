'use client';
// The Capacity page: provisioned, bound, free, requested and used bytes per class, node and
// namespace, the trend per class with "days until full", and per namespace the days until
// its quotas' storage limits are full.
import { Alert, Anchor, Loader, Stack, Table, Tabs, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { forecastText } from '@/server/domain/capacity-forecast';
import type { CapacityOverview, ClassTrend, NamespaceQuotaForecast } from '@/server/services/capacity';
import { errorInfo } from '../format/format';
import { useTRPC } from '../data/trpc';
import { SizeText } from '../format/size-text';
import { percentOf } from './capacity-format';
import { TrendSection } from './capacity-trend';

const UNKNOWN_USED = 'No agent or plugin reports the bytes written on volumes yet.';

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

function ClassTable({ o, trends }: { o: CapacityOverview; trends: ClassTrend[] | undefined }) {
  if (o.classes.length === 0) return <Text size="sm">No volumes or claims yet.</Text>;
  return (
    <Table withTableBorder aria-label="Capacity per class" data-testid="capacity-classes">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Class</Table.Th>
          {o.seeVolumes && (
            <>
              <Table.Th>Volumes</Table.Th>
              <Table.Th>Provisioned</Table.Th>
              <Table.Th>Bound</Table.Th>
              <Table.Th>Free</Table.Th>
              <Table.Th>Used</Table.Th>
            </>
          )}
          <Table.Th>Claims</Table.Th>
          <Table.Th>Requested</Table.Th>
          {o.seeVolumes && <Table.Th>Days until full</Table.Th>}
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {o.classes.map((c) => {
          const f = trends?.find((t) => t.storageClass === c.storageClass)?.forecast;
          return (
            <Table.Tr key={c.storageClass} data-testid={`class-row-${c.storageClass || 'none'}`}>
              <Table.Td>
                {c.storageClass ? (
                  <Anchor component={Link} href={`/storage-classes/${encodeURIComponent(c.storageClass)}`} fz="sm">
                    {c.storageClass}
                  </Anchor>
                ) : (
                  <Text span c="dimmed" size="sm">
                    (no class)
                  </Text>
                )}
              </Table.Td>
              {o.seeVolumes && (
                <>
                  <Table.Td>{c.volumes}</Table.Td>
                  <Table.Td data-testid="provisioned"><SizeText value={c.provisionedBytes} /></Table.Td>
                  <Table.Td data-testid="bound">
                    <Bound bound={c.boundBytes} provisioned={c.provisionedBytes} />
                  </Table.Td>
                  <Table.Td><SizeText value={c.freeBytes} /></Table.Td>
                  <Table.Td>
                    <Used bytes={c.usedBytes} />
                  </Table.Td>
                </>
              )}
              <Table.Td>{c.claims}</Table.Td>
              <Table.Td><SizeText value={c.requestedBytes} /></Table.Td>
              {o.seeVolumes && <Table.Td>{f ? forecastText(f) : '…'}</Table.Td>}
            </Table.Tr>
          );
        })}
      </Table.Tbody>
    </Table>
  );
}

function NodeTable({ o }: { o: CapacityOverview }) {
  if (o.nodes.length === 0) return <Text size="sm">No local volumes: no volume is pinned to a node.</Text>;
  return (
    <Table withTableBorder aria-label="Capacity per node" data-testid="capacity-nodes">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Node</Table.Th>
          <Table.Th>Volumes</Table.Th>
          <Table.Th>Provisioned</Table.Th>
          <Table.Th>Bound</Table.Th>
          <Table.Th>Free</Table.Th>
          <Table.Th>Used</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {o.nodes.map((n) => (
          <Table.Tr key={n.nodeName}>
            <Table.Td>
              <Anchor component={Link} href={`/nodes/${encodeURIComponent(n.nodeName)}/disks`} fz="sm">
                {n.nodeName}
              </Anchor>
            </Table.Td>
            <Table.Td>{n.volumes}</Table.Td>
            <Table.Td><SizeText value={n.provisionedBytes} /></Table.Td>
            <Table.Td>
              <Bound bound={n.boundBytes} provisioned={n.provisionedBytes} />
            </Table.Td>
            <Table.Td><SizeText value={n.freeBytes} /></Table.Td>
            <Table.Td>
              <Used bytes={n.usedBytes} />
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
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

function NamespaceTable({ o, forecasts }: { o: CapacityOverview; forecasts: NamespaceQuotaForecast[] | undefined }) {
  if (o.namespaces.length === 0) return <Text size="sm">No claims yet.</Text>;
  return (
    <Table withTableBorder aria-label="Capacity per namespace" data-testid="capacity-namespaces">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Namespace</Table.Th>
          <Table.Th>Claims</Table.Th>
          <Table.Th>Pending</Table.Th>
          <Table.Th>Requested</Table.Th>
          <Table.Th>Bound volumes</Table.Th>
          <Table.Th>Bound capacity</Table.Th>
          <Table.Th>Used</Table.Th>
          <Table.Th>Days until quota full</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {o.namespaces.map((n) => (
          <Table.Tr key={n.namespace} data-testid={`namespace-row-${n.namespace}`}>
            <Table.Td>
              <Anchor component={Link} href={`/namespaces/${encodeURIComponent(n.namespace)}`} fz="sm">
                {n.namespace}
              </Anchor>
            </Table.Td>
            <Table.Td>
              <Anchor component={Link} href={`/claims?namespace=${encodeURIComponent(n.namespace)}`} fz="sm" aria-label={`${n.claims} claims in ${n.namespace}`}>
                {n.claims}
              </Anchor>
            </Table.Td>
            <Table.Td>{n.pendingClaims}</Table.Td>
            <Table.Td><SizeText value={n.requestedBytes} /></Table.Td>
            <Table.Td>{n.boundVolumes}</Table.Td>
            <Table.Td><SizeText value={n.boundBytes} /></Table.Td>
            <Table.Td>
              <Used bytes={n.usedBytes} />
            </Table.Td>
            <Table.Td data-testid="quota-forecast">{forecasts ? <QuotaFull f={forecasts.find((f) => f.namespace === n.namespace)} /> : '…'}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
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
          shown where an agent or plugin reports it.
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

'use client';
// The home page: what needs attention (Pending claims and why, Failed and Released
// volumes, wipes in progress, quotas near full) and capacity per class, each count linking
// to the filtered list or the page that shows it.
import { formatSize } from '../format/size';
import { Alert, Anchor, Box, Group, List, Loader, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { Fragment } from 'react';
import { PendingStatus } from '../claims/pending-hint';
import { NoDefaultClassNotice } from '../classes/default-class-switch';
import { errorInfo } from '../format/format';
import { ResourceAmount, SizeText } from '../format/size-text';
import { useTRPC } from '../data/trpc';
import type { PersistentVolumeClaim } from '@/server/resources/persistent-volume-claim/schema';
import { isKind } from '@/server/resources/of-kind';
import type { ClassCapacity } from '../data/api-types';
import { DataTable, type DataColumn } from '../table/data-table';
import { conditionBindable } from '@/server/domain/well-known/conditions';
import { LaggingReplicas } from './lagging-replicas';

const PENDING_COLUMNS: DataColumn<PersistentVolumeClaim>[] = [
  {
    key: 'claim',
    header: 'Claim',
    cell: (c) => (
      <Anchor component={Link} href={`/claims/${encodeURIComponent(c.metadata.namespace ?? '')}/${encodeURIComponent(c.metadata.name ?? '')}`} fz="sm">
        {c.metadata.namespace}/{c.metadata.name}
      </Anchor>
    ),
  },
  {
    key: 'why',
    header: 'Why',
    width: 'minmax(160px, 2fr)',
    cell: (c) => (
      <Group gap="xs" wrap="nowrap">
        <Box style={{ flexShrink: 0 }}>
          <PendingStatus claim={c} text="Pending" />
        </Box>
        <Text size="sm">{(c.status?.conditions ?? []).find((x) => x.type === conditionBindable)?.message ?? 'Not looked at yet'}</Text>
      </Group>
    ),
  },
];

const CLASS_COLUMNS: DataColumn<ClassCapacity>[] = [
  { key: 'class', header: 'Class', cell: (c) => c.storageClass || <Text span c="dimmed" size="sm">(no class)</Text> },
  { key: 'volumes', header: 'Volumes', cell: (c) => c.volumes },
  { key: 'capacity', header: 'Capacity', cell: (c) => <SizeText value={c.capacityBytes} /> },
  { key: 'bound', header: 'Bound', cell: (c) => <SizeText value={c.boundBytes} /> },
  { key: 'available', header: 'Available', cell: (c) => <SizeText value={c.availableBytes} /> },
  { key: 'claims', header: 'Claims', cell: (c) => c.claims },
  { key: 'requested', header: 'Requested', cell: (c) => <SizeText value={c.requestedBytes} /> },
];

/** A count card: the whole card is the link to the list it counts. */
function Stat({ label, value, href, tone, testId, note }: { label: string; value: number; href: string; tone?: 'warn' | 'bad'; testId: string; note?: string }) {
  const color = value === 0 ? undefined : tone === 'bad' ? 'red.8' : tone === 'warn' ? 'orange.9' : undefined;
  return (
    <Paper withBorder p="md" component={Link} href={href} data-testid={testId} className="stowage-card-link">
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text fz={28} fw={700} c={color ?? 'var(--mantine-color-anchor)'} data-testid={`${testId}-value`}>
        {value}
      </Text>
      {note && (
        <Text size="xs" c="dimmed">
          {note}
        </Text>
      )}
    </Paper>
  );
}

export function HealthSummary() {
  const trpc = useTRPC();
  const health = useQuery(trpc.lists.health.queryOptions());
  const pending = useQuery(
    trpc.lists.page.queryOptions({ kind: 'PersistentVolumeClaim', pending: 'stuck', sort: { key: 'age', dir: 'asc' }, limit: 5 }),
  );
  const attention = useQuery({ ...trpc.capacity.attention.queryOptions(), refetchInterval: 5000 });
  const h = health.data;
  const quotas = attention.data?.quotas ?? [];
  const wipes = attention.data?.wipes ?? null;
  const wiping = (wipes ?? []).reduce((n, w) => n + w.running + w.queued, 0);
  const nearlyFull = attention.data?.nearlyFull;
  return (
    <Stack gap="md">
      <Title order={1} size="h3">
        Overview
      </Title>
      <NoDefaultClassNotice />
      {health.error && (
        <Alert color="red" title="Could not load the overview">
          {errorInfo(health.error).message}
        </Alert>
      )}
      {!h ? (
        <Loader role="status" aria-label="Loading the overview" />
      ) : (
        <>
          <section aria-labelledby="attention">
            <Title order={2} size="h4" id="attention" mb="xs">
              Needs attention
            </Title>
            <SimpleGrid cols={{ base: 2, md: 4 }}>
              <Stat
                label="Stuck claims"
                value={Math.max(0, (h.phases.PersistentVolumeClaim.Pending ?? 0) - h.waitingClaims)}
                href="/claims?status=Stuck"
                tone="warn"
                testId="stat-pending-claims"
                note="Pending, and not waiting for a pod"
              />
              <Stat label="Waiting for a pod" value={h.waitingClaims} href="/claims?status=WaitingForPod" testId="stat-waiting-claims" note="bind when a pod uses them" />
              <Stat label="Lost claims" value={h.phases.PersistentVolumeClaim.Lost ?? 0} href="/claims?status=Lost" tone="bad" testId="stat-lost-claims" />
              {h.seeVolumes && (
                <>
                  <Stat label="Failed volumes" value={h.phases.PersistentVolume.Failed ?? 0} href="/volumes?status=Failed" tone="bad" testId="stat-failed-volumes" />
                  <Stat label="Released volumes" value={h.phases.PersistentVolume.Released ?? 0} href="/volumes?status=Released" tone="warn" testId="stat-released-volumes" />
                </>
              )}
              {wipes && (
                <Stat
                  label="Wipes in progress"
                  value={wiping}
                  href={wipes.length === 1 ? `/nodes/${encodeURIComponent(wipes[0].nodeName)}/disks` : '/nodes'}
                  testId="stat-wipes"
                />
              )}
              <Stat label="Quotas near full" value={quotas.length} href="/quotas" tone="warn" testId="stat-quotas-near-full" />
              <Stat label="Claims nearly full" value={nearlyFull?.claims.length ?? 0} href="/claims?sort=-used" tone="warn" testId="stat-claims-nearly-full" />
            </SimpleGrid>
          </section>

          {nearlyFull && nearlyFull.claims.length > 0 && <NearlyFullClaims data={nearlyFull} />}
          {h.laggingReplicas && <LaggingReplicas data={h.laggingReplicas} />}

          {(quotas.length > 0 || wiping > 0) && (
            <SimpleGrid cols={{ base: 1, md: 2 }}>
              {quotas.length > 0 && (
                <section aria-labelledby="quotas-near-full">
                  <Title order={2} size="h4" id="quotas-near-full" mb="xs">
                    Quotas near full
                  </Title>
                  {/* A per-class limit's name is one long word (<class>.storageclass.storage.k8s.io/...): it breaks anywhere rather than push the page sideways. */}
                  <List size="sm" spacing={4} data-testid="quotas-near-full" style={{ overflowWrap: 'anywhere' }}>
                    {quotas.map((q) => (
                      <List.Item key={`${q.namespace}/${q.name}`}>
                        <Anchor component={Link} href={`/quotas/${encodeURIComponent(q.namespace)}/${encodeURIComponent(q.name)}`} fz="sm">
                          {q.namespace}/{q.name}
                        </Anchor>
                        {': '}
                        {q.limits.map((l, i) => (
                          <Fragment key={l.resource}>
                            {i > 0 && ', '}
                            {l.resource} <ResourceAmount resource={l.resource} value={l.used} /> of <ResourceAmount resource={l.resource} value={l.hard} /> (
                            {Math.round(l.ratio * 100)}%)
                          </Fragment>
                        ))}
                      </List.Item>
                    ))}
                  </List>
                </section>
              )}
              {wipes && wiping > 0 && (
                <section aria-labelledby="wipes">
                  <Title order={2} size="h4" id="wipes" mb="xs">
                    Wipes in progress
                  </Title>
                  <List size="sm" spacing={4} data-testid="wipes">
                    {wipes.map((w) => (
                      <List.Item key={w.nodeName}>
                        <Anchor component={Link} href={`/nodes/${encodeURIComponent(w.nodeName)}/disks`} fz="sm">
                          {w.nodeName}
                        </Anchor>
                        {`: ${w.running} running, ${w.queued} queued`}
                      </List.Item>
                    ))}
                  </List>
                </section>
              )}
            </SimpleGrid>
          )}

          <section aria-labelledby="pending-claims">
            <Title order={2} size="h4" id="pending-claims" mb="xs">
              Oldest stuck claims
            </Title>
            {(pending.data?.items.length ?? 0) === 0 ? (
              <Text size="sm" c="dimmed">
                No claim is waiting.
              </Text>
            ) : (
              <DataTable label="Oldest stuck claims" columns={PENDING_COLUMNS} rows={pending.data!.items.filter((c) => isKind(c, 'PersistentVolumeClaim'))} rowKey={(c) => `${c.metadata.namespace}/${c.metadata.name}`} striped={false} />
            )}
          </section>

          {h.seeVolumes && (
            <section aria-labelledby="capacity">
              <Group justify="space-between" mb="xs">
                <Title order={2} size="h4" id="capacity">
                  Capacity per class
                </Title>
                <Anchor component={Link} href="/capacity" fz="sm">
                  Trend and days until full
                </Anchor>
              </Group>
              <DataTable label="Capacity per class" data-testid="capacity-table" columns={CLASS_COLUMNS} rows={h.classes} rowKey={(c) => c.storageClass} striped={false} />
            </section>
          )}
        </>
      )}
    </Stack>
  );
}

/** Claims whose volume's used bytes reach the threshold, fullest first. */
function NearlyFullClaims({ data }: { data: { thresholdPercent: number; claims: { namespace: string; name: string; usedBytes: string; capacityBytes: string; percent: number }[] } }) {
  return (
    <section aria-labelledby="claims-nearly-full">
      <Title order={2} size="h4" id="claims-nearly-full" mb="xs">
        Claims nearly full
      </Title>
      <Text size="xs" c="dimmed" mb={4}>
        At least {data.thresholdPercent}% of the volume used.
      </Text>
      <List size="sm" spacing={4} data-testid="claims-nearly-full">
        {data.claims.map((c) => (
          <List.Item key={`${c.namespace}/${c.name}`}>
            <Anchor component={Link} href={`/claims/${encodeURIComponent(c.namespace)}/${encodeURIComponent(c.name)}`} fz="sm">
              {c.namespace}/{c.name}
            </Anchor>
            {`: ${formatSize(c.usedBytes)} of ${formatSize(c.capacityBytes)} (${c.percent}%)`}
          </List.Item>
        ))}
      </List>
    </section>
  );
}

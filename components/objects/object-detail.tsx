'use client';
// The page of one object: its important fields, related objects, Events, history and YAML, with
// Edit (YAML editor) and Delete (confirm; finalizers leave it Terminating).
import {
  Alert,
  Anchor,
  Badge,
  Breadcrumbs,
  Button,
  CopyButton,
  DataList,
  Grid,
  Group,
  Loader,
  Paper,
  Stack,
  Tabs,
  Text,
  Title,
} from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import type { KubeObject } from '@/server/resources/types';
import type { Event } from '@/server/resources/event/schema';
import { DeleteButton } from './delete-button';
import { EditButton } from './edit-modal';
import { HistoryTimeline } from '../history/history-timeline';
import { ageOf, errorInfo } from '../format/format';
import { maskClassSecrets } from '../classes/class-parameters';
import { isDefaultClass, kindUi, phaseOf, type KindUi } from './kinds';
import { isKind } from '@/server/resources/of-kind';
import { RelatedObjects } from './related-objects';
import { usePermissions } from '../session/session';
import { StatusBadge } from './status-badge';
import { objectYaml } from './object-yaml';
import { DetailPanels, summaryOf, TopPanels } from './kind-pages';
import { metadataOf } from './metadata-summary';
import type { SummaryItem } from './summary-parts';
import { useTRPC } from '../data/trpc';
import { useNow } from '../format/use-now';
import { YamlEditor } from '../forms/yaml-editor';
import { DataTable, type DataColumn } from '../table/data-table';
import { ClaimSnapshots } from '../snapshots/claim-snapshots';

export function ObjectDetailPage({ kind, namespace, name }: { kind: string; namespace?: string; name: string }) {
  const ui = kindUi(kind)!;
  const trpc = useTRPC();
  const ref = { kind: ui.kind, namespace, name };
  const get = useQuery(trpc.objects.get.queryOptions(ref));
  const [wasLoaded, setWasLoaded] = useState(false);
  if (get.data && !wasLoaded) setWasLoaded(true);

  const crumbs = (
    <Breadcrumbs separator="›" fz="sm">
      <Anchor component={Link} href={ui.route} fz="sm">
        {ui.title}
      </Anchor>
      {namespace && (
        <Anchor component={Link} href={`${ui.route}?namespace=${encodeURIComponent(namespace)}`} fz="sm">
          {namespace}
        </Anchor>
      )}
      <Text fz="sm">{name}</Text>
    </Breadcrumbs>
  );

  if (get.isPending) {
    return (
      <Stack>
        {crumbs}
        <Group justify="center" py="xl">
          <Loader />
        </Group>
      </Stack>
    );
  }
  const err = get.isError ? errorInfo(get.error) : undefined;
  if (err && (!get.data || err.code === 'NOT_FOUND')) {
    const gone = err.code === 'NOT_FOUND';
    return (
      <Stack>
        {crumbs}
        <Title order={1} size="h3">{name}</Title>
        <Alert color={gone ? 'gray' : 'red'} title={gone ? (wasLoaded ? `This ${ui.singular} was deleted` : `No such ${ui.singular}`) : 'Could not load'} data-testid="detail-error">
          {err.message}
          <Group mt="sm">
            <Button component={Link} href={ui.route} size="xs" variant="light">
              Back to {ui.title.toLowerCase()}
            </Button>
          </Group>
        </Alert>
      </Stack>
    );
  }
  return <Detail ui={ui} obj={get.data!} crumbs={crumbs} />;
}

function statusOf(obj: KubeObject): string {
  if (obj.metadata.deletionTimestamp) return 'Terminating';
  if (isKind(obj, 'Event')) return obj.type ?? '';
  return phaseOf(obj) ?? '';
}

function Fields({ items, testId }: { items: SummaryItem[]; testId: string }) {
  return (
    <DataList size="sm" gap={6} labelWidth={140} data-testid={testId}>
      {items.map((i) => (
        <DataList.Item key={i.label} data-label={i.label}>
          <DataList.ItemLabel c="dimmed">{i.label}</DataList.ItemLabel>
          {/* A long unbroken value (a finalizer, a volume handle) wraps inside the card. */}
          <DataList.ItemValue style={{ minWidth: 0, overflowWrap: 'anywhere' }}>
            {i.value === '' || i.value === null || i.value === undefined ? (
              <Text span c="dimmed" inherit>
                —
              </Text>
            ) : (
              i.value
            )}
          </DataList.ItemValue>
        </DataList.Item>
      ))}
    </DataList>
  );
}

function Detail({ ui, obj, crumbs }: { ui: KindUi; obj: KubeObject; crumbs: React.ReactNode }) {
  const perms = usePermissions();
  const now = useNow(5000);
  const m = obj.metadata;
  const status = statusOf(obj);
  const mayUpdate = perms.can('update', ui.kind, ui.kind === 'Namespace' ? m.name : m.namespace);
  const mayDelete = perms.can('delete', ui.kind, ui.kind === 'Namespace' ? m.name : m.namespace);
  const summary = summaryOf(obj, { perms, now });
  const meta = metadataOf(obj, now);
  const showSnapshots = ui.kind === 'PersistentVolumeClaim' && perms.can('list', 'VolumeSnapshot', m.namespace);

  return (
    <Stack gap="sm" data-testid="object-detail" data-kind={ui.kind} data-name={m.name}>
      {crumbs}
      <Group justify="space-between" align="center">
        <Group gap="sm" align="center">
          <Title order={1} size="h3" data-testid="detail-title">
            {m.name}
          </Title>
          <Badge variant="outline" color="gray" size="sm" tt="none">
            {obj.kind}
          </Badge>
          {status && obj.kind !== 'Event' && <StatusBadge value={status} size="md" />}
          {ui.kind === 'StorageClass' && isDefaultClass(obj) && (
            <Badge size="md" variant="light" color="indigo">
              default
            </Badge>
          )}
        </Group>
        <Group gap="xs">
          {mayUpdate && <EditButton obj={obj} />}
          {mayDelete && <DeleteButton obj={obj} ui={ui} />}
        </Group>
      </Group>

      {m.deletionTimestamp && (
        <Alert color="orange" title="Terminating" data-testid="terminating">
          Deletion was requested {ageOf(m.deletionTimestamp, now)} ago.{' '}
          {m.finalizers?.length
            ? `It stays until these finalizers are removed: ${m.finalizers.join(', ')}.`
            : 'It goes as soon as its finalizers are done.'}
        </Alert>
      )}

      <TopPanels obj={obj} />

      <Grid gap="sm">
        <Grid.Col span={{ base: 12, md: 7 }}>
          <Paper withBorder p="md" h="100%">
            <Text fw={600} size="sm" mb="xs">
              Summary
            </Text>
            <Fields items={summary} testId="summary" />
          </Paper>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 5 }}>
          <Paper withBorder p="md" h="100%">
            <Text fw={600} size="sm" mb="xs">
              Metadata
            </Text>
            <Fields items={meta} testId="metadata" />
          </Paper>
        </Grid.Col>
      </Grid>

      <DetailPanels obj={obj} />

      <RelatedObjects obj={obj} />

      <Tabs defaultValue={ui.kind === 'Event' ? 'yaml' : 'events'} keepMounted={false}>
        <Tabs.List>
          {ui.kind !== 'Event' && <Tabs.Tab value="events">Events</Tabs.Tab>}
          {ui.kind !== 'Event' && <Tabs.Tab value="history">History</Tabs.Tab>}
          {showSnapshots && <Tabs.Tab value="snapshots" data-testid="snapshots-tab">Snapshots</Tabs.Tab>}
          <Tabs.Tab value="yaml">YAML</Tabs.Tab>
        </Tabs.List>
        {ui.kind !== 'Event' && (
          <Tabs.Panel value="events" pt="sm">
            <EventsOf obj={obj} />
          </Tabs.Panel>
        )}
        {ui.kind !== 'Event' && (
          <Tabs.Panel value="history" pt="sm">
            <HistoryTimeline obj={obj} />
          </Tabs.Panel>
        )}
        {showSnapshots && isKind(obj, 'PersistentVolumeClaim') && (
          <Tabs.Panel value="snapshots" pt="sm">
            <ClaimSnapshots claim={obj} />
          </Tabs.Panel>
        )}
        <Tabs.Panel value="yaml" pt="sm">
          <YamlView obj={obj} />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}

function YamlView({ obj }: { obj: KubeObject }) {
  // Secret-naming StorageClass parameters stay masked here too.
  const text = objectYaml(maskClassSecrets(obj));
  return (
    <Stack gap={6}>
      <Group justify="flex-end">
        <CopyButton value={text}>
          {({ copied, copy }) => (
            <Button size="xs" variant="default" onClick={copy}>
              {copied ? 'Copied' : 'Copy YAML'}
            </Button>
          )}
        </CopyButton>
      </Group>
      <YamlEditor value={text} readOnly testId="object-yaml" label="Object YAML" />
    </Stack>
  );
}

/** An object's Events, newest first (the backup pages reuse it). */
export function EventsOf({ obj }: { obj: KubeObject }) {
  const trpc = useTRPC();
  const now = useNow(5000);
  const events = useQuery(
    trpc.objects.events.queryOptions({ kind: obj.kind, namespace: obj.metadata.namespace, name: obj.metadata.name ?? '' }),
  );
  if (events.isPending) return <Loader size="sm" />;
  if (events.isError) return <Alert color="red">{errorInfo(events.error).message}</Alert>;
  const list = events.data.filter((e) => isKind(e, 'Event')).reverse();
  if (list.length === 0) {
    return (
      <Text size="sm" c="dimmed" data-testid="no-events">
        No events about this {kindUi(obj.kind)?.singular ?? 'object'}.
      </Text>
    );
  }
  return (
    <DataTable
      label="Events"
      data-testid="events-table"
      columns={eventColumns(now)}
      rows={list}
      rowKey={(e) => e.metadata.uid ?? e.metadata.name ?? ''}
      rowProps={() => ({ 'data-testid': 'event-row' })}
      striped={false}
    />
  );
}

function eventColumns(now: number): DataColumn<Event>[] {
  return [
    { key: 'type', header: 'TYPE', cell: (e) => <StatusBadge value={e.type ?? ''} /> },
    { key: 'reason', header: 'REASON', nowrap: true, cell: (e) => e.reason },
    {
      key: 'age',
      header: 'AGE',
      nowrap: true,
      width: 'minmax(56px, 0.6fr)',
      cellProps: (e) => ({ title: e.lastTimestamp ?? e.eventTime }),
      cell: (e) => ageOf(e.series?.lastObservedTime ?? e.lastTimestamp ?? e.eventTime ?? e.metadata.creationTimestamp, now),
    },
    { key: 'from', header: 'FROM', nowrap: true, cell: (e) => e.source?.component ?? e.reportingComponent ?? '' },
    { key: 'message', header: 'MESSAGE', width: 'minmax(200px, 3fr)', cell: (e) => e.message },
    { key: 'count', header: 'COUNT', width: 'minmax(56px, 0.6fr)', cell: (e) => e.series?.count ?? e.count ?? 1 },
  ];
}

'use client';
// An object's history: every change (with who made it and what changed) and every Event
// about it, each incarnation of the name on its own, newest first.
import { Alert, Anchor, Badge, Button, Code, Group, Loader, Paper, Stack, Text, Timeline } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import type { KubeObject } from '@/server/resources/types';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/trpc/root';
import { ageOf, errorInfo } from '../format/format';
import { StatusBadge } from '../objects/status-badge';
import { useTRPC } from '../data/trpc';
import { useNow } from '../format/use-now';
import { auditSearchOf } from '../audit/audit-query';
import { DataTable, type DataColumn } from '../table/data-table';
import { formatValue } from './format-value';
import { groupRepeats, repeatText, type Repeated } from './group-repeats';

type TimelineGroup = inferRouterOutputs<AppRouter>['history']['timeline']['groups'][number];
type TimelineEntry = TimelineGroup['entries'][number];
type Change = TimelineEntry['changes'][number];

const CHANGE_COLUMNS: DataColumn<Change>[] = [
  { key: 'field', header: 'Field', cell: (c) => <Code>{c.path || '(object)'}</Code> },
  { key: 'before', header: 'Before', cellProps: () => ({ style: { wordBreak: 'break-all', fontSize: 'var(--mantine-font-size-xs)' } }), cell: (c) => formatValue(c.before) },
  { key: 'after', header: 'After', cellProps: () => ({ style: { wordBreak: 'break-all', fontSize: 'var(--mantine-font-size-xs)' } }), cell: (c) => formatValue(c.after) },
];

export function HistoryTimeline({ obj }: { obj: KubeObject }) {
  const trpc = useTRPC();
  const q = useQuery(trpc.history.timeline.queryOptions({ kind: obj.kind, namespace: obj.metadata.namespace, name: obj.metadata.name ?? '' }));
  if (q.isPending) return <Loader size="sm" role="status" aria-label="Loading history" />;
  if (q.isError) return <Alert color="red">{errorInfo(q.error).message}</Alert>;
  if (q.data.groups.length === 0) {
    return (
      <Text size="sm" c="dimmed" data-testid="no-history">
        No history recorded for this object.
      </Text>
    );
  }
  const audit = `/audit${auditSearchOf({ kind: q.data.kind, namespace: q.data.namespace || undefined, name: q.data.name })}`;
  return (
    <Stack gap="md" data-testid="history">
      <Group justify="flex-end">
        <Anchor component={Link} href={audit} size="sm" data-testid="history-audit-link">
          Open in the audit view
        </Anchor>
      </Group>
      {q.data.truncated && (
        <Text size="sm" c="dimmed">
          Only the newest changes are shown.
        </Text>
      )}
      {q.data.groups.map((g) => (
        <Incarnation key={g.uid} group={g} current={g.uid === obj.metadata.uid} />
      ))}
    </Stack>
  );
}

/** Entries that are the same thing again (an event repeated, the same status write): one line with a count. */
const repeatKey = (e: TimelineEntry) => [e.entry, e.actor, e.action, e.summary.join(' · '), e.event?.message ?? ''].join('\u0000');

function Incarnation({ group, current }: { group: TimelineGroup; current: boolean }) {
  const entries = groupRepeats([...group.entries].reverse(), repeatKey, (e) => e.time ?? '');
  return (
    <Paper withBorder p="md" data-testid="history-incarnation" data-uid={group.uid}>
      <Group gap="xs" mb="sm">
        <Text size="sm" fw={600}>
          {current ? 'This object' : group.exists ? 'Another object of this name' : 'An earlier object of this name (deleted)'}
        </Text>
        <Text size="xs" c="dimmed">
          uid {group.uid}
        </Text>
      </Group>
      <Timeline bulletSize={14} lineWidth={2} active={-1}>
        {entries.map((g) => (
          <Timeline.Item key={`${g.row.entry}-${g.row.rv}`} title={<EntryTitle e={g.row} />} data-testid="history-entry" data-action={g.row.action} data-actor={g.row.actor} data-count={String(g.count)}>
            <EntryBody e={g.row} repeat={g} />
          </Timeline.Item>
        ))}
      </Timeline>
    </Paper>
  );
}

function EntryTitle({ e }: { e: TimelineEntry }) {
  return (
    <Group gap={6}>
      {e.entry === 'event' && e.event && <StatusBadge value={e.event.type} />}
      <Text size="sm" fw={500} span>
        {e.summary.join(' · ')}
      </Text>
    </Group>
  );
}

function EntryBody({ e, repeat }: { e: TimelineEntry; repeat: Repeated<TimelineEntry> }) {
  const now = useNow(5000);
  const [open, setOpen] = useState(false);
  return (
    <Stack gap={4} mt={2}>
      {e.event?.message && <Text size="sm">{e.event.message}</Text>}
      <Group gap={8}>
        <Text size="xs" c="dimmed" title={e.time}>
          {e.time ? `${ageOf(e.time, now)} ago` : ''}
        </Text>
        {repeat.count > 1 && (
          <Text size="xs" c="dimmed" title={`${repeat.first} – ${repeat.last}`} data-testid="history-repeat">
            {repeatText(repeat, now)}
          </Text>
        )}
        <Badge size="sm" variant="outline" color="gray" tt="none" data-testid="history-actor">
          {e.actor}
        </Badge>
        <Text size="xs" c="dimmed">
          {e.entry === 'event' ? (e.action === 'create' ? 'event recorded' : 'event repeated') : e.action}
        </Text>
        {e.changes.length > 0 && (
          <Button size="compact-xs" variant="subtle" onClick={() => setOpen((o) => !o)} aria-expanded={open}>
            {open ? 'Hide changes' : `Show ${e.changes.length} change${e.changes.length === 1 ? '' : 's'}`}
          </Button>
        )}
      </Group>
      {open && (
        <DataTable label="Changes" data-testid="history-diff" columns={CHANGE_COLUMNS} rows={e.changes} rowKey={(c) => c.path} striped={false} />
      )}
    </Stack>
  );
}

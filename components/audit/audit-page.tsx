'use client';
// The audit log: who did what, when, to which object. Filters live in the URL; pages go
// back in time by resourceVersion; the filtered rows export as CSV or JSON. Each user sees
// the rows of the objects they may read (the server decides).
import { Alert, Anchor, Badge, Button, Checkbox, Group, Loader, NativeSelect, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { errorInfo } from '../format/format';
import { detailHref, KINDS } from '../objects/kinds';
import { useTRPC } from '../data/trpc';
import type { HistoryRow } from '../data/api-types';
import { DataTable, type DataColumn } from '../table/data-table';
import { auditFilterOf, auditQueryOf, auditSearchOf, changeText, isoToLocal, localToIso, type AuditQuery } from './audit-query';
import { groupRepeats, repeatText, type Repeated } from '../history/group-repeats';
import { useNow } from '../format/use-now';

const ACTIONS = ['create', 'update', 'status', 'delete'];

export function AuditPage() {
  const params = useSearchParams();
  const query = auditQueryOf(new URLSearchParams(params.toString()));
  const router = useRouter();
  const pathname = usePathname();
  const go = (q: AuditQuery) => router.replace(`${pathname}${auditSearchOf(q)}`);
  const filter = auditFilterOf(query);
  return (
    <Stack gap="sm">
      <Title order={1} size="h3">
        Audit
      </Title>
      <Text size="sm" c="dimmed">
        Every change to every object you may read: who made it, when, and what it was. Events are shown when you pick the Event kind; node heartbeats when you ask
        for them. Repeats of the same change in a row are folded into one line with their count.
      </Text>
      <Filters key={auditSearchOf({ ...query, cursor: undefined })} query={query} onApply={(q) => go(q)} />
      <Rows query={query} filter={filter} onPage={(cursor) => go({ ...query, cursor })} />
    </Stack>
  );
}

function Filters({ query, onApply }: { query: AuditQuery; onApply: (q: AuditQuery) => void }) {
  const [draft, setDraft] = useState<AuditQuery>({ ...query, from: isoToLocal(query.from), to: isoToLocal(query.to), cursor: undefined });
  const set = (k: keyof AuditQuery) => (e: { currentTarget: { value: string } }) => {
    const v = e.currentTarget.value;
    setDraft((d) => ({ ...d, [k]: v }));
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onApply({ ...draft, from: localToIso(draft.from), to: localToIso(draft.to), cursor: undefined });
  };
  return (
    <Paper withBorder p="sm">
      <form onSubmit={submit} aria-label="Audit filters" data-testid="audit-filters">
        <Group gap="sm" align="flex-end" wrap="wrap">
          <TextInput label="Actor" placeholder="alice or controller:…" value={draft.actor ?? ''} onChange={set('actor')} w={200} data-testid="filter-actor" />
          <TextInput label="Namespace" value={draft.namespace ?? ''} onChange={set('namespace')} w={150} data-testid="filter-namespace" />
          <NativeSelect
            label="Kind"
            value={draft.kind ?? ''}
            onChange={set('kind')}
            data={[{ value: '', label: 'All but events' }, ...KINDS.map((k) => ({ value: k.kind, label: k.kind }))]}
            w={200}
            data-testid="filter-kind"
          />
          <TextInput label="Name" value={draft.name ?? ''} onChange={set('name')} w={180} data-testid="filter-name" />
          <NativeSelect label="Action" value={draft.action ?? ''} onChange={set('action')} data={[{ value: '', label: 'Any' }, ...ACTIONS]} w={120} data-testid="filter-action" />
          <TextInput label="From" type="datetime-local" value={draft.from ?? ''} onChange={set('from')} w={200} />
          <TextInput label="To" type="datetime-local" value={draft.to ?? ''} onChange={set('to')} w={200} />
          <Checkbox
            label="Show node heartbeats"
            checked={draft.heartbeats === '1'}
            onChange={(e) => {
              const on = e.currentTarget.checked;
              setDraft((d) => ({ ...d, heartbeats: on ? '1' : undefined }));
            }}
            mb={8}
            data-testid="filter-heartbeats"
          />
          <Button type="submit" data-testid="filter-apply">
            Apply
          </Button>
          <Button variant="default" onClick={() => onApply({})}>
            Clear
          </Button>
        </Group>
      </form>
    </Paper>
  );
}

/** Rows that are the same change again (a controller's repeated status write, a node's heartbeat). */
const repeatKey = (r: HistoryRow) => [r.actor, r.action, r.type, r.kind, r.namespace, r.name].join('\u0000');

function Rows({ query, filter, onPage }: { query: AuditQuery; filter: Record<string, string | boolean>; onPage: (cursor?: string) => void }) {
  const now = useNow(10_000);
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const page = useQuery(trpc.history.audit.queryOptions({ ...filter, cursor: query.cursor }));
  const [exporting, setExporting] = useState<string>();
  const [exportError, setExportError] = useState<string>();

  const download = async (format: 'csv' | 'json') => {
    setExporting(format);
    setExportError(undefined);
    try {
      const file = await queryClient.fetchQuery({ ...trpc.history.export.queryOptions({ format, filter }), staleTime: 0 });
      const url = URL.createObjectURL(new Blob([file.content], { type: file.contentType }));
      const a = document.createElement('a');
      a.href = url;
      a.download = file.filename;
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (e) {
      setExportError(errorInfo(e).message);
    } finally {
      setExporting(undefined);
    }
  };

  return (
    <Stack gap="xs">
      <Group justify="space-between">
        <Group gap="xs">
          <Button size="xs" variant="default" disabled={!query.cursor} onClick={() => onPage(undefined)}>
            Newest
          </Button>
          <Button size="xs" variant="default" disabled={!page.data?.next} onClick={() => onPage(page.data?.next)} data-testid="audit-older">
            Older
          </Button>
        </Group>
        <Group gap="xs">
          <Button size="xs" variant="light" loading={exporting === 'csv'} onClick={() => void download('csv')} data-testid="export-csv">
            Export CSV
          </Button>
          <Button size="xs" variant="light" loading={exporting === 'json'} onClick={() => void download('json')} data-testid="export-json">
            Export JSON
          </Button>
        </Group>
      </Group>
      {exportError && <Alert color="red">{exportError}</Alert>}
      {page.isPending ? (
        <Loader size="sm" role="status" aria-label="Loading audit rows" />
      ) : page.isError ? (
        <Alert color="red" data-testid="audit-error">
          {errorInfo(page.error).message}
        </Alert>
      ) : page.data.items.length === 0 ? (
        <Text size="sm" c="dimmed" data-testid="audit-empty">
          No changes match these filters.
        </Text>
      ) : (
        <DataTable
          label="Audit log"
          data-testid="audit-table"
          minWidth={760}
          columns={auditColumns(now)}
          rows={groupRepeats(page.data.items, repeatKey, (r) => r.time)}
          rowKey={(g) => String(g.row.rv)}
          rowProps={(g) => ({ 'data-testid': 'audit-row', 'data-actor': g.row.actor, 'data-action': g.row.action, 'data-name': g.row.name, 'data-count': String(g.count) })}
        />
      )}
    </Stack>
  );
}

function auditColumns(now: number): DataColumn<Repeated<HistoryRow>>[] {
  return [
    // Content-sized tracks (the rows share them): the time and the kind never cut or break mid-word.
    { key: 'time', header: 'Time', width: 'max-content', nowrap: true, cellProps: (g) => ({ title: g.count > 1 ? `${g.first} – ${g.last}` : g.last }), cell: (g) => new Date(g.last).toLocaleString() },
    {
      key: 'actor',
      header: 'Actor',
      width: 'minmax(110px, 1.2fr)',
      cell: (g) => (
        <Badge variant="outline" color="gray" tt="none" size="sm" h="auto" maw="100%" styles={{ label: { whiteSpace: 'normal', overflowWrap: 'anywhere' } }}>
          {g.row.actor}
        </Badge>
      ),
    },
    { key: 'action', header: 'Action', width: 'max-content', cell: (g) => g.row.action },
    { key: 'kind', header: 'Kind', width: 'max-content', cell: (g) => g.row.kind },
    { key: 'namespace', header: 'Namespace', width: 'minmax(90px, 0.8fr)', cell: (g) => g.row.namespace },
    {
      key: 'object',
      header: 'Object',
      cell: (g) => {
        const r = g.row;
        const href = r.type === 'DELETED' ? undefined : detailHref(r.kind, r.namespace || undefined, r.name);
        return href ? (
          <Anchor component={Link} href={href} size="sm">
            {r.name}
          </Anchor>
        ) : (
          r.name
        );
      },
    },
    {
      key: 'change',
      header: 'Change',
      width: 'minmax(120px, 1fr)',
      cell: (g) => (
        <Group gap={6} wrap="wrap">
          <span data-testid="audit-change">{changeText(g.row)}</span>
          {g.count > 1 && (
            <Text span size="xs" c="dimmed" data-testid="audit-repeat">
              {repeatText(g, now)}
            </Text>
          )}
        </Group>
      ),
    },
  ];
}

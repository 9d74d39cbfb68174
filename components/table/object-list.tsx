'use client';
// A list page for one kind. Volumes, claims, classes and namespaces are paged, sorted
// and filtered by the server (text, label selector, namespace, status), kept in the
// address bar, patched live row by row, with a column chooser and bulk actions. Events
// and nodes, which have no indexed columns to sort by, are filtered in the browser.
import { Alert, Button, Group, Loader, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useSearchParams } from 'next/navigation';
import { useEffect, useMemo, useState } from 'react';
import { strategyForKind } from '@/server/resources/registry';
import { EmptyState } from './empty-state';
import { errorInfo, plural } from '../format/format';
import { kindUi, type KindUi } from '../objects/kinds';
import { usePermissions } from '../session/session';
import { useTRPC } from '../data/trpc';
import { useNow } from '../format/use-now';
import { ListError, NamespaceNote, useNamespaceOptions } from './list-parts';
import { selectorError, SERVER_LISTED } from './list-state';
import { ObjectTable } from './object-table';
import { ServerList } from './server-list';
import { buildRows, matchesText, sortRows, visibleColumns, type SortState } from './table-model';

export function ObjectListPage({ kind }: { kind: string }) {
  const ui = kindUi(kind)!;
  const perms = usePermissions();
  if (!perms.canListSomewhere(ui.kind, ui.namespaced)) return <Forbidden ui={ui} />;
  return SERVER_LISTED.has(ui.kind) ? <ServerList ui={ui} /> : <LocalList ui={ui} />;
}

function Forbidden({ ui }: { ui: KindUi }) {
  return (
    <Stack>
      <Title order={1} size="h3">{ui.title}</Title>
      <Alert color="gray" title="Not available to you" data-testid="forbidden">
        Your role may not see {ui.noun}. Ask an administrator if you need access.
      </Alert>
    </Stack>
  );
}

function defaultSort(ui: KindUi): SortState {
  return ui.kind === 'Event' ? { header: 'LAST SEEN', dir: 'asc' } : { header: ui.namespaced ? 'NAMESPACE' : 'NAME', dir: 'asc' };
}

/** Events and nodes: one list request, filtered and sorted here. */
function LocalList({ ui }: { ui: KindUi }) {
  const trpc = useTRPC();
  const perms = usePermissions();
  const params = useSearchParams();
  const strategy = strategyForKind(ui.kind)!;
  const columns = useMemo(() => visibleColumns(strategy), [strategy]);
  const now = useNow(5000);
  const [text, setText] = useState(params.get('q') ?? '');
  const [selector, setSelector] = useState(params.get('selector') ?? '');
  const [namespace, setNamespace] = useState<string | null>(params.get('namespace') || null);
  const [status, setStatus] = useState<string | null>(params.get('status') || null);
  const [sort, setSort] = useState<SortState>(defaultSort(ui));
  const [debouncedSelector] = useDebouncedValue(selector, 250);
  const selError = selectorError(selector);
  const validSelector = selectorError(debouncedSelector) ? '' : debouncedSelector.trim();

  useEffect(() => {
    const u = new URL(window.location.href);
    const set = (k: string, v: string | null) => (v ? u.searchParams.set(k, v) : u.searchParams.delete(k));
    set('q', text);
    set('selector', selector);
    set('namespace', namespace);
    set('status', status);
    if (u.href !== window.location.href) window.history.replaceState(window.history.state, '', u.href);
  }, [text, selector, namespace, status]);

  const namespaceOptions = useNamespaceOptions(ui);
  const list = useQuery({
    ...trpc.objects.list.queryOptions({ kind: ui.kind, namespace: ui.namespaced ? namespace || undefined : undefined, labelSelector: validSelector || undefined }),
    placeholderData: keepPreviousData,
  });
  const items = useMemo(() => list.data?.items ?? [], [list.data]);
  const allRows = useMemo(() => buildRows(strategy, columns, items, new Date(now)), [strategy, columns, items, now]);
  const statusAt = ui.statusColumn ? columns.findIndex((c) => c.header === ui.statusColumn) : -1;
  const rows = useMemo(() => {
    const f = allRows.filter((r) => matchesText(r, text) && (!status || statusAt === -1 || r.cells[statusAt].split(',').includes(status)));
    return sortRows(f, columns, sort, now);
  }, [allRows, text, status, statusAt, columns, sort, now]);
  const filtered = Boolean(text.trim() || validSelector || status || namespace);
  const clearFilters = () => {
    setText('');
    setSelector('');
    setStatus(null);
    setNamespace(null);
  };
  const err = list.error ? errorInfo(list.error) : undefined;
  return (
    <Stack gap="sm">
      <Group gap="xs" align="baseline">
        <Title order={1} size="h3">{ui.title}</Title>
        {list.data && (
          <Text c="dimmed" size="sm" data-testid="list-count">
            {filtered ? `${rows.length} of ${plural(allRows.length, ui.singular, ui.noun)}` : plural(allRows.length, ui.singular, ui.noun)}
          </Text>
        )}
        {list.isFetching && <Loader size="xs" role="status" aria-label="Refreshing" />}
        {ui.createForm && perms.can('create', ui.kind) && (
          <Button component={Link} href={ui.createForm(namespace)} prefetch={false} size="sm" ml="auto">
            Create {ui.singular}
          </Button>
        )}
      </Group>
      <Group gap="xs" align="flex-start" wrap="wrap" role="search" aria-label={`Filter ${ui.noun}`}>
        <TextInput size="sm" w={220} maw="100%" placeholder="Filter by text" aria-label="Filter by text" value={text} onChange={(e) => setText(e.currentTarget.value)} />
        <TextInput size="sm" w={240} maw="100%" placeholder="Label selector (tier=fast)" aria-label="Label selector" value={selector} onChange={(e) => setSelector(e.currentTarget.value)} error={selError} />
        {ui.namespaced && <Select size="sm" w={190} maw="100%" placeholder="All namespaces" aria-label="Namespace" data={namespaceOptions} value={namespace} onChange={setNamespace} clearable searchable />}
        {ui.statuses.length > 0 && (
          <Select size="sm" w={160} maw="100%" placeholder={ui.kind === 'Event' ? 'Any type' : 'Any status'} aria-label={ui.kind === 'Event' ? 'Type' : 'Status'} data={ui.statuses} value={status} onChange={setStatus} clearable />
        )}
        {filtered && (
          <Button size="sm" variant="subtle" color="gray" onClick={clearFilters}>
            Clear filters
          </Button>
        )}
      </Group>
      <ListError ui={ui} err={err} />
      {list.isPending ? (
        <Group justify="center" py="xl">
          <Loader role="status" aria-label={`Loading ${ui.noun}`} />
        </Group>
      ) : !err && allRows.length === 0 && !filtered ? (
        <EmptyState title={`No ${ui.noun} yet.`} description={ui.emptyHint} />
      ) : !err && rows.length === 0 ? (
        <EmptyState title={`No ${ui.noun} match these filters.`} description="Change or clear the filters to see more." action={<Button variant="default" onClick={clearFilters}>Clear filters</Button>} />
      ) : !err ? (
        <ObjectTable ui={ui} columns={columns} count={rows.length} rowAt={(i) => rows[i]} sort={sort} onSort={setSort} />
      ) : null}
      <NamespaceNote ui={ui} />
    </Stack>
  );
}


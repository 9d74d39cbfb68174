'use client';
// A list page for one kind. Volumes, claims, classes and namespaces are paged, sorted
// and filtered by the server (text, label selector, namespace, status), kept in the
// address bar, patched live row by row, with a column chooser and bulk actions. Events
// and nodes, which have no indexed columns to sort by, are filtered in the browser.
import { Alert, Badge, Button, Group, Loader, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useSearchParams } from 'next/navigation';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { strategyForKind } from '@/server/resources/registry';
import type { KubeObject } from '@/server/resources/types';
import { SeveralDefaultsAlert } from '../classes/default-class-switch';
import { EmptyState } from './empty-state';
import { errorInfo, plural } from '../format/format';
import { isDefaultClass, kindUi, type KindUi } from '../objects/kinds';
import { usePermissions } from '../session/session';
import { useTRPC } from '../data/trpc';
import { useNow } from '../format/use-now';
import { BulkActions } from './bulk-actions';
import { ColumnChooser } from './column-chooser';
import { pageRequest, selectorError, SERVER_LISTED, SORT_KEY_OF_HEADER, stateFromParams, stateToParams, type ListState } from './list-state';
import { keyOf } from './live-patch';
import { ObjectTable, type Selection } from './object-table';
import { availableColumns, buildRow, buildRows, chosenColumns, matchesText, sortRows, visibleColumns, type ListRow, type SortState } from './table-model';
import { usePagedList } from './use-paged-list';

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

function useNamespaceOptions(ui: KindUi): string[] {
  const trpc = useTRPC();
  const perms = usePermissions();
  const nsChoices = perms.namespacesFor('list', ui.kind);
  const allNamespaces = useQuery({
    ...trpc.lists.page.queryOptions({ kind: 'Namespace', limit: 500 }),
    enabled: ui.namespaced && nsChoices === 'all',
  });
  return nsChoices === 'all' ? (allNamespaces.data?.items ?? []).map((n) => n.metadata.name ?? '').filter(Boolean) : nsChoices;
}

function ServerList({ ui }: { ui: KindUi }) {
  const perms = usePermissions();
  const params = useSearchParams();
  const strategy = strategyForKind(ui.kind)!;
  const now = useNow(5000);
  const [state, setState] = useState<ListState>(() => stateFromParams(params, ui));
  const patch = (p: Partial<ListState>) => setState((s) => ({ ...s, ...p }));

  // Keep the view in the address, so it can be shared and reloaded.
  useEffect(() => {
    const u = new URL(window.location.href);
    u.search = new URLSearchParams(stateToParams(state)).toString();
    if (u.href !== window.location.href) window.history.replaceState(window.history.state, '', u.href);
  }, [state]);

  // Typing waits for a short pause (it counts in the 200 ms a filter may take to apply;
  // the server answers a keystroke's page in tens of ms); everything else applies at once.
  const [text] = useDebouncedValue(state.text, 50);
  const [selector] = useDebouncedValue(state.selector, 250);
  const reqKey = JSON.stringify(pageRequest({ ...state, text, selector }, ui));
  const req = useMemo(() => JSON.parse(reqKey) as ReturnType<typeof pageRequest>, [reqKey]);
  const list = usePagedList(req);

  const columns = useMemo(() => chosenColumns(strategy, state.columns), [strategy, state.columns]);
  const nowDate = useMemo(() => new Date(now), [now]);
  // One row per object copy, kept while the columns and the clock stay, so the table's
  // memoised rows re-render only for objects that changed.
  const rowCache = useMemo(() => new WeakMap<KubeObject, ListRow>(), [strategy, columns, nowDate]);
  const rowAt = useCallback(
    (i: number) => {
      const o = list.loaded.rows[i];
      if (!o) return undefined;
      let row = rowCache.get(o);
      if (!row) rowCache.set(o, (row = buildRow(strategy, columns, o, nowDate)));
      return row;
    },
    [list.loaded, rowCache, strategy, columns, nowDate],
  );

  // Selection: the objects themselves, so actions know their phase and namespace.
  const [selected, setSelected] = useState<Map<string, KubeObject>>(new Map());
  useEffect(() => setSelected(new Map()), [reqKey]);
  const loadedObjs = list.loaded.rows.filter((o): o is KubeObject => o !== undefined);
  const toggle = useCallback(
    (k: string, o: KubeObject) =>
      setSelected((m) => {
        const n = new Map(m);
        if (n.has(k)) n.delete(k);
        else n.set(k, o);
        return n;
      }),
    [],
  );
  const selection: Selection = {
    has: (k) => selected.has(k),
    toggle,
    all: selected.size === 0 ? false : selected.size >= loadedObjs.length ? true : 'some',
    toggleAll: () => setSelected((m) => (m.size > 0 ? new Map() : new Map(loadedObjs.map((o) => [keyOf(o), o])))),
  };
  // Rows that changed or went away keep their newest copy in the selection.
  useEffect(() => {
    setSelected((m) => {
      if (m.size === 0) return m;
      const byKey = new Map(loadedObjs.map((o) => [keyOf(o), o]));
      let changed = false;
      const n = new Map<string, KubeObject>();
      for (const [k, o] of m) {
        const cur = byKey.get(k);
        if (cur !== o) changed = true;
        if (cur) n.set(k, cur);
      }
      return changed ? n : m;
    });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [list.loaded]);

  const namespaceOptions = useNamespaceOptions(ui);
  const createNs = perms.namespacesFor('create', ui.kind);
  const mayCreate = createNs === 'all' || createNs.length > 0;
  const createHref =
    ui.kind === 'PersistentVolumeClaim'
      ? `/claims/new${state.namespace ? `?namespace=${encodeURIComponent(state.namespace)}` : ''}`
      : ui.kind === 'StorageClass'
        ? '/new/storage-class'
        : ui.kind === 'PersistentVolume'
          ? '/new/volume'
          : `/new?kind=${ui.kind}${ui.namespaced && state.namespace ? `&namespace=${encodeURIComponent(state.namespace)}` : ''}`;
  const filtered = Boolean(req.text || req.labelSelector || req.fields || req.namespace);
  const clearFilters = () => patch({ text: '', selector: '', status: null, namespace: null });
  const selError = selectorError(state.selector);
  const err = list.error ? errorInfo(list.error) : undefined;
  const total = list.loaded.total;
  const shownHeaders = columns.map((c) => c.header);
  const phases = ui.statuses.filter((s) => s !== 'Terminating');
  const defaults = ui.kind === 'StorageClass' ? loadedObjs.filter(isDefaultClass) : [];

  return (
    <Stack gap="sm">
      <Group justify="space-between" align="center">
        <Group gap="xs" align="baseline">
          <Title order={1} size="h3">{ui.title}</Title>
          {list.ready && (
            <Text c="dimmed" size="sm" data-testid="list-count" aria-live="polite">
              {filtered ? `${plural(total, ui.singular, ui.noun)} match` : plural(total, ui.singular, ui.noun)}
            </Text>
          )}
        </Group>
        <Group gap="xs">
          <ColumnChooser
            available={availableColumns(strategy)}
            shown={shownHeaders}
            onChange={(cols) => patch({ columns: cols })}
            onReset={() => patch({ columns: null })}
          />
          {mayCreate && (
            <Button component={Link} href={createHref} prefetch={false} size="sm">
              Create {ui.singular}
            </Button>
          )}
        </Group>
      </Group>

      <SeveralDefaultsAlert defaults={defaults.map((d) => d.metadata.name ?? '')} />

      <Group gap="xs" align="flex-start" wrap="wrap" role="search" aria-label={`Filter ${ui.noun}`}>
        <TextInput size="sm" w={220} placeholder="Filter by text" aria-label="Filter by text" value={state.text} onChange={(e) => patch({ text: e.currentTarget.value })} />
        <TextInput
          size="sm"
          w={240}
          placeholder="Label selector (tier=fast)"
          aria-label="Label selector"
          value={state.selector}
          onChange={(e) => patch({ selector: e.currentTarget.value })}
          error={selError}
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
        />
        {ui.namespaced && (
          <Select size="sm" w={190} placeholder="All namespaces" aria-label="Namespace" data={namespaceOptions} value={state.namespace} onChange={(v) => patch({ namespace: v })} clearable searchable />
        )}
        {phases.length > 0 && (
          <Select size="sm" w={160} placeholder="Any status" aria-label="Status" data={phases} value={state.status} onChange={(v) => patch({ status: v })} clearable />
        )}
        {filtered && (
          <Button size="sm" variant="subtle" color="gray" onClick={clearFilters}>
            Clear filters
          </Button>
        )}
      </Group>

      <BulkActions ui={ui} selected={[...selected.values()]} onDone={() => setSelected(new Map())} />

      {err && (
        <Alert color={err.code === 'FORBIDDEN' ? 'gray' : 'red'} title={err.code === 'FORBIDDEN' ? 'Not available to you' : `Could not list ${ui.noun}`} data-testid={err.code === 'FORBIDDEN' ? 'forbidden' : 'list-error'}>
          {err.message}
        </Alert>
      )}

      {!list.ready ? (
        <Group justify="center" py="xl">
          <Loader role="status" aria-label={`Loading ${ui.noun}`} />
        </Group>
      ) : !err && total === 0 && !filtered ? (
        <EmptyState
          title={`No ${ui.noun} yet.`}
          description={ui.emptyHint ?? (mayCreate ? 'Create one.' : undefined)}
          action={mayCreate ? <Button component={Link} href={createHref} prefetch={false}>Create {ui.singular}</Button> : undefined}
        />
      ) : !err && total === 0 ? (
        <EmptyState
          title={`No ${ui.noun} match these filters.`}
          description="Change or clear the filters to see more."
          action={<Button variant="default" onClick={clearFilters}>Clear filters</Button>}
        />
      ) : !err ? (
        <ObjectTable
          ui={ui}
          columns={columns}
          count={total}
          rowAt={rowAt}
          sort={state.sort}
          onSort={(s) => patch({ sort: s })}
          sortable={(h) => Object.hasOwn(SORT_KEY_OF_HEADER, h)}
          selection={selection}
          onRange={list.ensure}
        />
      ) : null}
      <NamespaceNote ui={ui} />
    </Stack>
  );
}

function NamespaceNote({ ui }: { ui: KindUi }) {
  const perms = usePermissions();
  const nsChoices = perms.namespacesFor('list', ui.kind);
  if (!ui.namespaced || nsChoices === 'all') return null;
  return (
    <Group gap={4}>
      <Text size="xs" c="dimmed">
        Showing your namespaces:
      </Text>
      {nsChoices.map((n) => (
        <Badge key={n} size="xs" variant="outline" color="gray" tt="none">
          {n}
        </Badge>
      ))}
    </Group>
  );
}

function defaultSort(ui: KindUi): SortState {
  return ui.kind === 'Event' ? { header: 'LAST SEEN', dir: 'asc' } : { header: ui.namespaced ? 'NAMESPACE' : 'NAME', dir: 'asc' };
}

/** Events and nodes: one list request, filtered and sorted here. */
function LocalList({ ui }: { ui: KindUi }) {
  const trpc = useTRPC();
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
  const items = list.data?.items ?? [];
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
      </Group>
      <Group gap="xs" align="flex-start" wrap="wrap" role="search" aria-label={`Filter ${ui.noun}`}>
        <TextInput size="sm" w={220} placeholder="Filter by text" aria-label="Filter by text" value={text} onChange={(e) => setText(e.currentTarget.value)} />
        <TextInput size="sm" w={240} placeholder="Label selector (tier=fast)" aria-label="Label selector" value={selector} onChange={(e) => setSelector(e.currentTarget.value)} error={selError} />
        {ui.namespaced && <Select size="sm" w={190} placeholder="All namespaces" aria-label="Namespace" data={namespaceOptions} value={namespace} onChange={setNamespace} clearable searchable />}
        {ui.statuses.length > 0 && (
          <Select size="sm" w={160} placeholder={ui.kind === 'Event' ? 'Any type' : 'Any status'} aria-label={ui.kind === 'Event' ? 'Type' : 'Status'} data={ui.statuses} value={status} onChange={setStatus} clearable />
        )}
        {filtered && (
          <Button size="sm" variant="subtle" color="gray" onClick={clearFilters}>
            Clear filters
          </Button>
        )}
      </Group>
      {err && (
        <Alert color={err.code === 'FORBIDDEN' ? 'gray' : 'red'} title={err.code === 'FORBIDDEN' ? 'Not available to you' : `Could not list ${ui.noun}`} data-testid={err.code === 'FORBIDDEN' ? 'forbidden' : 'list-error'}>
          {err.message}
        </Alert>
      )}
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


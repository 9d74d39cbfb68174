'use client';
// A list page for one kind: the columns kubectl prints, sortable, filterable by text,
// label selector, namespace and status; live through the shell's watch.
import { Alert, Badge, Button, Group, Loader, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useSearchParams } from 'next/navigation';
import { useEffect, useMemo, useState } from 'react';
import { parseLabelSelector } from '@/server/domain/label-selector';
import { strategyForKind } from '@/server/resources/registry';
import { EmptyState } from './empty-state';
import { errorInfo, plural } from './format';
import { kindUi, type KindUi } from './kinds';
import { ObjectTable } from './object-table';
import { usePermissions } from './session';
import { buildRows, matchesText, sortRows, visibleColumns, type SortState } from './table-model';
import { useTRPC } from './trpc';
import { useNow } from './use-now';

function selectorError(s: string): string | undefined {
  if (!s.trim()) return undefined;
  try {
    parseLabelSelector(s);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

function defaultSort(ui: KindUi): SortState {
  return ui.kind === 'Event' ? { header: 'LAST SEEN', dir: 'asc' } : { header: ui.namespaced ? 'NAMESPACE' : 'NAME', dir: 'asc' };
}

export function ObjectListPage({ kind }: { kind: string }) {
  const ui = kindUi(kind)!;
  const perms = usePermissions();
  if (!perms.canListSomewhere(ui.kind, ui.namespaced)) return <Forbidden ui={ui} />;
  return <ObjectList ui={ui} />;
}

function Forbidden({ ui }: { ui: KindUi }) {
  return (
    <Stack>
      <Title order={2} size="h3">{ui.title}</Title>
      <Alert color="gray" title="Not available to you" data-testid="forbidden">
        Your role may not see {ui.noun}. Ask an administrator if you need access.
      </Alert>
    </Stack>
  );
}

function ObjectList({ ui }: { ui: KindUi }) {
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

  // Keep the filters in the address, so a filtered view can be shared and reloaded.
  useEffect(() => {
    const u = new URL(window.location.href);
    const set = (k: string, v: string | null) => (v ? u.searchParams.set(k, v) : u.searchParams.delete(k));
    set('q', text);
    set('selector', selector);
    set('namespace', namespace);
    set('status', status);
    if (u.href !== window.location.href) window.history.replaceState(window.history.state, '', u.href);
  }, [text, selector, namespace, status]);

  const nsChoices = perms.namespacesFor('list', ui.kind);
  const allNamespaces = useQuery({
    ...trpc.objects.list.queryOptions({ kind: 'Namespace' }),
    enabled: ui.namespaced && nsChoices === 'all',
  });
  const namespaceOptions =
    nsChoices === 'all' ? (allNamespaces.data?.items ?? []).map((n) => n.metadata.name ?? '').filter(Boolean).sort() : nsChoices;

  const list = useQuery({
    ...trpc.objects.list.queryOptions({
      kind: ui.kind,
      namespace: ui.namespaced ? namespace || undefined : undefined,
      labelSelector: validSelector || undefined,
    }),
    placeholderData: keepPreviousData,
  });

  const items = list.data?.items ?? [];
  const allRows = useMemo(() => buildRows(strategy, columns, items, new Date(now)), [strategy, columns, items, now]);
  const statusAt = ui.statusColumn ? columns.findIndex((c) => c.header === ui.statusColumn) : -1;
  const rows = useMemo(() => {
    const filtered = allRows.filter(
      (r) => matchesText(r, text) && (!status || statusAt === -1 || r.cells[statusAt].split(',').includes(status)),
    );
    return sortRows(filtered, columns, sort, now);
  }, [allRows, text, status, statusAt, columns, sort, now]);

  const createNs = perms.namespacesFor('create', ui.kind);
  // Events are recorded by controllers; creating one by hand stays possible from /new.
  const mayCreate = ui.kind !== 'Event' && (createNs === 'all' || createNs.length > 0);
  const createHref = `/new?kind=${ui.kind}${ui.namespaced && namespace ? `&namespace=${encodeURIComponent(namespace)}` : ''}`;
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
      <Group justify="space-between" align="center">
        <Group gap="xs" align="baseline">
          <Title order={2} size="h3">{ui.title}</Title>
          {list.data && (
            <Text c="dimmed" size="sm" data-testid="list-count">
              {filtered ? `${rows.length} of ${plural(allRows.length, ui.singular, ui.noun)}` : plural(allRows.length, ui.singular, ui.noun)}
            </Text>
          )}
          {list.isFetching && <Loader size="xs" aria-label="Refreshing" />}
        </Group>
        {mayCreate && (
          <Button component={Link} href={createHref} size="sm">
            Create {ui.singular}
          </Button>
        )}
      </Group>

      <Group gap="xs" align="flex-start" wrap="wrap" role="search" aria-label={`Filter ${ui.noun}`}>
        <TextInput
          size="sm"
          w={220}
          placeholder="Filter by text"
          aria-label="Filter by text"
          value={text}
          onChange={(e) => setText(e.currentTarget.value)}
        />
        <TextInput
          size="sm"
          w={240}
          placeholder="Label selector (tier=fast)"
          aria-label="Label selector"
          value={selector}
          onChange={(e) => setSelector(e.currentTarget.value)}
          error={selError}
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
        />
        {ui.namespaced && (
          <Select
            size="sm"
            w={190}
            placeholder="All namespaces"
            aria-label="Namespace"
            data={namespaceOptions}
            value={namespace}
            onChange={setNamespace}
            clearable
            searchable
          />
        )}
        {ui.statuses.length > 0 && (
          <Select
            size="sm"
            w={160}
            placeholder={ui.kind === 'Event' ? 'Any type' : 'Any status'}
            aria-label={ui.kind === 'Event' ? 'Type' : 'Status'}
            data={ui.statuses}
            value={status}
            onChange={setStatus}
            clearable
          />
        )}
        {filtered && (
          <Button size="sm" variant="subtle" color="gray" onClick={clearFilters}>
            Clear filters
          </Button>
        )}
      </Group>

      {err && err.code !== 'FORBIDDEN' && (
        <Alert color="red" title={`Could not list ${ui.noun}`} data-testid="list-error">
          {err.message}
        </Alert>
      )}
      {err?.code === 'FORBIDDEN' && (
        <Alert color="gray" title="Not available to you" data-testid="forbidden">
          {err.message}
        </Alert>
      )}

      {list.isPending ? (
        <Group justify="center" py="xl">
          <Loader />
        </Group>
      ) : !err && allRows.length === 0 && !filtered ? (
        <EmptyState
          title={`No ${ui.noun} yet.`}
          description={ui.emptyHint ?? (mayCreate ? `Create one from YAML.` : undefined)}
          action={
            mayCreate ? (
              <Button component={Link} href={createHref}>
                Create {ui.singular} from YAML
              </Button>
            ) : undefined
          }
        />
      ) : !err && rows.length === 0 ? (
        <EmptyState
          title={`No ${ui.noun} match these filters.`}
          description="Change or clear the filters to see more."
          action={
            <Button variant="default" onClick={clearFilters}>
              Clear filters
            </Button>
          }
        />
      ) : !err ? (
        <ObjectTable ui={ui} columns={columns} rows={rows} sort={sort} onSort={setSort} />
      ) : null}
      {ui.namespaced && nsChoices !== 'all' && (
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
      )}
    </Stack>
  );
}

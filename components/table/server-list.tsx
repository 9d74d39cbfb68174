'use client';
// A server-side list page (volumes, claims, classes, namespaces): its heading with the
// count, columns and create button; the filters; bulk actions; and the table, or why
// there is nothing to show.
import { Button, Group, Loader, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import Link from 'next/link';
import { NoDefaultClassNotice, SeveralDefaultsAlert } from '../classes/default-class-switch';
import { plural } from '../format/format';
import type { KindUi } from '../objects/kinds';
import { BulkActions } from './bulk-actions';
import { ColumnChooser } from './column-chooser';
import { EmptyState } from './empty-state';
import { ListError, NamespaceNote } from './list-parts';
import { PENDING_STATUS_OPTIONS, SORT_KEY_OF_HEADER } from './list-state';
import { ObjectTable } from './object-table';
import { availableColumns } from './table-model';
import { useServerList, type ServerListState } from './use-server-list';

export function ServerList({ ui }: { ui: KindUi }) {
  const l = useServerList(ui);
  return (
    <Stack gap="sm">
      <ListHeading l={l} />
      <SeveralDefaultsAlert defaults={l.defaults.map((d) => d.metadata.name ?? '')} />
      {ui.kind === 'StorageClass' && <NoDefaultClassNotice />}
      <Filters l={l} />
      <BulkActions ui={ui} selected={[...l.selected.values()]} onDone={l.clearSelection} />
      <ListError ui={ui} err={l.err} />
      <ListBody l={l} />
      <NamespaceNote ui={ui} />
    </Stack>
  );
}

function ListHeading({ l }: { l: ServerListState }) {
  const { ui, patch } = l;
  return (
    <Group justify="space-between" align="center">
      <Group gap="xs" align="baseline">
        <Title order={1} size="h3">{ui.title}</Title>
        {l.list.ready && (
          <Text c="dimmed" size="sm" data-testid="list-count" aria-live="polite">
            {l.filtered ? `${plural(l.total, ui.singular, ui.noun)} ${l.total === 1 ? 'matches' : 'match'}` : plural(l.total, ui.singular, ui.noun)}
          </Text>
        )}
      </Group>
      <Group gap="xs">
        <ColumnChooser
          available={availableColumns(l.strategy)}
          shown={l.columns.map((c) => c.header)}
          onChange={(cols) => patch({ columns: cols })}
          onReset={() => patch({ columns: null })}
        />
        {l.mayCreate && (
          <Button component={Link} href={l.createHref} prefetch={false} size="sm">
            Create {ui.singular}
          </Button>
        )}
      </Group>
    </Group>
  );
}

function Filters({ l }: { l: ServerListState }) {
  const { ui, state, patch } = l;
  return (
    <Group gap="xs" align="flex-start" wrap="wrap" role="search" aria-label={`Filter ${ui.noun}`}>
      <TextInput size="sm" w={220} maw="100%" placeholder="Filter by text" aria-label="Filter by text" value={state.text} onChange={(e) => patch({ text: e.currentTarget.value })} />
      <TextInput
        size="sm"
        w={240}
        maw="100%"
        placeholder="Label selector (tier=fast)"
        aria-label="Label selector"
        value={state.selector}
        onChange={(e) => patch({ selector: e.currentTarget.value })}
        error={l.selError}
        styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
      />
      {ui.namespaced && (
        <Select size="sm" w={190} maw="100%" placeholder="All namespaces" aria-label="Namespace" data={l.namespaceOptions} value={state.namespace} onChange={(v) => patch({ namespace: v })} clearable searchable />
      )}
      {l.phases.length > 0 && (
        <Select
          size="sm"
          w={ui.kind === 'PersistentVolumeClaim' ? 230 : 160}
          maw="100%"
          placeholder="Any status"
          aria-label="Status"
          data={ui.kind === 'PersistentVolumeClaim' ? [...l.phases, ...PENDING_STATUS_OPTIONS] : l.phases}
          value={state.status}
          onChange={(v) => patch({ status: v })}
          clearable
        />
      )}
      {l.filtered && (
        <Button size="sm" variant="subtle" color="gray" onClick={l.clearFilters}>
          Clear filters
        </Button>
      )}
    </Group>
  );
}

function ListBody({ l }: { l: ServerListState }) {
  const { ui, err, total } = l;
  if (!l.list.ready) {
    return (
      <Group justify="center" py="xl">
        <Loader role="status" aria-label={`Loading ${ui.noun}`} />
      </Group>
    );
  }
  if (err) return null;
  if (total === 0 && !l.filtered) {
    return (
      <EmptyState
        title={`No ${ui.noun} yet.`}
        description={ui.emptyHint ?? (l.mayCreate ? 'Create one.' : undefined)}
        action={l.mayCreate ? <Button component={Link} href={l.createHref} prefetch={false}>Create {ui.singular}</Button> : undefined}
      />
    );
  }
  if (total === 0) {
    return (
      <EmptyState
        title={`No ${ui.noun} match these filters.`}
        description="Change or clear the filters to see more."
        action={<Button variant="default" onClick={l.clearFilters}>Clear filters</Button>}
      />
    );
  }
  return (
    <ObjectTable
      ui={ui}
      columns={l.columns}
      count={total}
      rowAt={l.rowAt}
      sort={l.state.sort}
      onSort={(s) => l.patch({ sort: s })}
      sortable={(h) => Object.hasOwn(SORT_KEY_OF_HEADER, h)}
      selection={l.selection}
      onRange={l.list.ensure}
    />
  );
}

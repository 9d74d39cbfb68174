'use client';
// The table of a list page: kubectl's columns, headers that sort, cells that link.
import { Anchor, Badge, Group, Paper, Table, Text, UnstyledButton } from '@mantine/core';
import Link from 'next/link';
import type { ReactNode } from 'react';
import type { KubeObject } from '@/server/resources/types';
import { detailHref, isDefaultClass, kindUi, type KindUi } from './kinds';
import { ObjectLink } from './object-link';
import { PendingStatus } from './pending-hint';
import { usePermissions } from './session';
import { StatusBadge } from './status-badge';
import type { ListColumn, ListRow, SortState } from './table-model';

export function ObjectTable({
  ui,
  columns,
  rows,
  sort,
  onSort,
}: {
  ui: KindUi;
  columns: ListColumn[];
  rows: ListRow[];
  sort: SortState;
  onSort: (s: SortState) => void;
}) {
  const linkAt = linkColumn(columns);
  const clickSort = (header: string) =>
    onSort(sort.header === header ? { header, dir: sort.dir === 'asc' ? 'desc' : 'asc' } : { header, dir: 'asc' });
  return (
    <Paper withBorder style={{ overflowX: 'auto' }}>
      <Table highlightOnHover striped="even" stickyHeader aria-label={ui.title} data-testid="object-table" data-kind={ui.kind}>
        <Table.Thead>
          <Table.Tr>
            {columns.map((c) => {
              const active = sort.header === c.header;
              return (
                <Table.Th
                  key={c.header}
                  aria-sort={active ? (sort.dir === 'asc' ? 'ascending' : 'descending') : 'none'}
                  title={c.def?.description}
                >
                  <UnstyledButton className="stowage-sort-header" onClick={() => clickSort(c.header)} fz="xs" fw={700}>
                    {c.header}
                    {active && (
                      <Text span c="indigo" fz={10} ml={4} aria-hidden>
                        {sort.dir === 'asc' ? '▲' : '▼'}
                      </Text>
                    )}
                  </UnstyledButton>
                </Table.Th>
              );
            })}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((r) => (
            <Table.Tr
              key={r.key}
              data-testid="object-row"
              data-name={r.obj.metadata?.name}
              data-namespace={r.obj.metadata?.namespace ?? ''}
            >
              {columns.map((c, i) => (
                <Table.Td key={c.header} className={c.header === 'MESSAGE' ? undefined : 'stowage-nowrap'}>
                  <Cell ui={ui} header={c.header} text={r.cells[i]} obj={r.obj} isLink={i === linkAt} />
                </Table.Td>
              ))}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Paper>
  );
}

/** The column that links to the object's page: NAME, or for events REASON. */
function linkColumn(columns: ListColumn[]): number {
  for (const h of ['NAME', 'REASON']) {
    const i = columns.findIndex((c) => c.header === h);
    if (i !== -1) return i;
  }
  return 0;
}

function Cell({ ui, header, text, obj, isLink }: { ui: KindUi; header: string; text: string; obj: KubeObject; isLink: boolean }) {
  const perms = usePermissions();
  const name = obj.metadata?.name ?? '';
  const ns = obj.metadata?.namespace;
  if (isLink) {
    const href = detailHref(ui.kind, ns, name);
    const shown = ui.kind === 'StorageClass' ? text.replace(/ \(default\)$/, '') : text;
    const content: ReactNode = (
      <Anchor component={Link} href={href ?? '#'} fw={500} fz="sm" data-testid="object-name">
        {shown}
      </Anchor>
    );
    if (ui.kind === 'StorageClass' && isDefaultClass(obj)) {
      return (
        <Group gap={6} wrap="nowrap">
          {content}
          <Badge size="xs" variant="outline" color="indigo" tt="none" miw="max-content" data-testid="default-class">
            (default)
          </Badge>
        </Group>
      );
    }
    return content;
  }
  if (!text) return null;
  if (header === ui.statusColumn) {
    return ui.kind === 'PersistentVolumeClaim' ? <PendingStatus claim={obj} text={text} /> : <StatusBadge value={text} />;
  }
  switch (header) {
    case 'NAMESPACE':
      return <ObjectLink kind="Namespace" name={text} allowed={perms.can('get', 'Namespace', text)} />;
    case 'CLAIM': {
      const [cns, cname] = text.split('/');
      return <ObjectLink kind="PersistentVolumeClaim" namespace={cns} name={cname ?? ''} allowed={perms.can('get', 'PersistentVolumeClaim', cns)}>{text}</ObjectLink>;
    }
    case 'VOLUME':
      return <ObjectLink kind="PersistentVolume" name={text} allowed={perms.can('get', 'PersistentVolume')} />;
    case 'STORAGECLASS':
      return <ObjectLink kind="StorageClass" name={text} allowed={perms.can('get', 'StorageClass')} />;
    case 'OBJECT': {
      const io = obj.involvedObject ?? {};
      const target = kindUi(io.kind ?? '');
      if (!target) return <Text span fz="sm">{text}</Text>;
      return (
        <ObjectLink kind={target.kind} namespace={io.namespace} name={io.name ?? ''} allowed={perms.can('get', target.kind, io.namespace)}>
          {text}
        </ObjectLink>
      );
    }
    case 'MESSAGE':
      return (
        <Text span fz="sm" style={{ whiteSpace: 'normal' }}>
          {text}
        </Text>
      );
    default:
      return <>{text}</>;
  }
}

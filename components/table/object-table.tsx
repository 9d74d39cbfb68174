'use client';
// The table of a list page: only the rows in view are in the DOM (TanStack Virtual), the
// header sticks, columns share the width so the table fits the screen, headers sort,
// names link, and rows can be selected for bulk actions.
import { Checkbox, Paper, Skeleton, Text, UnstyledButton } from '@mantine/core';
import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useEffect, useRef } from 'react';
import type { KubeObject } from '@/server/resources/types';
import type { KindUi } from '../objects/kinds';
import { gridStyle, HEADER_GROUP_STYLE, ROW_HEIGHT, virtualRowStyle } from './grid';
import { Cell, linkColumn } from './object-cell';
import { UsedCell } from '../volumes/used-cell';
import type { ListColumn, ListRow, SortState } from './table-model';

export interface Selection {
  has(key: string): boolean;
  toggle(key: string, obj: KubeObject): void;
  /** All loaded rows selected (true), some (indeterminate) or none. */
  all: boolean | 'some';
  toggleAll(): void;
}

/** A column's share of the width: fixed for short values, a fraction for names; never narrower than its header. */
function widthOf(c: ListColumn): string {
  const [, min, share] = /^minmax\((\d+)px, (.+)\)$/.exec(baseWidthOf(c))!;
  // An uppercase bold xs letter is at most ~8 px wide; the sort arrow takes 14 more.
  const header = Math.ceil(String(c.label ?? c.header).length * 8 + 22);
  return `minmax(${Math.max(Number(min), header)}px, ${share})`;
}

function baseWidthOf(c: ListColumn): string {
  switch (c.header) {
    case 'NAME':
      return 'minmax(160px, 2.4fr)';
    case 'CLAIM':
    case 'VOLUME':
    case 'PROVISIONER':
    case 'OBJECT':
      return 'minmax(120px, 1.8fr)';
    case 'MESSAGE':
      return 'minmax(200px, 3fr)';
    case 'USED':
      return 'minmax(96px, 1fr)';
    case 'CAPACITY':
    case 'AGE':
    case 'COUNT':
    case 'TYPE':
    case 'LAST SEEN':
      return 'minmax(56px, 0.6fr)';
    case 'ACCESS MODES':
    case 'STATUS':
    case 'RECLAIM POLICY':
    case 'RECLAIMPOLICY':
    case 'VOLUMEMODE':
      return 'minmax(72px, 0.9fr)';
    default:
      return 'minmax(80px, 1fr)';
  }
}

export function ObjectTable({
  ui,
  columns,
  count,
  rowAt,
  sort,
  onSort,
  sortable,
  selection,
  onRange,
  height,
}: {
  ui: KindUi;
  columns: ListColumn[];
  count: number;
  /** The row at a position, or undefined while it loads. */
  rowAt: (i: number) => ListRow | undefined;
  sort: SortState;
  onSort: (s: SortState) => void;
  /** Whether a header can sort (the server sorts only by indexed columns). */
  sortable?: (header: string) => boolean;
  selection?: Selection;
  /** Told the visible range [from, to) whenever it changes. */
  onRange?: (from: number, to: number) => void;
  height?: string;
}) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 6,
  });
  const items = virtualizer.getVirtualItems();
  const from = items[0]?.index ?? 0;
  const to = (items.at(-1)?.index ?? -1) + 1;
  useEffect(() => {
    onRange?.(from, Math.max(to, Math.min(count, 30)));
  }, [from, to, count, onRange]);

  const template = `${selection ? '36px ' : ''}${columns.map(widthOf).join(' ')}`;
  const grid = gridStyle(template);
  const linkAt = linkColumn(columns);
  const clickSort = (header: string) =>
    onSort(sort.header === header ? { header, dir: sort.dir === 'asc' ? 'desc' : 'asc' } : { header, dir: 'asc' });
  const bodyHeight = virtualizer.getTotalSize();

  return (
    <Paper withBorder>
      <div
        ref={scrollRef}
        role="table"
        aria-label={ui.title}
        aria-rowcount={count + 1}
        data-testid="object-table"
        data-kind={ui.kind}
        tabIndex={0}
        style={{ height: height ?? `min(${bodyHeight + ROW_HEIGHT + 2}px, calc(100vh - 250px))`, minHeight: ROW_HEIGHT * 3, overflow: 'auto', position: 'relative' }}
      >
        <div role="rowgroup" style={HEADER_GROUP_STYLE}>
          <div role="row" aria-rowindex={1} style={{ ...grid, height: ROW_HEIGHT }}>
            {selection && (
              <div role="columnheader">
                <Checkbox
                  size="xs"
                  aria-label="Select all loaded rows"
                  checked={selection.all === true}
                  indeterminate={selection.all === 'some'}
                  onChange={() => selection.toggleAll()}
                />
              </div>
            )}
            {columns.map((c) => {
              const active = sort.header === c.header;
              const canSort = sortable ? sortable(c.header) : true;
              const label = c.label !== undefined ? c.label : c.header;
              return (
                <div
                  key={c.header}
                  role="columnheader"
                  aria-sort={active ? (sort.dir === 'asc' ? 'ascending' : 'descending') : 'none'}
                  title={c.def?.description ?? (c.label !== undefined ? `The label ${c.label}` : undefined)}
                  style={{ overflow: 'hidden' }}
                >
                  {canSort ? (
                    <UnstyledButton className="stowage-sort-header" onClick={() => clickSort(c.header)} fz="xs" fw={700}>
                      {label}
                      {active && (
                        <Text span c="indigo.8" fz={10} ml={4} aria-hidden>
                          {sort.dir === 'asc' ? '▲' : '▼'}
                        </Text>
                      )}
                    </UnstyledButton>
                  ) : (
                    <Text fz="xs" fw={700} className="stowage-nowrap">
                      {label}
                    </Text>
                  )}
                </div>
              );
            })}
          </div>
        </div>
        <div role="rowgroup" style={{ height: bodyHeight, position: 'relative' }}>
          {items.map((v) => {
            const r = rowAt(v.index);
            if (!r) {
              return (
                <div key={`loading-${v.index}`} role="row" aria-rowindex={v.index + 2} aria-busy style={virtualRowStyle(template, v.index, v.start)} data-testid="loading-row">
                  <div role="cell" style={{ gridColumn: '1 / -1' }}>
                    <Skeleton height={12} radius="sm" />
                  </div>
                </div>
              );
            }
            return (
              <TableRow
                key={r.key}
                ui={ui}
                columns={columns}
                linkAt={linkAt}
                template={template}
                row={r}
                index={v.index}
                start={v.start}
                selected={selection ? selection.has(r.key) : undefined}
                onToggle={selection?.toggle}
              />
            );
          })}
        </div>
      </div>
    </Paper>
  );
}

/**
 * One row. Memoised: a sort click, a selection elsewhere or a page arriving re-renders
 * only the rows whose object, place or selection changed (rows are cached per object by
 * the list, and `onToggle` is stable), which keeps a sort or filter within a frame or two.
 */
const TableRow = memo(function TableRow({
  ui,
  columns,
  linkAt,
  template,
  row: r,
  index,
  start,
  selected,
  onToggle,
}: {
  ui: KindUi;
  columns: ListColumn[];
  linkAt: number;
  template: string;
  row: ListRow;
  index: number;
  start: number;
  /** Undefined when the table has no selection. */
  selected: boolean | undefined;
  onToggle: ((key: string, obj: KubeObject) => void) | undefined;
}) {
  return (
    <div
      role="row"
      aria-rowindex={index + 2}
      aria-selected={selected}
      style={virtualRowStyle(template, index, start)}
      data-testid="object-row"
      data-name={r.obj.metadata?.name}
      data-namespace={r.obj.metadata?.namespace ?? ''}
    >
      {onToggle && (
        <div role="cell">
          <Checkbox size="xs" aria-label={`Select ${r.obj.metadata?.name}`} checked={selected ?? false} onChange={() => onToggle(r.key, r.obj)} />
        </div>
      )}
      {columns.map((c, i) => (
        <div key={c.header} role="cell" className="stowage-cell" title={r.cells[i] || undefined}>
          {c.used ? <UsedCell used={r.used} /> : <Cell ui={ui} header={c.header} text={r.cells[i]} obj={r.obj} isLink={i === linkAt} />}
        </div>
      ))}
    </div>
  );
});

'use client';
// The table of a list page: only the rows in view are in the DOM (TanStack Virtual), the
// header sticks, columns share the width so the table fits the screen (the least important
// hide when it is narrow; cells wrap, rows grow and are measured), headers sort, names
// link, and rows can be selected for bulk actions. Below CARD_WIDTH each row is a card.
import { Button, Checkbox, Group, NativeSelect, Paper, Skeleton, Text, UnstyledButton } from '@mantine/core';
import { useElementSize } from '@mantine/hooks';
import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useEffect, useMemo, useRef, useState, type CSSProperties } from 'react';
import type { KubeObject } from '@/server/resources/types';
import type { KindUi } from '../objects/kinds';
import { gridStyle, HEADER_GROUP_STYLE, measuredRowStyle, ROW_HEIGHT } from './grid';
import { CARD_WIDTH, fitColumns, trackOf } from './column-fit';
import { Cell, linkColumn } from './object-cell';
import { UsedCell } from '../volumes/used-cell';
import { ReplicasCell } from '../volumes/replicas-cell';
import type { ListColumn, ListRow, SortState } from './table-model';

export interface Selection {
  has(key: string): boolean;
  toggle(key: string, obj: KubeObject): void;
  /** All loaded rows selected (true), some (indeterminate) or none. */
  all: boolean | 'some';
  toggleAll(): void;
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
  const { ref: sizeRef, width } = useElementSize();
  const cards = width > 0 && width < CARD_WIDTH;
  const selectable = Boolean(selection);
  // The same array while the same columns fit (a resize by a pixel changes nothing): rows are
  // memoised on it, so a sort stays within a frame or two.
  // REPLICAS takes room only once the list has shown a replicated volume (then it stays, so
  // it does not come and go while scrolling): an installation without replicas keeps its
  // columns as they were instead of giving one up to a column of dashes.
  const [sawReplicated, setSawReplicated] = useState(false);
  const candidates = sawReplicated ? columns : columns.filter((c) => !c.replicas);
  const fitted = (cards ? candidates : fitColumns(candidates, width, selectable)).map((c) => c.header).join('\n');
  const shown = useMemo(() => {
    const keep = new Set(fitted.split('\n'));
    return columns.filter((c) => keep.has(c.header));
  }, [columns, fitted]);
  // Where each shown column's text is in a row's cells (built for all of `columns`).
  const cellIndex = useMemo(() => shown.map((c) => columns.indexOf(c)), [shown, columns]);
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => (cards ? CARD_ESTIMATE : ROW_HEIGHT),
    overscan: 6,
  });
  // Rows are measured as they render. A change of layout (cards, or which columns fit: keyed
  // by their names, not by an array a parent may build anew each render) measures the rows
  // on screen again at once: their size may not change again afterwards, so the resize
  // observer would not tell. (Not virtualizer.measure(): it forgets every size, and the
  // rows measured right after it are compared with the sizes it forgot, found unchanged
  // and left at the estimate: rows whose cells wrap were drawn over the next row.) Rows off
  // screen are measured when they come into view.
  useEffect(() => {
    scrollRef.current?.querySelectorAll<HTMLElement>('[role="rowgroup"] > [data-index]').forEach((el) => virtualizer.measureElement(el));
  }, [cards, fitted, virtualizer]);
  const items = virtualizer.getVirtualItems();
  const from = items[0]?.index ?? 0;
  const replicatedInView = !sawReplicated && items.some((i) => (rowAt(i.index)?.replicas?.tone ?? 'none') !== 'none');
  useEffect(() => {
    if (replicatedInView) setSawReplicated(true);
  }, [replicatedInView]);
  const to = (items.at(-1)?.index ?? -1) + 1;
  useEffect(() => {
    onRange?.(from, Math.max(to, Math.min(count, 30)));
  }, [from, to, count, onRange]);

  const template = cards ? '' : `${selection ? '36px ' : ''}${shown.map(trackOf).join(' ')}`;
  const grid = gridStyle(template);
  const linkAt = linkColumn(shown);
  const clickSort = (header: string) =>
    onSort(sort.header === header ? { header, dir: sort.dir === 'asc' ? 'desc' : 'asc' } : { header, dir: 'asc' });
  const bodyHeight = virtualizer.getTotalSize();

  return (
    <Paper withBorder ref={sizeRef} data-testid="object-table-frame" data-layout={cards ? 'cards' : 'table'} data-hidden-columns={columns.filter((c) => !shown.includes(c)).map((c) => c.header).join(',') || undefined}>
      {cards && <CardSort columns={columns} sort={sort} onSort={onSort} sortable={sortable} />}
      <div
        ref={scrollRef}
        role="table"
        aria-label={ui.title}
        aria-rowcount={count + 1}
        data-testid="object-table"
        data-kind={ui.kind}
        tabIndex={0}
        style={{ height: height ?? `min(${bodyHeight + (cards ? 0 : ROW_HEIGHT) + 2}px, calc(100vh - 250px))`, minHeight: ROW_HEIGHT * 3, overflow: 'auto', position: 'relative' }}
      >
        <div role="rowgroup" style={cards ? VISUALLY_HIDDEN : HEADER_GROUP_STYLE}>
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
            {shown.map((c) => {
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
                <div key={`loading-${v.index}`} ref={virtualizer.measureElement} data-index={v.index} role="row" aria-rowindex={v.index + 2} aria-busy style={measuredRowStyle(template, v.index, v.start)} data-testid="loading-row">
                  <div role="cell" style={{ gridColumn: '1 / -1' }}>
                    <Skeleton height={12} radius="sm" />
                  </div>
                </div>
              );
            }
            return (
              <TableRow
                key={r.key}
                measure={virtualizer.measureElement}
                cards={cards}
                ui={ui}
                columns={shown}
                cellIndex={cellIndex}
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
  measure,
  cards,
  ui,
  columns,
  cellIndex,
  linkAt,
  template,
  row: r,
  index,
  start,
  selected,
  onToggle,
}: {
  measure: (el: Element | null) => void;
  cards: boolean;
  ui: KindUi;
  columns: ListColumn[];
  /** Where each column's text is in `row.cells`. */
  cellIndex: number[];
  linkAt: number;
  template: string;
  row: ListRow;
  index: number;
  start: number;
  /** Undefined when the table has no selection. */
  selected: boolean | undefined;
  onToggle: ((key: string, obj: KubeObject) => void) | undefined;
}) {
  const text = (i: number) => r.cells[cellIndex[i]] ?? '';
  const cell = (c: ListColumn, i: number) => (c.used ? <UsedCell used={r.used} /> : c.replicas ? <ReplicasCell summary={r.replicas} /> : <Cell ui={ui} header={c.header} text={text(i)} obj={r.obj} isLink={i === linkAt} />);
  const select = onToggle && <Checkbox size="xs" aria-label={`Select ${r.obj.metadata?.name}`} checked={selected ?? false} onChange={() => onToggle(r.key, r.obj)} />;
  const rowProps = {
    ref: measure,
    'data-index': index,
    role: 'row',
    'aria-rowindex': index + 2,
    'aria-selected': selected,
    'data-testid': 'object-row',
    'data-name': r.obj.metadata?.name,
    'data-namespace': r.obj.metadata?.namespace ?? '',
  };
  if (cards) {
    // A card: the name (and the state) first, then each other column that has a value, labelled.
    const status = columns.findIndex((c) => c.header === ui.statusColumn);
    const rest = columns.map((c, i) => ({ c, i })).filter(({ c, i }) => i !== linkAt && i !== status && (c.used ? r.used : c.replicas ? r.replicas?.tone !== 'none' : text(i)));
    return (
      <div {...rowProps} style={cardRowStyle(index, start)} data-layout="card">
        <div style={{ display: 'flex', alignItems: 'center', gap: 8, justifyContent: 'space-between' }}>
          {select && <div role="cell">{select}</div>}
          <div role="cell" className="stowage-cell" style={{ flex: '1 1 auto' }}>
            {cell(columns[linkAt], linkAt)}
          </div>
          {status !== -1 && text(status) && (
            <div role="cell" className="stowage-cell" style={{ flex: 'none' }}>
              {cell(columns[status], status)}
            </div>
          )}
        </div>
        <div className="stowage-card-fields">
          {rest.map(({ c, i }) => (
            <div key={c.header} role="cell" className="stowage-cell stowage-card-field">
              <span className="stowage-card-label">{c.label ?? c.header.toLowerCase()}</span>
              <span style={{ minWidth: 0, flex: '1 1 auto' }}>{cell(c, i)}</span>
            </div>
          ))}
        </div>
      </div>
    );
  }
  return (
    <div {...rowProps} style={measuredRowStyle(template, index, start)}>
      {select && <div role="cell">{select}</div>}
      {columns.map((c, i) => (
        <div key={c.header} role="cell" className="stowage-cell" title={c.replicas ? undefined : text(i) || undefined}>
          {cell(c, i)}
        </div>
      ))}
    </div>
  );
});

/** Cards have no header row: the sort is a picker and a direction button above them. */
function CardSort({ columns, sort, onSort, sortable }: { columns: ListColumn[]; sort: SortState; onSort: (s: SortState) => void; sortable?: (header: string) => boolean }) {
  const options = columns.filter((c) => !c.used && (sortable ? sortable(c.header) : true)).map((c) => ({ value: c.header, label: c.label ?? c.header.toLowerCase() }));
  if (options.length === 0) return null;
  return (
    <Group gap="xs" p="xs" wrap="nowrap" data-testid="card-sort">
      <NativeSelect size="xs" aria-label="Sort by" data={options} value={options.some((o) => o.value === sort.header) ? sort.header : options[0].value} onChange={(e) => onSort({ header: e.currentTarget.value, dir: sort.dir })} />
      <Button size="compact-xs" variant="default" onClick={() => onSort({ header: sort.header || options[0].value, dir: sort.dir === 'asc' ? 'desc' : 'asc' })} aria-label={sort.dir === 'asc' ? 'Sorted ascending: sort descending' : 'Sorted descending: sort ascending'}>
        {sort.dir === 'asc' ? '▲' : '▼'}
      </Button>
    </Group>
  );
}

/** A card's first guess before it is measured: a name line and two lines of fields. */
const CARD_ESTIMATE = 84;

const VISUALLY_HIDDEN: CSSProperties = { position: 'absolute', width: 1, height: 1, overflow: 'hidden', clip: 'rect(0 0 0 0)', whiteSpace: 'nowrap' };

function cardRowStyle(index: number, start: number): CSSProperties {
  return {
    position: 'absolute',
    top: 0,
    left: 0,
    right: 0,
    transform: `translateY(${start}px)`,
    padding: '8px 12px',
    borderBottom: '1px solid var(--mantine-color-default-border)',
    background: index % 2 ? 'var(--mantine-color-default-hover)' : undefined,
  };
}

// The dashboard's table for everything but the object lists: the same grid rows, sticky
// header and stripes as the lists' table (grid.tsx), with columns given as cells. Rows
// stay in the flow, so a cell may wrap or hold a progress bar. The rows are subgrids of
// one grid, so a track sized by its content ("max-content") is the same in the header and
// in every row: headers line up with their cells.
import { Paper, Text } from '@mantine/core';
import type { CSSProperties, HTMLAttributes, ReactNode } from 'react';
import { flowRowStyle, gridStyle, HEADER_GROUP_STYLE, ROW_HEIGHT } from './grid';

/** Attributes put on a row or a cell: test ids, data-* values, a tooltip, a colour. */
export type DataAttributes = HTMLAttributes<HTMLDivElement> & { [data: `data-${string}`]: string | number | boolean | undefined };

export interface DataColumn<T> {
  key: string;
  header: ReactNode;
  cell: (row: T, index: number) => ReactNode;
  /** The column's grid track; by default it shares the width with the others. */
  width?: string;
  /** Attributes of the column's cell in a row (title, data-testid, style). */
  cellProps?: (row: T) => DataAttributes;
  /** Keep the cell on one line. */
  nowrap?: boolean;
}

const CELL: CSSProperties = { minWidth: 0, overflowWrap: 'anywhere', fontSize: 'var(--mantine-font-size-sm)' };
const VISUALLY_HIDDEN: CSSProperties = { position: 'absolute', width: 1, height: 1, overflow: 'hidden', clip: 'rect(0 0 0 0)', whiteSpace: 'nowrap' };
const NOWRAP: CSSProperties = { ...CELL, whiteSpace: 'nowrap', overflow: 'hidden', textOverflow: 'ellipsis' };
/** A row group or a row: the table's own tracks, across its whole width. */
const SUBGRID: CSSProperties = { display: 'grid', gridTemplateColumns: 'subgrid', gridColumn: '1 / -1' };

export function DataTable<T>({
  label,
  columns,
  rows,
  rowKey,
  rowProps,
  minWidth,
  striped = true,
  withBorder = true,
  hideHeader = false,
  ...rest
}: {
  /** The table's accessible name. */
  label: string;
  columns: DataColumn<T>[];
  rows: T[];
  rowKey: (row: T, index: number) => string;
  rowProps?: (row: T) => DataAttributes;
  /** Below this width the table scrolls sideways rather than squeezing its columns. */
  minWidth?: number;
  striped?: boolean;
  withBorder?: boolean;
  /** The header only for screen readers (a table whose cells say what they are). */
  hideHeader?: boolean;
} & DataAttributes) {
  const template = columns.map((c) => c.width ?? 'minmax(80px, 1fr)').join(' ');
  // At least its tracks' minimums wide, so a narrow screen scrolls the table (rows and stripes whole), never the page.
  const grid: CSSProperties = { display: 'grid', gridTemplateColumns: template, columnGap: gridStyle(template).columnGap, minWidth: minWidth ?? 'min-content' };
  return (
    <Paper withBorder={withBorder}>
      <div role="table" aria-label={label} aria-rowcount={rows.length + 1} style={{ overflowX: 'auto' }} {...rest}>
        <div style={grid}>
          <div role="rowgroup" style={hideHeader ? VISUALLY_HIDDEN : { ...HEADER_GROUP_STYLE, ...SUBGRID }}>
            <div role="row" aria-rowindex={1} style={{ ...gridStyle(template), ...SUBGRID, minHeight: ROW_HEIGHT }}>
              {columns.map((c) => (
                <div key={c.key} role="columnheader" style={{ minWidth: 0 }}>
                  <Text fz="sm" fw={700}>
                    {c.header}
                  </Text>
                </div>
              ))}
            </div>
          </div>
          <div role="rowgroup" style={SUBGRID}>
            {rows.map((r, i) => {
              const { style, ...attrs } = rowProps?.(r) ?? {};
              return (
                <div key={rowKey(r, i)} role="row" aria-rowindex={i + 2} style={{ ...flowRowStyle(template, i, striped), ...SUBGRID, ...style }} {...attrs}>
                  {columns.map((c) => {
                    const { style: cellStyle, ...cellAttrs } = c.cellProps?.(r) ?? {};
                    return (
                      <div key={c.key} role="cell" style={{ ...(c.nowrap ? NOWRAP : CELL), ...cellStyle }} {...cellAttrs}>
                        {c.cell(r, i)}
                      </div>
                    );
                  })}
                </div>
              );
            })}
          </div>
        </div>
      </div>
    </Paper>
  );
}

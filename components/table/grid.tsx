// The primitives every table of the dashboard is drawn with: a CSS grid per row (columns
// share the width by their tracks), a sticky header row, and rows either placed by the
// virtualiser (long lists) or in the flow (short tables whose cells may wrap).
import type { CSSProperties } from 'react';

export const ROW_HEIGHT = 38;

export function gridStyle(template: string): CSSProperties {
  return { display: 'grid', gridTemplateColumns: template, alignItems: 'center', columnGap: 8, padding: '0 8px' };
}

/** The header's row group: stays at the top while the table scrolls. */
export const HEADER_GROUP_STYLE: CSSProperties = {
  position: 'sticky',
  top: 0,
  zIndex: 2,
  background: 'var(--mantine-color-body)',
  borderBottom: '1px solid var(--mantine-color-default-border)',
};

const stripe = (index: number) => (index % 2 ? 'var(--mantine-color-default-hover)' : undefined);

/** A row the virtualiser places at `start`: at least a list row high, taller when a cell wraps (the virtualiser measures it). */
export function measuredRowStyle(template: string, index: number, start: number): CSSProperties {
  return {
    ...gridStyle(template),
    position: 'absolute',
    top: 0,
    left: 0,
    right: 0,
    minHeight: ROW_HEIGHT,
    paddingTop: 3,
    paddingBottom: 3,
    transform: `translateY(${start}px)`,
    borderBottom: '1px solid var(--mantine-color-default-border)',
    background: stripe(index),
  };
}

/** A row in the flow: at least a list row high, taller when a cell wraps. */
export function flowRowStyle(template: string, index: number, striped: boolean): CSSProperties {
  return {
    ...gridStyle(template),
    minHeight: ROW_HEIGHT,
    paddingTop: 4,
    paddingBottom: 4,
    borderBottom: '1px solid var(--mantine-color-default-border)',
    background: striped ? stripe(index) : undefined,
  };
}

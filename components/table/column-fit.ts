// Which columns a list shows at the width it has, and how wide each is. Every column has a
// minimum (never narrower than its header) and a share of what is left; when the minimums
// do not fit, the least important columns hide first (as OpenShift's and Rancher's lists
// do), so the grid never runs past the screen. Below CARD_WIDTH rows become cards. Pure.
import type { ListColumn } from './table-model';

/** Below this table width (px) a row is a card: name and state first, the rest as labelled lines. */
export const CARD_WIDTH = 600;
/** Space a row takes besides its tracks: its padding (8 + 8) and the scroll bar. */
const ROW_CHROME = 16 + 16;
export const COLUMN_GAP = 8;
const SELECT_TRACK = 36;

/** How much a column matters when space is short: higher stays longer. NAME never hides. */
const PRIORITY: Record<string, number> = {
  NAME: 1000,
  STATUS: 95,
  NAMESPACE: 90,
  CAPACITY: 85,
  CLAIM: 80,
  USED: 75,
  REQUEST: 75,
  LIMIT: 60,
  MESSAGE: 70,
  STORAGECLASS: 65,
  PROVISIONER: 60,
  OBJECT: 60,
  REASON: 55,
  TYPE: 55,
  VOLUME: 50,
  AGE: 45,
  'LAST SEEN': 45,
  COUNT: 35,
  'ACCESS MODES': 30,
  REPLICAS: 28,
  'RECLAIM POLICY': 25,
  RECLAIMPOLICY: 25,
  VOLUMEMODE: 20,
  VOLUMEATTRIBUTESCLASS: 10,
};

export function priorityOf(c: Pick<ListColumn, 'header' | 'label'>): number {
  if (c.label !== undefined) return 40;
  return PRIORITY[c.header] ?? 40;
}

function baseTrack(header: string): [number, string] {
  switch (header) {
    case 'NAME':
      return [160, '2.4fr'];
    case 'CLAIM':
    case 'VOLUME':
    case 'PROVISIONER':
    case 'OBJECT':
      return [140, '1.8fr'];
    case 'MESSAGE':
      return [200, '3fr'];
    case 'REQUEST':
    case 'LIMIT':
      return [220, '2fr'];
    case 'USED':
      return [150, '1.2fr'];
    case 'REASON': // an event's reason is one CamelCase word ("WaitForFirstConsumer"): room for it whole
      return [170, '1.2fr'];
    case 'STATUS':
    case 'TYPE': // an event's Type is a badge ("Warning"), as wide as a status
      return [100, '0.8fr'];
    case 'CAPACITY':
    case 'AGE':
    case 'COUNT':
    case 'LAST SEEN':
      return [64, '0.6fr'];
    case 'REPLICAS': // "1/2 · behind 95 s" on two short lines at most: a fixed track
      return [120, '120px'];
    case 'ACCESS MODES':
    case 'RECLAIM POLICY':
    case 'RECLAIMPOLICY':
    case 'VOLUMEMODE':
      return [80, '0.9fr'];
    default:
      return [90, '1fr'];
  }
}

/** A column's least width: its kind's, and never narrower than its header (bold xs capitals ~8 px, the sort arrow 14 more). */
export function minWidthOf(c: Pick<ListColumn, 'header' | 'label'>): number {
  const [min] = baseTrack(c.header);
  const header = Math.ceil(String(c.label ?? c.header).length * 8 + 22);
  return Math.max(min, header);
}

/** The grid track of a column: at least its minimum, then its share of the rest. */
export function trackOf(c: Pick<ListColumn, 'header' | 'label'>): string {
  return `minmax(${minWidthOf(c)}px, ${baseTrack(c.header)[1]})`;
}

/** The width the tracks of `columns` need at least, gaps and row padding included. */
export function neededWidth(columns: Pick<ListColumn, 'header' | 'label'>[], selectable: boolean): number {
  const tracks = columns.map(minWidthOf);
  if (selectable) tracks.push(SELECT_TRACK);
  return tracks.reduce((a, b) => a + b, 0) + Math.max(0, tracks.length - 1) * COLUMN_GAP + ROW_CHROME;
}

/**
 * The columns that fit in `width` px, in their order: the least important hide first (the
 * later of two equal ones first). A width of 0 (not measured yet) keeps them all.
 */
export function fitColumns<C extends Pick<ListColumn, 'header' | 'label'>>(columns: C[], width: number, selectable = false): C[] {
  if (width <= 0) return columns;
  const shown = [...columns];
  while (shown.length > 1 && neededWidth(shown, selectable) > width) {
    let drop = -1;
    shown.forEach((c, i) => {
      if (c.header === 'NAME') return;
      if (drop === -1 || priorityOf(c) <= priorityOf(shown[drop])) drop = i;
    });
    if (drop === -1) break;
    shown.splice(drop, 1);
  }
  return shown;
}

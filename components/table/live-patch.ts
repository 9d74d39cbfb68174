// The rows a list page has loaded, and how one change from the live stream patches
// them: no refetch of the kind, just the row that changed moved, replaced, added or
// removed. Pure.
import type { KubeObject } from '@/server/resources/types';

/** `rows[i]` is the object at position i in the server's order, or undefined if not loaded. */
export interface Loaded {
  total: number;
  rows: (KubeObject | undefined)[];
}

export interface Change {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: KubeObject;
}

export function keyOf(o: KubeObject): string {
  return `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
}

export function emptyLoaded(): Loaded {
  return { total: 0, rows: [] };
}

/** Puts one page the server returned at its offset (the server's answer wins). */
export function withPage(l: Loaded, offset: number, items: KubeObject[], total: number): Loaded {
  const rows = l.rows.slice(0, total);
  while (rows.length < total) rows.push(undefined);
  // The same object elsewhere (it moved since that part was read) is dropped there.
  const keys = new Set(items.map(keyOf));
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    if (r && (i < offset || i >= offset + items.length) && keys.has(keyOf(r))) rows[i] = undefined;
  }
  items.forEach((o, i) => {
    if (offset + i < total) rows[offset + i] = o;
  });
  return { total, rows };
}

/**
 * Where a new object goes: just before the first loaded row that sorts at or after it,
 * or else right after the last loaded row (so it is seen next to its neighbours).
 */
export function insertAt(rows: (KubeObject | undefined)[], o: KubeObject, compare: (a: KubeObject, b: KubeObject) => number): number {
  let lastBefore = -1;
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    if (!r) continue;
    if (compare(r, o) >= 0) return i;
    lastBefore = i;
  }
  return lastBefore + 1;
}

/**
 * Applies one change. `matches` says whether an object belongs in this list (its
 * filters); `compare` is the list's order.
 */
export function applyChange(
  l: Loaded,
  change: Change,
  matches: (o: KubeObject) => boolean,
  compare: (a: KubeObject, b: KubeObject) => number,
): Loaded {
  const key = keyOf(change.object);
  const at = l.rows.findIndex((r) => r !== undefined && keyOf(r) === key);
  const rows = l.rows.slice();
  let total = l.total;
  if (at !== -1) {
    rows.splice(at, 1);
    total -= 1;
  }
  const belongs = change.type !== 'DELETED' && matches(change.object);
  if (belongs) {
    if (at !== -1 && compare(change.object, l.rows[at]!) === 0) {
      rows.splice(at, 0, change.object);
    } else {
      rows.splice(insertAt(rows, change.object, compare), 0, change.object);
    }
    total += 1;
  } else if (at === -1 && change.type === 'DELETED' && matches(change.object)) {
    // A row we never loaded went away: one fewer in all.
    const gap = rows.indexOf(undefined);
    if (gap !== -1) rows.splice(gap, 1);
    total = Math.max(0, total - 1);
  }
  if (rows.length > total) rows.length = total;
  while (rows.length < total) rows.push(undefined);
  return { total, rows };
}

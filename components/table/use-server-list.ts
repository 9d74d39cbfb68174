'use client';
// The state of a server-side list page: the view (kept in the address bar), the paged
// request it makes, the rows (cached per object), and the selection for bulk actions.
import { useDebouncedValue } from '@mantine/hooks';
import { useSearchParams } from 'next/navigation';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { strategyForKind } from '@/server/resources/registry';
import type { KubeObject, Strategy } from '@/server/resources/types';
import { errorInfo } from '../format/format';
import { useNow } from '../format/use-now';
import { isDefaultClass, type KindUi } from '../objects/kinds';
import { usePermissions } from '../session/session';
import { useNamespaceOptions } from './list-parts';
import { pageRequest, selectorError, stateFromParams, stateToParams, type ListState } from './list-state';
import { keyOf, type Loaded } from './live-patch';
import type { Selection } from './object-table';
import { buildRow, chosenColumns, type ListRow } from './table-model';
import { usePagedList } from './use-paged-list';
import type { ClaimsReplication } from './claims-replication';
import type { UsedBytes } from '../volumes/used-view';

export function useServerList(ui: KindUi) {
  const perms = usePermissions();
  const params = useSearchParams();
  const strategy = strategyForKind(ui.kind)!;
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
  const { columns, rowAt } = useRows(strategy, state.columns, list.loaded, list.used, list.replication);
  const { selected, selection, clearSelection, loadedObjs } = useSelection(list.loaded, reqKey);

  const namespaceOptions = useNamespaceOptions(ui);
  const createNs = perms.namespacesFor('create', ui.kind);
  const filtered = Boolean(req.text || req.labelSelector || req.fields || req.namespace);
  return {
    ui,
    strategy,
    state,
    patch,
    list,
    columns,
    rowAt,
    selected,
    selection,
    clearSelection,
    namespaceOptions,
    mayCreate: createNs === 'all' || createNs.length > 0,
    createHref: createHrefOf(ui, state.namespace),
    filtered,
    clearFilters: () => patch({ text: '', selector: '', status: null, namespace: null }),
    selError: selectorError(state.selector),
    err: list.error ? errorInfo(list.error) : undefined,
    total: list.loaded.total,
    phases: ui.statuses.filter((s) => s !== 'Terminating'),
    defaults: ui.kind === 'StorageClass' ? loadedObjs.filter(isDefaultClass) : [],
  };
}

export type ServerListState = ReturnType<typeof useServerList>;

/** Where "Create" goes: the kind's form, else the YAML editor. */
function createHrefOf(ui: KindUi, namespace: string | null): string {
  if (ui.createForm) return ui.createForm(namespace);
  return `/new?kind=${ui.kind}${ui.namespaced && namespace ? `&namespace=${encodeURIComponent(namespace)}` : ''}`;
}

/** The chosen columns and the row at a position. */
function useRows(strategy: Strategy, chosen: string[] | null, loaded: Loaded, used: Record<string, UsedBytes>, replication: ClaimsReplication) {
  const now = useNow(5000);
  const columns = useMemo(() => chosenColumns(strategy, chosen), [strategy, chosen]);
  const nowDate = useMemo(() => new Date(now), [now]);
  // One row per object copy, kept while the columns and the clock stay, so the table's
  // memoised rows re-render only for objects that changed. A claim's row is also built
  // again when its volume's usage changed (the usage it was built with is kept beside it).
  // eslint-disable-next-line react-hooks/exhaustive-deps -- the cache is dropped whenever what its rows were built from changes
  const rowCache = useMemo(() => new WeakMap<KubeObject, { row: ListRow; used?: UsedBytes; replication?: Record<string, string> }>(), [strategy, columns, nowDate]);
  const rowAt = useCallback(
    (i: number) => {
      const o = loaded.rows[i];
      if (!o) return undefined;
      const k = `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
      const u = used[k];
      const r = replication[k];
      let hit = rowCache.get(o);
      if (!hit || hit.used !== u || hit.replication !== r) rowCache.set(o, (hit = { row: buildRow(strategy, columns, o, nowDate, used, replication), used: u, replication: r }));
      return hit.row;
    },
    [loaded, used, replication, rowCache, strategy, columns, nowDate],
  );
  return { columns, rowAt };
}

/** Selection: the objects themselves, so actions know their phase and namespace; cleared when the request changes. */
function useSelection(loaded: Loaded, reqKey: string) {
  const [selected, setSelected] = useState<Map<string, KubeObject>>(new Map());
  useEffect(() => setSelected(new Map()), [reqKey]);
  const loadedObjs = loaded.rows.filter((o): o is KubeObject => o !== undefined);
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
    // eslint-disable-next-line react-hooks/exhaustive-deps -- runs when a page loads; loadedObjs is derived from it
  }, [loaded]);
  return { selected, selection, clearSelection: () => setSelected(new Map()), loadedObjs };
}

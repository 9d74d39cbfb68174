'use client';
// The rows of a server-side list: pages fetched as the table scrolls to them, patched
// in place by the live stream, started afresh when the request (filters, sort) changes.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { parseLabelSelector } from '@/server/domain/label-selector';
import { useLiveChanges } from '../data/live';
import { useTRPCClient } from '../data/trpc';
import { compareFor, matchesRequest, type PageRequest } from './list-state';
import { applyChange, emptyLoaded, withPage, type Loaded } from './live-patch';

export const PAGE_SIZE = 100;

export interface PagedList {
  loaded: Loaded;
  /** The first page of this request has arrived. */
  ready: boolean;
  error: unknown;
  /** Asks for the rows in [from, to) (the visible range). */
  ensure(from: number, to: number): void;
  /** Forgets everything and fetches again (after a bulk action or a reconnect). */
  reload(): void;
}

export function usePagedList(req: PageRequest): PagedList {
  const client = useTRPCClient();
  const key = JSON.stringify(req);
  // `stale`: the rows shown belong to an earlier request or epoch; the next page replaces them all.
  const [state, setState] = useState<{ key: string; loaded: Loaded; ready: boolean; stale: boolean; error: unknown; epoch: number }>(() => ({
    key,
    loaded: emptyLoaded(),
    ready: false,
    stale: false,
    error: null,
    epoch: 0,
  }));
  const inflight = useRef(new Set<string>());
  const current = useRef(key);
  current.current = key;

  const fetchPage = useCallback(
    (page: number, forKey: string, epoch: number) => {
      const id = `${forKey}#${epoch}#${page}`;
      if (inflight.current.has(id)) return;
      inflight.current.add(id);
      const request = JSON.parse(forKey) as PageRequest;
      client.lists.page
        .query({ ...request, offset: page * PAGE_SIZE, limit: PAGE_SIZE })
        .then((res) => {
          setState((s) =>
            s.key !== forKey || s.epoch !== epoch
              ? s
              : { ...s, ready: true, stale: false, error: null, loaded: withPage(s.stale ? emptyLoaded() : s.loaded, res.offset, res.items, res.total) },
          );
        })
        .catch((error: unknown) => {
          setState((s) => (s.key !== forKey || s.epoch !== epoch ? s : { ...s, ready: true, error }));
        })
        .finally(() => inflight.current.delete(id));
    },
    [client],
  );

  // A new request: start again from its first page (the old rows stay until it arrives).
  // The first page is asked for at once, not one render later (a sort or a filter waits
  // for it); the effect below then finds it in flight and does not ask again.
  useEffect(() => {
    const s = stateRef.current;
    if (s.key === key) return;
    setState((cur) => (cur.key === key ? cur : { ...cur, key, stale: true, error: null, epoch: cur.epoch + 1 }));
    fetchPage(0, key, s.epoch + 1);
  }, [key, fetchPage]);
  useEffect(() => {
    if (state.key !== key) return;
    fetchPage(0, key, state.epoch);
    // Rows of the previous request are replaced by the first page's answer.
  }, [key, state.key, state.epoch, fetchPage]);

  const lastRange = useRef<[number, number]>([0, PAGE_SIZE]);
  const ensure = useCallback(
    (from: number, to: number) => {
      lastRange.current = [from, to];
      const s = stateRef.current;
      if (!s.ready || s.stale || s.key !== current.current) return;
      const last = Math.min(to, s.loaded.total);
      for (let p = Math.floor(from / PAGE_SIZE); p * PAGE_SIZE < last; p++) {
        let missing = false;
        for (let i = p * PAGE_SIZE; i < Math.min((p + 1) * PAGE_SIZE, last); i++) {
          if (s.loaded.rows[i] === undefined) {
            missing = true;
            break;
          }
        }
        if (missing) fetchPage(p, s.key, s.epoch);
      }
    },
    [fetchPage],
  );
  const stateRef = useRef(state);
  stateRef.current = state;
  // After a fresh start (new request, reload), fetch what is in view again.
  useEffect(() => {
    if (state.ready && !state.stale) ensure(...lastRange.current);
  }, [state.ready, state.stale, state.epoch, ensure]);

  const reload = useCallback(() => {
    setState((s) => ({ ...s, epoch: s.epoch + 1, stale: true }));
  }, []);

  const selector = useMemo(() => (req.labelSelector ? parseLabelSelector(req.labelSelector) : undefined), [req.labelSelector]);
  const compare = useMemo(() => compareFor(req.sort), [req.sort]);
  useLiveChanges((change) => {
    if (change === 'resync') return reload();
    if (change.object.kind !== req.kind) return;
    setState((s) =>
      s.key !== key || !s.ready || s.stale ? s : { ...s, loaded: applyChange(s.loaded, change, (o) => matchesRequest(o, req, selector), compare) },
    );
  });

  // While a new request's first page is on its way, show the old rows (no flash of empty).
  return { loaded: state.loaded, ready: state.ready, error: state.error, ensure, reload };
}

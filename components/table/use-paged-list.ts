'use client';
// The rows of a server-side list: pages fetched as the table scrolls to them, patched
// in place by the live stream, started afresh when the request (filters, sort) changes.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { parseLabelSelector } from '@/server/domain/label-selector';
import { useLiveChanges } from '../data/live';
import { useTRPCClient } from '../data/trpc';
import { compareFor, matchesRequest, type PageRequest } from './list-state';
import { applyChange, emptyLoaded, keyOf, withPage, type Loaded } from './live-patch';
import { usageOf } from '@/server/domain/volume-usage';
import { isKind } from '@/server/resources/of-kind';
import type { KubeObject } from '@/server/resources/types';
import type { UsedBytes } from '../volumes/used-view';
import { withVolumeReplication, type ClaimsReplication } from './claims-replication';

export const PAGE_SIZE = 100;

export interface PagedList {
  loaded: Loaded;
  /** Claims: the used bytes of their volumes, by `namespace/name`, kept current by the live stream. */
  used: Record<string, UsedBytes>;
  /** Claims: their replicated volumes' replication annotations, by `namespace/name`, kept current by the live stream. */
  replication: ClaimsReplication;
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
  const [state, setState] = useState<{ key: string; loaded: Loaded; used: Record<string, UsedBytes>; replication: ClaimsReplication; ready: boolean; stale: boolean; error: unknown; epoch: number }>(() => ({
    key,
    loaded: emptyLoaded(),
    used: {},
    replication: {},
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
              : {
                  ...s,
                  ready: true,
                  stale: false,
                  error: null,
                  loaded: withPage(s.stale ? emptyLoaded() : s.loaded, res.offset, res.items, res.total),
                  used: res.used ? { ...(s.stale ? {} : s.used), ...res.used } : s.used,
                  replication: res.replication ? { ...(s.stale ? {} : s.replication), ...res.replication } : s.replication,
                },
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
  const usedRef = useRef(state.used);
  usedRef.current = state.used;
  const compare = useMemo(() => compareFor(req.sort, (o) => usedBytesOf(usedRef.current, o)), [req.sort]);
  useLiveChanges((change) => {
    if (change === 'resync') return reload();
    // A claim list follows its volumes' usage as the live stream brings it.
    if (req.kind === 'PersistentVolumeClaim' && change.object.kind === 'PersistentVolume') {
      return setState((s) => (s.key !== key || !s.ready || s.stale ? s : withVolumeReplication(withVolumeUsage(s, change.object), change.object)));
    }
    if (change.object.kind !== req.kind) return;
    setState((s) =>
      s.key !== key || !s.ready || s.stale ? s : { ...s, loaded: applyChange(s.loaded, change, (o) => matchesRequest(o, req, selector), compare) },
    );
  });

  // While a new request's first page is on its way, show the old rows (no flash of empty).
  return { loaded: state.loaded, used: state.used, replication: state.replication, ready: state.ready, error: state.error, ensure, reload };
}

function usedBytesOf(used: Record<string, UsedBytes>, o: KubeObject): bigint | undefined {
  const u = used[`${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`];
  return u && /^\d{1,30}$/.test(u.bytes) ? BigInt(u.bytes) : undefined;
}

/** A volume's new usage onto the loaded claim it is bound to (nothing else changes). */
function withVolumeUsage<S extends { used: Record<string, UsedBytes>; loaded: Loaded }>(s: S, pv: KubeObject): S {
  if (!isKind(pv, 'PersistentVolume') || !pv.spec?.claimRef) return s;
  const key = `${pv.spec.claimRef.namespace ?? ''}/${pv.spec.claimRef.name ?? ''}`;
  const u = usageOf(pv);
  const cur = s.used[key];
  if (!u || (cur && cur.bytes === u.bytes.toString() && cur.partial === u.partial)) return s;
  // Only a loaded claim bound to this volume follows it; others arrive with their page.
  const shown = s.loaded.rows.some((r) => r && keyOf(r) === key && isKind(r, 'PersistentVolumeClaim') && r.spec?.volumeName === pv.metadata.name);
  if (!shown) return s;
  return { ...s, used: { ...s.used, [key]: { bytes: u.bytes.toString(), partial: u.partial } } };
}

'use client';
// The live stream: one `objects.watch` subscription for the whole shell. Each change
// goes to the list pages that subscribed (they patch the one row, see
// table/live-patch.ts) and invalidates the cached objects and events of its kind, so
// every page shows it within a moment. The indicator says whether the stream is up.
import { Badge, Tooltip } from '@mantine/core';
import { useQueryClient, type Query } from '@tanstack/react-query';
import { useSubscription } from '@trpc/tanstack-react-query';
import { createContext, useCallback, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import type { KubeObject } from '@/server/resources/types';
import { useTRPC } from './trpc';

export type LiveStatus = 'connecting' | 'live' | 'reconnecting';

const LiveContext = createContext<LiveStatus>('connecting');

/** A change with its object, or `resync` when changes may have been missed (reconnect). */
export type LiveListener = (change: { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: KubeObject } | 'resync') => void;
const ListenersContext = createContext<Set<LiveListener>>(new Set());

/** Calls `listener` with every change the stream brings while the component is mounted. */
export function useLiveChanges(listener: LiveListener): void {
  const listeners = useContext(ListenersContext);
  const ref = useRef(listener);
  ref.current = listener;
  useEffect(() => {
    const l: LiveListener = (c) => ref.current(c);
    listeners.add(l);
    return () => {
      listeners.delete(l);
    };
  }, [listeners]);
}

interface ChangeNotice {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  kind: string;
  namespace?: string | null;
  name: string;
  resourceVersion: string;
  object?: KubeObject;
}

type QueryInput = { kind?: string } | undefined;

/** `kind/namespace/name` of an object the stream said was deleted. */
const keyOf = (kind: string | undefined, namespace: string | null | undefined, name: string | undefined) => `${kind ?? ''}/${namespace ?? ''}/${name ?? ''}`;

/**
 * Queries about one object that only make sense while it exists (its events, a claim's
 * doctor): after it is deleted they would answer 404, so they are not asked again. Its
 * `get` is, and the page then says the object is gone and stops showing them.
 */
function aboutDeleted(path: string[], input: { kind?: string; namespace?: string; name?: string } | undefined, deleted: Set<string>): boolean {
  if (deleted.size === 0 || !input?.name) return false;
  if (path[0] === 'claims' && path[1] === 'doctor') return deleted.has(keyOf('PersistentVolumeClaim', input.namespace, input.name));
  if (path[0] === 'objects' && path[1] === 'events') return deleted.has(keyOf(input.kind, input.namespace, input.name));
  return false;
}

/** Does this cached query show objects of one of `kinds`? */
function touches(q: Query, kinds: Set<string>, everything: boolean, deleted: Set<string> = new Set()): boolean {
  const [path, opts] = q.queryKey as [string[] | undefined, { input?: QueryInput } | undefined];
  if (!Array.isArray(path)) return false;
  if (aboutDeleted(path, opts?.input as { kind?: string; namespace?: string; name?: string } | undefined, deleted)) return false;
  // The home page's counts change with any volume or claim.
  if (path[0] === 'lists' && path[1] === 'health') return everything || kinds.has('PersistentVolume') || kinds.has('PersistentVolumeClaim');
  // A claim page's capacity and fixes depend on volumes, claims, classes and pods.
  if (path[0] === 'claims' && path[1] === 'doctor') return everything || ['PersistentVolume', 'PersistentVolumeClaim', 'StorageClass', 'Pod'].some((k) => kinds.has(k));
  if (path[0] !== 'objects') return false;
  const proc = path[1];
  if (proc !== 'list' && proc !== 'get' && proc !== 'events') return false;
  if (everything) return true;
  // Events about an object change when an Event object does.
  if (proc === 'events') return kinds.has('Event');
  const kind = opts?.input?.kind;
  return kind === undefined || kinds.has(kind);
}

export function LiveUpdates({ children }: { children: ReactNode }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const pending = useRef<Set<string>>(new Set());
  const deleted = useRef<Set<string>>(new Set());
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const everStarted = useRef(false);
  const [listeners] = useState(() => new Set<LiveListener>());

  const flush = useCallback(
    (everything = false) => {
      const kinds = pending.current;
      const gone = deleted.current;
      pending.current = new Set();
      deleted.current = new Set();
      timer.current = null;
      void queryClient.invalidateQueries({ predicate: (q) => touches(q, kinds, everything, gone) });
    },
    [queryClient],
  );

  const onData = useCallback(
    (raw: unknown) => {
      // Tracked events arrive as { id, data }.
      const msg = raw as { id?: string; data?: ChangeNotice } & Partial<ChangeNotice>;
      const notice = (msg.data ?? msg) as ChangeNotice;
      if (!notice?.kind) return;
      if (notice.object) for (const l of listeners) l({ type: notice.type, object: notice.object });
      pending.current.add(notice.kind);
      if (notice.type === 'DELETED') deleted.current.add(keyOf(notice.kind, notice.namespace, notice.name));
      // Coalesce bursts (a controller writing many objects) into one refetch.
      timer.current ??= setTimeout(() => flush(), 80);
    },
    [flush, listeners],
  );

  // When the browser says it is offline the stream is as good as gone (a dead TCP
  // connection may never report an error): drop it, and start a fresh one once online.
  const online = useOnline();

  const sub = useSubscription(
    trpc.objects.watch.subscriptionOptions(undefined, {
      enabled: online,
      onData,
      onStarted: () => {
        // Back after a drop: changes may have been missed, so refetch what is shown.
        if (everStarted.current) {
          flush(true);
          for (const l of listeners) l('resync');
        }
        everStarted.current = true;
      },
    }),
  );

  const { status, reset } = sub;
  useEffect(() => {
    if (status !== 'error') return;
    // The stream ended with an error (the server restarted, or its history expired):
    // start again from now after a pause; onStarted then refetches what is shown.
    const t = setTimeout(() => reset(), 2000);
    return () => clearTimeout(t);
  }, [status, reset]);

  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );

  const live: LiveStatus =
    online && status === 'pending' ? 'live' : !online || everStarted.current || status === 'error' ? 'reconnecting' : 'connecting';
  return (
    <ListenersContext.Provider value={listeners}>
      <LiveContext.Provider value={live}>{children}</LiveContext.Provider>
    </ListenersContext.Provider>
  );
}

function useOnline(): boolean {
  const [online, setOnline] = useState(true);
  useEffect(() => {
    const update = () => setOnline(navigator.onLine);
    update();
    window.addEventListener('online', update);
    window.addEventListener('offline', update);
    return () => {
      window.removeEventListener('online', update);
      window.removeEventListener('offline', update);
    };
  }, []);
  return online;
}

export function useLiveStatus(): LiveStatus {
  return useContext(LiveContext);
}

export function LiveIndicator() {
  const status = useLiveStatus();
  const color = status === 'live' ? 'teal' : status === 'reconnecting' ? 'orange' : 'gray';
  const label = status === 'live' ? 'Live' : status === 'reconnecting' ? 'Reconnecting' : 'Connecting';
  const tip =
    status === 'live'
      ? 'Changes made anywhere appear here as they happen'
      : 'The live stream dropped; reconnecting (pages refresh when it is back)';
  return (
    <Tooltip label={tip}>
      <Badge
        data-testid="live-indicator"
        data-status={status}
        role="status"
        aria-label={`Live updates: ${label}`}
        color={color}
        variant="dot"
        size="md"
        miw="max-content"
      >
        {label}
      </Badge>
    </Tooltip>
  );
}

'use client';
// The live stream: one `objects.watch` subscription for the whole shell. Each change
// goes to the list pages that subscribed (they patch the one row, see
// table/live-patch.ts) and invalidates the cached objects and events of its kind, so
// every page shows it within a moment. The indicator says whether the stream is up.
import { Badge, Tooltip } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useSubscription } from '@trpc/tanstack-react-query';
import { createContext, useCallback, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import type { KubeObject } from '@/server/resources/types';
import { noteGone, touches, type ChangeNotice, type Gone } from './live-invalidation';
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

export function LiveUpdates({ children }: { children: ReactNode }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const pending = useRef<Set<string>>(new Set());
  // Objects the stream said were deleted or are being deleted, across flushes: a later
  // change of another kind must not ask about them either.
  const gone = useRef<Gone>(new Map());
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const everStarted = useRef(false);
  const [listeners] = useState(() => new Set<LiveListener>());

  const flush = useCallback(
    (everything = false) => {
      const kinds = pending.current;
      pending.current = new Set();
      timer.current = null;
      void queryClient.invalidateQueries({ predicate: (q) => touches(q.queryKey, kinds, everything, gone.current) });
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
      noteGone(gone.current, notice);
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

// A watch: the changes after a resourceVersion, in order, from the process's change feed
// (change-feed.ts reads the log and wakes its readers), filtered by kind, namespace and
// the caller's own filter, until the signal aborts or the feed stops.
import { StowageError } from '../domain/errors';
import { compactedRv, expired, headOf, type ChangeEvent, type ChangeFeed } from './change-feed';
import type { SqlClient } from './pg';

export interface WatchOptions {
  /** Kinds to watch (all when empty). */
  kinds?: string[];
  namespace?: string;
  /** Start after this version; absent or "0": from now. */
  resourceVersion?: string;
  /** Extra filter on each event (label/field selectors, authorization). */
  filter?: (e: ChangeEvent) => boolean;
  signal?: AbortSignal;
}

/** Where a watch starts: after the given version, or the settled head; Expired when compacted away. */
async function startOf(sql: SqlClient, rv: string | undefined): Promise<bigint> {
  if (!rv || rv === '0') return headOf(sql);
  if (!/^\d+$/.test(rv)) throw new StowageError('BadRequest', `invalid resource version "${rv}"`);
  const cursor = BigInt(rv);
  const compacted = await compactedRv(sql);
  if (cursor < compacted) throw expired(cursor, compacted);
  return cursor;
}

/**
 * Streams changes after `opts.resourceVersion` in order until the signal aborts.
 * Throws an Expired StowageError when that version has been compacted away.
 */
export async function* watchChanges(feed: ChangeFeed, sql: SqlClient, opts: WatchOptions): AsyncGenerator<ChangeEvent> {
  await feed.start();
  const kinds = opts.kinds && opts.kinds.length > 0 ? new Set(opts.kinds) : undefined;
  let cursor = await startOf(sql, opts.resourceVersion);
  let wake: (() => void) | undefined;
  let pending = true;
  const unsubscribe = feed.onWake(() => {
    pending = true;
    wake?.();
  });
  const onAbort = () => wake?.();
  opts.signal?.addEventListener('abort', onAbort);
  try {
    while (!opts.signal?.aborted && !feed.isStopped) {
      if (!pending) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          if (pending || opts.signal?.aborted) resolve();
        });
        wake = undefined;
        continue;
      }
      pending = false;
      for (;;) {
        const events = await feed.eventsAfter(cursor);
        if (events.length === 0) break;
        for (const e of events) {
          cursor = e.rv;
          if (kinds && !kinds.has(e.kind)) continue;
          if (opts.namespace && e.namespace !== opts.namespace) continue;
          if (opts.filter && !opts.filter(e)) continue;
          yield e;
          if (opts.signal?.aborted) return;
        }
      }
    }
  } finally {
    unsubscribe();
    opts.signal?.removeEventListener('abort', onAbort);
  }
}

// Which of the store's two connection pools a piece of work takes its connections from.
//
// Requests (the API, the agents' calls, the dashboard) and background work (the
// controllers, their cache, compaction) each have a pool of their own: the controllers can
// hold every connection of theirs for minutes (a start-up over a million objects, a burst
// of binds) and a list or a GET still finds one free. Before, they shared one pool of ten,
// and a request waited for the controllers' transactions until it answered 503 ("no
// database connection was free in time"). Work is background when it runs inside
// `inBackground` (and everything it starts: the lane travels with the async context);
// everything else is a request.
import { AsyncLocalStorage } from 'node:async_hooks';

export type Lane = 'requests' | 'background';

const lane = new AsyncLocalStorage<Lane>();

/** Runs `fn`, and all it starts (timers, promises, callbacks), on the background pool. */
export function inBackground<T>(fn: () => T): T {
  return lane.run('background', fn);
}

/** The lane of the current async context. */
export function currentLane(): Lane {
  return lane.getStore() ?? 'requests';
}

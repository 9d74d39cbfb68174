// The one abortable wait, shared by the node agent and the controllers' runtime: a retry or
// polling pause, never synchronisation.

/**
 * Waits `ms`, or less when `signal` aborts (a stop, a poke). Ends without an error either
 * way, and leaves no listener on the signal behind.
 */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted || ms <= 0) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

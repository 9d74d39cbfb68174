// The watch streams of the API benches (bench/api.ts, bench/write-path.ts) as their main
// thread sees them: N HTTPS watches in a worker (api-watchers.mjs) that reports each
// event's resourceVersion and the moment it arrived.
import { Worker } from 'node:worker_threads';

export interface WatchersOptions {
  /** One server, or `urls` to spread the watches over several (round robin). */
  url?: string;
  urls?: string[];
  token: string;
  ca: string;
  watchers: number;
  /** The watch request's path and query. */
  path: string;
}

export interface Watchers {
  /** [resourceVersion, arrival time in ms] of every event reported so far; a bench may empty it. */
  arrivals: [string, number][];
  /** Asks the worker for the arrivals it holds; resolves once they are in `arrivals`. */
  flush(): Promise<void>;
  /** Ends the watches and the worker. */
  stop(): Promise<void>;
}

/** Starts the worker; resolves once every watch is open. */
export async function startWatchers(o: WatchersOptions): Promise<Watchers> {
  const worker = new Worker(new URL('./api-watchers.mjs', import.meta.url), { workerData: o });
  const arrivals: [string, number][] = [];
  let flushed: (() => void) | undefined;
  let workerDone!: () => void;
  const done = new Promise<void>((r) => (workerDone = r));
  await new Promise<void>((resolve, reject) => {
    worker.on('error', reject);
    worker.on('message', (m: { ready?: boolean; arrivals?: (string | number)[]; done?: boolean; flushed?: boolean }) => {
      if (m.ready) resolve();
      for (let i = 0; m.arrivals && i < m.arrivals.length; i += 2) arrivals.push([m.arrivals[i] as string, m.arrivals[i + 1] as number]);
      if (m.done) workerDone();
      if (m.flushed) flushed?.();
    });
  });
  return {
    arrivals,
    flush: () =>
      new Promise<void>((r) => {
        flushed = r;
        worker.postMessage('flush');
      }),
    async stop() {
      worker.postMessage('stop');
      await done;
      await worker.terminate();
    },
  };
}

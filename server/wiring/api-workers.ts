// API worker processes: the Kubernetes-compatible API served by processes beside the main
// one, so that REST requests and watches use a core the controllers and the dashboard (which
// stay in the main process) do not. Design, figures and the options weighed: docs/perf/cores.md.
//
// The main process owns the API's listening socket. It accepts each TCP connection without
// reading from it and hands it, round robin, to a worker that is serving (over the worker's
// IPC channel, as node:cluster does), which does the TLS and the HTTP. While no worker serves
// (all starting, or restarting after a death) the main process serves the connection itself
// with its own API server, so the port never refuses. Each worker is a whole Stowage process
// on the same Postgres with its own pool and change feed, exactly as a `stowage server`
// replica: watches keep their resourceVersion order (docs/write-path.md).
//
// A worker that dies is started again (1 s, doubling while it keeps dying, at most 30 s) with
// a log line; it never takes the main process down. A worker ignores the stop signals (a
// Ctrl-C reaches the whole process group): the main process stops its workers first, then the
// rest; a worker whose main process is gone (its IPC channel closes) stops by itself.
import { fork, type ChildProcess } from 'node:child_process';
import net, { type AddressInfo, type Socket } from 'node:net';
import { z } from 'zod';
import { restartDelayMs, STABLE_AFTER_MS } from '../domain/api-workers';
import { apiServerUrl, type RunningApiServer } from '../kube/api-server';
import { logger } from '../services/logger';

/** What a worker needs to serve as the main process does. */
export interface WorkerInit {
  type: 'init';
  index: number;
  connectionString: string;
  dataDir: string;
  host: string;
  port: number;
  extraNames: string[];
  nodeName: string;
  started: boolean;
  stopping: boolean;
}

/** Messages from a worker to the main process. */
const fromWorker = z.object({ type: z.enum(['hello', 'ready']) });

export interface ApiWorkersOptions {
  count: number;
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** The main process's own API server (not listening): it serves while no worker does. */
  local: RunningApiServer;
  init: Omit<WorkerInit, 'type' | 'index' | 'port' | 'started' | 'stopping'>;
  /** The program a worker runs: this one, with `api-worker` as its command. */
  command: { script: string; args: string[]; execArgv: string[] };
  /** How long the first start of every worker may take. */
  startTimeoutMs?: number;
}

export interface RunningApiWorkers {
  url: string;
  port: number;
  /** Resolves once every worker has served (the start waits for it before /readyz passes), or at once when `stop` aborts. */
  serving(stop?: AbortSignal): Promise<void>;
  markStarted(): void;
  markStopping(): void;
  /** Process ids of the workers running now. */
  pids(): number[];
  /** Stops accepting, stops every worker (SIGKILL after 10 s), then the main process's own API server. */
  close(): Promise<void>;
}

const WORKER_STOP_MS = 10_000;

interface Slot {
  index: number;
  child?: ChildProcess;
  ready: boolean;
  readyAt?: number;
  deathsInARow: number;
  restart?: NodeJS.Timeout;
  everReady: boolean;
}

export async function startApiWorkers(o: ApiWorkersOptions): Promise<RunningApiWorkers> {
  const slots: Slot[] = Array.from({ length: o.count }, (_, index) => ({ index: index + 1, ready: false, deathsInARow: 0, everReady: false }));
  let started = false;
  let stopping = false;
  let closing = false;
  let turn = 0;
  let allServing!: () => void;
  const servingPromise = new Promise<void>((resolve) => (allServing = resolve));

  // noDelay as Node's HTTP servers set it on the sockets they accept: the option belongs to the
  // socket, which a worker gets as it is (with Nagle's algorithm on, a small response waits
  // for the client's delayed ACK: tens of milliseconds per request).
  const acceptor = net.createServer({ pauseOnConnect: true, noDelay: true }, (socket) => handOver(socket));
  acceptor.on('error', (err) => logger.error({ err }, 'the API listener failed'));
  await new Promise<void>((resolve, reject) => {
    acceptor.once('error', reject);
    acceptor.listen(o.port, o.host, () => {
      acceptor.off('error', reject);
      resolve();
    });
  });
  const port = (acceptor.address() as AddressInfo).port;

  /** The next serving worker, round robin; undefined while none serves. */
  function nextWorker(): Slot | undefined {
    for (let i = 0; i < slots.length; i++) {
      const s = slots[turn++ % slots.length];
      if (s.ready && s.child?.connected) return s;
    }
    return undefined;
  }

  function handOver(socket: Socket): void {
    socket.on('error', () => {}); // a reset before anyone reads it is the client's business
    const to = nextWorker();
    if (!to) return o.local.accept(socket);
    to.child!.send({ type: 'conn' }, socket, { keepOpen: false }, (err) => {
      if (!err) return;
      // The worker went away while the connection was on its way: serve it here.
      if (!socket.destroyed) o.local.accept(socket);
    });
  }

  function broadcast(m: object): void {
    for (const s of slots) if (s.child?.connected) s.child.send(m, (err) => err && logger.debug({ err }, 'an API worker did not take a message'));
  }

  function spawn(slot: Slot): void {
    slot.restart = undefined;
    if (closing) return;
    const child = fork(o.command.script, o.command.args, { execArgv: o.command.execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    slot.child = child;
    slot.ready = false;
    child.on('error', (err) => logger.warn({ err, worker: slot.index }, `API worker ${slot.index}: ${err.message}`));
    child.on('message', (raw: unknown) => {
      const m = fromWorker.safeParse(raw);
      if (!m.success) return;
      if (m.data.type === 'hello') {
        const init: WorkerInit = { type: 'init', index: slot.index, ...o.init, port, started, stopping };
        child.send(init);
      } else {
        slot.ready = true;
        slot.readyAt = Date.now();
        if (slot.everReady) logger.warn({ worker: slot.index, pid: child.pid }, `API worker ${slot.index} serves again (pid ${child.pid})`);
        slot.everReady = true;
        if (slots.every((s) => s.everReady)) allServing();
      }
    });
    child.once('exit', (code, signal) => onExit(slot, child, code, signal));
  }

  function onExit(slot: Slot, child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (slot.child !== child) return;
    slot.ready = false;
    slot.child = undefined;
    if (closing) return;
    const lived = slot.readyAt !== undefined ? Date.now() - slot.readyAt : 0;
    slot.deathsInARow = lived >= STABLE_AFTER_MS ? 1 : slot.deathsInARow + 1;
    slot.readyAt = undefined;
    const delay = restartDelayMs(slot.deathsInARow);
    const why = signal ? `killed by ${signal}` : `exit status ${code}`;
    logger.warn({ worker: slot.index, pid: child.pid, code, signal }, `API worker ${slot.index} (pid ${child.pid}) exited (${why}); starting it again in ${delay / 1000} s`);
    slot.restart = setTimeout(() => spawn(slot), delay);
  }

  for (const slot of slots) spawn(slot);

  async function stopWorker(slot: Slot): Promise<void> {
    clearTimeout(slot.restart);
    const child = slot.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    if (child.connected) child.send({ type: 'stop' }, () => {});
    else child.kill('SIGTERM');
    const timer = setTimeout(() => {
      logger.warn({ worker: slot.index, pid: child.pid }, `API worker ${slot.index} did not stop within ${WORKER_STOP_MS / 1000} s; killing it`);
      child.kill('SIGKILL');
    }, WORKER_STOP_MS);
    await exited;
    clearTimeout(timer);
  }

  return {
    url: apiServerUrl(o.host, port),
    port,
    serving: (stop) => {
      const limit = o.startTimeoutMs ?? 120_000;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the API workers did not all serve within ${limit / 1000} s`)), limit);
      });
      // A stop during the start does not wait for workers that may never serve.
      const stopped = new Promise<void>((resolve) => (stop?.aborted ? resolve() : stop?.addEventListener('abort', () => resolve(), { once: true })));
      return Promise.race([servingPromise, timeout, stopped]).finally(() => clearTimeout(timer));
    },
    markStarted: () => {
      started = true;
      broadcast({ type: 'started' });
    },
    markStopping: () => {
      stopping = true;
      broadcast({ type: 'stopping' });
    },
    pids: () => slots.flatMap((s) => (s.child?.pid !== undefined && s.child.exitCode === null ? [s.child.pid] : [])),
    close: async () => {
      closing = true;
      // No new connections; the close ends once the connections served here end, which the
      // local server's close below makes happen (watches never end by themselves).
      const closed = new Promise<void>((resolve) => acceptor.close(() => resolve()));
      await Promise.all([...slots.map(stopWorker), o.local.close()]);
      // (A connection still in its TLS handshake here is not waited for past 2 s.)
      await Promise.race([closed, new Promise((r) => setTimeout(r, 2000).unref())]);
    },
  };
}

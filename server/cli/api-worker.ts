// `stowage api-worker`: one API worker process, started by `stowage start` / `stowage server`
// (server/wiring/api-workers.ts), never by hand. It serves the connections the main process
// hands it with its own app context on the same Postgres, and stops when told or when the
// main process is gone.
import type { Socket } from 'node:net';
import { z } from 'zod';
import { startApiServer } from '../kube/api-server';
import { logger } from '../services/logger';
import type { WorkerInit } from '../wiring/api-workers';
import { createAppContext } from '../wiring/context';

const init = z.object({
  type: z.literal('init'),
  index: z.number().int().min(1),
  connectionString: z.string().min(1),
  dataDir: z.string().min(1),
  host: z.string().min(1),
  port: z.number().int().min(0).max(65535),
  extraNames: z.array(z.string()),
  nodeName: z.string().min(1),
  started: z.boolean(),
  stopping: z.boolean(),
}) satisfies z.ZodType<WorkerInit>;

const control = z.object({ type: z.enum(['conn', 'started', 'stopping', 'stop']) });

const STOP_MS = 10_000;

/** Runs until stopped; `signals`: the stop signals, which a worker leaves to its main process. */
export async function runApiWorker(signals: readonly NodeJS.Signals[]): Promise<void> {
  const send = process.send?.bind(process);
  if (!send) throw new Error('`stowage api-worker` is started by `stowage start` and `stowage server` (STOWAGE_API_WORKERS), not by hand');
  // A Ctrl-C reaches the whole process group: the main process stops its workers first.
  for (const s of signals) process.on(s, () => {});
  // One listener from the start: a `started` sent while this process starts is not lost.
  let initMessage!: (m: unknown) => void;
  const first = new Promise<unknown>((resolve) => (initMessage = resolve));
  const state = { started: false, stopping: false, stop: false };
  const serving: { now?: { accept(socket: Socket): void; health: { markStarted(): void; markStopping(): void }; stop(why: string): void } } = {};
  process.on('message', (raw: unknown, handle: unknown) => {
    if ((raw as { type?: unknown } | null)?.type === 'init') return initMessage(raw);
    const m = control.safeParse(raw);
    if (!m.success) return;
    switch (m.data.type) {
      case 'conn':
        if (handle && serving.now && !state.stop) serving.now.accept(handle as Socket);
        else (handle as Socket | undefined)?.destroy();
        return;
      case 'started':
        state.started = true;
        return serving.now?.health.markStarted();
      case 'stopping':
        state.stopping = true;
        return serving.now?.health.markStopping();
      case 'stop':
        state.stop = true;
        return serving.now?.stop('asked by the main process');
    }
  });
  process.on('disconnect', () => {
    state.stop = true;
    if (serving.now) serving.now.stop('the main process is gone');
    else process.exit(0);
  });
  send({ type: 'hello' });
  const o = init.parse(await first);
  const app = await createAppContext(o.connectionString, {}, o.nodeName, true);
  if (o.started || state.started) app.health.markStarted();
  if (o.stopping || state.stopping) app.health.markStopping();
  const api = await startApiServer({ app, dataDir: o.dataDir, host: o.host, port: o.port, extraNames: o.extraNames, listen: false });
  let stopping = false;
  const stop = (why: string) => {
    if (stopping) return;
    stopping = true;
    logger.debug({ worker: o.index }, `API worker ${o.index}: stopping (${why})`);
    setTimeout(() => process.exit(1), STOP_MS).unref();
    void api
      .close()
      .then(() => app.close())
      .then(
        () => process.exit(0),
        (err: unknown) => {
          logger.warn({ err }, `API worker ${o.index}: error while stopping`);
          process.exit(1);
        },
      );
  };
  serving.now = { accept: api.accept, health: app.health, stop };
  if (state.stop) return stop(process.connected ? 'asked by the main process' : 'the main process is gone');
  send({ type: 'ready' });
}

// How many API worker processes `stowage start` (and `stowage server`) runs beside the main
// one, and how soon a worker that died is started again. Pure; the processes themselves are
// server/wiring/api-workers.ts, the design and its figures docs/perf/cores.md.
import { backoffMs } from './backoff';

/** `auto`, or a count (0: the API is served by the main process, as before workers existed). */
export type ApiWorkersSetting = 'auto' | number;

/** Most workers one can ask for: each is a whole Node process with its own pool and change feed. */
export const MAX_API_WORKERS = 16;

/** `auto` or a whole number from 0 to MAX_API_WORKERS; undefined for anything else. */
export function parseApiWorkers(text: string): ApiWorkersSetting | undefined {
  const t = text.trim();
  if (t === 'auto') return 'auto';
  if (!/^\d{1,2}$/.test(t)) return undefined;
  const n = Number(t);
  return n <= MAX_API_WORKERS ? n : undefined;
}

/**
 * The workers to run on a machine with `cpus` CPUs. `auto`: one from four CPUs up, none
 * below. On two cores Postgres takes most of the core the main process leaves, so a worker
 * adds work (a second change feed, a hop between the API and the controllers) without a free
 * core to run it: measured slower there (docs/perf/cores.md). One, not more, on larger
 * machines: the controllers and Postgres want the other cores; an operator who measured
 * asks for more.
 */
export function apiWorkerCount(setting: ApiWorkersSetting, cpus: number): number {
  if (setting !== 'auto') return setting;
  return cpus >= AUTO_FROM_CPUS ? 1 : 0;
}

/** The fewest CPUs on which `auto` runs a worker. */
export const AUTO_FROM_CPUS = 4;

/** First restart after 1 s, doubling per death in a row, at most 30 s. */
export function restartDelayMs(deathsInARow: number): number {
  return backoffMs(deathsInARow, 1000, 30_000);
}

/** A worker that served this long before dying starts again from the first delay. */
export const STABLE_AFTER_MS = 60_000;

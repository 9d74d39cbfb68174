// A wait that ends early, without an error, when its signal aborts (a stop, a poke).
import { setTimeout as delay } from 'node:timers/promises';

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return delay(ms, undefined, { signal }).then(
    () => undefined,
    () => undefined,
  );
}

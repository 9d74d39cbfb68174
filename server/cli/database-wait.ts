// A start with DATABASE_URL waits while that database cannot be reached (a failover in
// progress, a database starting beside Stowage) instead of exiting at once: it says why,
// tries again with a growing pause, and gives up after DATABASE_WAIT_MS (exit 1, for a
// supervisor to see). A database that answers with an error (a wrong password, a missing
// database) is not waited for.
import { afterFailedTry, DATABASE_WAIT_MS } from '../domain/database-wait';
import { databaseUnavailableReason } from '../domain/database-unavailable';
import { probeDatabase } from '../store/database';

export async function waitForDatabase(url: string, say: (m: string) => void, stopping: () => boolean, waitMs = DATABASE_WAIT_MS): Promise<void> {
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    try {
      await probeDatabase(url);
      if (attempt > 0) say('The database at DATABASE_URL answers.');
      return;
    } catch (e) {
      const why = databaseUnavailableReason(e);
      const next = afterFailedTry({ unavailable: why !== undefined, stopping: stopping(), attempt, elapsedMs: Date.now() - started, waitMs });
      if (!next.retry) {
        if (why) throw new Error(`the database at DATABASE_URL could not be reached within ${Math.round(waitMs / 1000)} s (${why})`, { cause: e });
        throw e;
      }
      say(`The database at DATABASE_URL cannot be reached (${why}); trying again in ${next.delayMs / 1000} s ...`);
      await new Promise((r) => setTimeout(r, next.delayMs));
    }
  }
}

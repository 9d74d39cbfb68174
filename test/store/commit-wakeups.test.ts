// How commits wake those who wait on them. A process's own commits wake its change feed and
// its intent-record waiters at once, not by its own NOTIFY (which it tells apart by its
// connection's backend pid, and ignores); other processes still hear every commit through
// the NOTIFY. Two stores on one database stand for two processes.
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { openTestStore, type TestStore } from '../db';
import pg from 'pg';
import { CommitNotifier } from '../../server/store/commit-notifier';
import type { ChangeEvent } from '../../server/store/change-feed';

let a: TestStore;
let b: TestStore;
beforeAll(async () => {
  a = await openTestStore();
  b = await openTestStore(a.url);
  await a.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'first' } });
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

async function watchInto(t: TestStore, seen: ChangeEvent[], signal: AbortSignal): Promise<void> {
  const from = (await t.store.currentResourceVersion()).toString();
  void (async () => {
    try {
      for await (const e of t.store.watch({ kinds: ['Namespace'], resourceVersion: from, signal })) seen.push(e);
    } catch {
      // stopped
    }
  })();
}

describe('commit wake-ups', () => {
  test("a commit reaches the committing process's watchers and another process's", async () => {
    const stop = new AbortController();
    const mine: ChangeEvent[] = [];
    const theirs: ChangeEvent[] = [];
    await watchInto(a, mine, stop.signal);
    await watchInto(b, theirs, stop.signal);
    await a.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'from-a' } });
    await b.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'from-b' } });
    const names = (l: ChangeEvent[]) => l.map((e) => e.name);
    await vi.waitFor(() => expect(names(mine)).toEqual(['from-a', 'from-b']), { timeout: 10_000 });
    await vi.waitFor(() => expect(names(theirs)).toEqual(['from-a', 'from-b']), { timeout: 10_000 });
    stop.abort();
  });

  test("a notifier knows its own NOTIFY from another's (so a listener can leave its own process's commits to the direct wake-up)", async () => {
    const channel = 'stowage_test_wakeups';
    const listener = new pg.Client({ connectionString: a.url });
    await listener.connect();
    const heard: pg.Notification[] = [];
    listener.on('notification', (m) => heard.push(m));
    await listener.query(`LISTEN ${channel}`);
    const mine = new CommitNotifier(a.url, channel, 5);
    const other = new CommitNotifier(a.url, channel);
    try {
      mine.committed(1n);
      mine.committed(2n); // gathered with the first: one NOTIFY carries both
      await mine.settled();
      other.committed(7n);
      await other.settled();
      await vi.waitFor(() => expect(heard.map((m) => m.payload)).toEqual(['2', '7']), { timeout: 10_000 });
      expect(heard.map((m) => mine.isOwn(m))).toEqual([true, false]);
      expect(heard.map((m) => other.isOwn(m))).toEqual([false, true]);
    } finally {
      await mine.close();
      await other.close();
      await listener.end();
    }
  });
});

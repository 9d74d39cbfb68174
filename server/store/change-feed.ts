// One change feed per store: LISTENs for commits, reads the change log in resourceVersion
// order into a bounded in-memory window (like the apiserver's watch cache) and wakes
// every subscriber. Subscribers older than the window read the log from Postgres;
// subscribers older than the compaction horizon get an Expired error.
//
// Commits run concurrently, so rv N may become visible before rv N-1. The feed therefore
// reads only the log's settled prefix: it delivers rv N once every rv below N has its
// final row. A hole below a visible row is closed with a GAP row (INSERT ... ON CONFLICT
// DO NOTHING): that insert waits for a writer that already wrote the row and has not yet
// committed, and once the GAP row is in, a late writer of that rv fails on the primary key
// and retries with a new rv. So the settled prefix only grows and never changes behind
// the reader: every watcher sees every change once, in rv order. docs/write-path.md has
// the whole argument.
import pg from 'pg';
import { StowageError } from '../domain/errors';
import type { KindName, ObjectOf } from '../resources/kinds';
import type { KubeObject } from '../resources/types';
import type { SqlClient } from './pg';
import { StatisticsKeeper } from './statistics';

export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

interface ChangeBase {
  type: ChangeType;
  rv: bigint;
  namespace: string;
  name: string;
}

/** A change of one kind: its object is that kind's. */
export type ChangeOf<K extends KindName> = ChangeBase & { kind: K; object: ObjectOf<K> };

/**
 * A change of any stored kind: a union keyed on `kind`, so `e.kind === 'Pod'` narrows
 * `e.object` to a Pod without a cast.
 */
export type ChangeEvent = { [K in KindName]: ChangeOf<K> }[KindName];

export const CHANGE_CHANNEL = 'stowage_changes';
const WINDOW = 20_000;
const PAGE = 2_000;
/** The feed's first read after a hole (it grows to PAGE while no hole follows). */
const FIRST_READ = 64;
/** The type of a change-log row that closes a resourceVersion no commit used. */
export const GAP = 'GAP';
/** How long a gap fill may wait for the writer of that rv before trying again later. */
const FILL_LOCK_TIMEOUT = '2s';

interface LogRow {
  rv: bigint;
  type: string;
  kind: string;
  namespace: string;
  name: string;
  /** The object's JSON text (parsed in toEvent). */
  object: string;
}

export class ChangeFeed {
  private window: ChangeEvent[] = [];
  /** The window holds every event in (windowFrom, head]. */
  private windowFrom = 0n;
  private head = 0n;
  private lastPersisted = 0n;
  /** Keeps the planner's statistics up with the store's growth (statistics.ts). */
  private readonly statistics: StatisticsKeeper;
  private listener: pg.Client | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private pumping: Promise<void> | undefined;
  private pumpAgain = false;
  private readonly wakers = new Set<() => void>();
  private started: Promise<void> | undefined;
  private stopped = false;

  /** `isOwn`: a notification this process sent (its feed was woken directly: ownCommit). */
  constructor(
    private readonly db: SqlClient,
    private readonly connectionString: string,
    private readonly isOwn: (m: pg.Notification) => boolean = () => false,
  ) {
    this.statistics = new StatisticsKeeper(db);
  }

  /** Highest resourceVersion this feed has read (every lower one is settled). */
  get currentHead(): bigint {
    return this.head;
  }

  start(): Promise<void> {
    this.started ??= this.doStart();
    return this.started;
  }

  private async doStart(): Promise<void> {
    this.head = (await settle(this.db)).settled;
    this.windowFrom = this.head;
    this.lastPersisted = this.head;
    const client = new pg.Client({ connectionString: this.connectionString });
    client.on('error', () => this.reconnectSoon());
    client.on('notification', (m) => this.heard(m));
    await client.connect();
    await client.query(`LISTEN ${CHANGE_CHANNEL}`);
    this.listener = client;
    // A safety net for lost notifications (e.g. while reconnecting).
    this.pollTimer = setInterval(() => void this.pump(), 1000);
    this.pollTimer.unref();
  }

  private reconnectSoon(): void {
    if (this.stopped) return;
    const old = this.listener;
    this.listener = undefined;
    old?.end().catch(() => {});
    // eslint-disable-next-line @typescript-eslint/no-misused-promises -- the callback catches every error itself (reconnecting again)
    setTimeout(async () => {
      if (this.stopped) return;
      try {
        const client = new pg.Client({ connectionString: this.connectionString });
        client.on('error', () => this.reconnectSoon());
        client.on('notification', (m) => this.heard(m));
        await client.connect();
        await client.query(`LISTEN ${CHANGE_CHANNEL}`);
        this.listener = client;
        void this.pump();
      } catch {
        this.reconnectSoon();
      }
    }, 500).unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    await this.listener?.end().catch(() => {});
    this.listener = undefined;
    for (const wake of this.wakers) wake();
  }

  private heard(m: pg.Notification): void {
    if (!this.isOwn(m)) void this.pump();
  }

  /** This process committed: read the log now (once started), not at its own NOTIFY. */
  ownCommit(): void {
    if (this.listener && !this.stopped) void this.pump();
  }

  /** Reads everything new from the log into the window and wakes subscribers. */
  pump(): Promise<void> {
    if (this.pumping) {
      this.pumpAgain = true;
      return this.pumping;
    }
    this.pumping = (async () => {
      try {
        do {
          this.pumpAgain = false;
          // Reads start small and grow while the log runs on without a hole: right after a
          // hole is closed, the rows beyond the next one would be read only to be read
          // again (under a burst of concurrent commits that made every read a full page).
          let limit = FIRST_READ;
          for (;;) {
            const rows = await readLog(this.db, this.head, limit);
            if (rows.length === 0) break;
            // Only the contiguous run after head is settled; a hole is closed, then re-read.
            let taken = 0;
            for (const r of rows) {
              if (BigInt(r.rv) !== this.head + 1n) break;
              if (r.type !== GAP) this.window.push(toEvent(r));
              this.head = BigInt(r.rv);
              taken++;
            }
            if (this.window.length > WINDOW) {
              const dropped = this.window.splice(0, this.window.length - WINDOW);
              this.windowFrom = dropped[dropped.length - 1].rv;
            }
            if (taken > 0) for (const wake of this.wakers) wake();
            if (taken < rows.length) {
              await fillGaps(this.db, this.head + 1n, BigInt(rows[taken].rv) - 1n);
              limit = FIRST_READ;
              continue;
            }
            if (rows.length < limit) break;
            limit = Math.min(limit * 4, PAGE);
          }
          if (this.head - this.lastPersisted >= 64n) {
            this.lastPersisted = this.head;
            await persistSettled(this.db, this.head);
          }
          this.statistics.tick(this.head);
        } while (this.pumpAgain);
      } catch {
        // The next notification or poll tries again.
      } finally {
        this.pumping = undefined;
      }
    })();
    return this.pumping;
  }

  /** Events with rv > after, at most `limit`, from the window or else from the log. */
  async eventsAfter(after: bigint, limit = PAGE): Promise<ChangeEvent[]> {
    const w = this.window;
    if (after >= this.windowFrom) {
      // Binary search for the first event with rv > after.
      let lo = 0;
      let hi = w.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (w[mid].rv <= after) lo = mid + 1;
        else hi = mid;
      }
      return w.slice(lo, lo + limit);
    }
    if (after >= this.head) return [];
    const compacted = await compactedRv(this.db);
    if (after < compacted) throw expired(after, compacted);
    const rows = await readLog(this.db, after, limit, this.head);
    return rows.map(toEvent);
  }

  /** Registers a callback run whenever new events arrive; returns the unsubscribe. */
  onWake(wake: () => void): () => void {
    this.wakers.add(wake);
    return () => this.wakers.delete(wake);
  }

  /** Started, not stopped, and listening for commits (false while reconnecting). */
  get isLive(): boolean {
    return this.started !== undefined && !this.stopped && this.listener !== undefined;
  }

  get isStopped(): boolean {
    return this.stopped;
  }
}

export function expired(rv: bigint, compacted: bigint): StowageError {
  return new StowageError(
    'Expired',
    `too old resource version: ${rv} (${compacted})`,
  );
}

async function readLog(db: SqlClient, after: bigint, limit: number, upTo?: bigint): Promise<LogRow[]> {
  if (upTo !== undefined) {
    return db.$queryRawUnsafe<LogRow[]>(
      `SELECT rv, type, kind, namespace, name, object::text AS object FROM change_log WHERE rv > $1 AND rv <= $2 AND type <> '${GAP}' ORDER BY rv LIMIT $3`,
      after,
      upTo,
      limit,
    );
  }
  return db.$queryRawUnsafe<LogRow[]>(
    'SELECT rv, type, kind, namespace, name, object::text AS object FROM change_log WHERE rv > $1 ORDER BY rv LIMIT $2',
    after,
    limit,
  );
}

function toEvent(r: LogRow): ChangeEvent {
  // The parse boundary: the log holds what the store wrote, an object of the row's kind
  // (every stored kind is a KindName: its strategy validated it on the way in).
  return {
    type: r.type as ChangeType,
    rv: BigInt(r.rv),
    kind: r.kind,
    namespace: r.namespace,
    name: r.name,
    object: JSON.parse(r.object) as KubeObject,
  } as ChangeEvent;
}

export interface Settled {
  /** Every rv at or below this has its final change-log row. */
  settled: bigint;
  /** The newest change (not a GAP) at or below `settled`, never below the compaction horizon. */
  head: bigint;
}

/**
 * The settled prefix in one statement. The rows after it are found by an index range on
 * change_log's rv that starts at the prefix (a scalar subquery, not a join with `m`: joined,
 * Postgres read every row of the log and filtered them, 9.3 s a list at a million objects).
 */
export const SETTLE_SQL = `WITH m AS (SELECT GREATEST(settled_rv, compacted_rv) AS base, compacted_rv FROM store_meta WHERE id = 1),
       w AS (SELECT c.rv, c.type, c.rv - row_number() OVER (ORDER BY c.rv) AS off
               FROM change_log c WHERE c.rv > (SELECT base FROM m) ORDER BY c.rv LIMIT 50000),
       s AS (SELECT m.base, m.compacted_rv, COALESCE((SELECT max(w.rv) FROM w WHERE w.off = m.base), m.base) AS p,
                    (SELECT min(w.rv) FROM w WHERE w.off > m.base) AS next, (SELECT count(*) = 50000 FROM w) AS full FROM m)
       SELECT s.base, s.compacted_rv AS compacted, s.p, s.next, s.full,
              (SELECT rv FROM change_log WHERE rv <= s.p AND type <> '${GAP}' ORDER BY rv DESC LIMIT 1) AS real
         FROM s`;

/**
 * Settles the change log up to every row committed before the call: closes the holes
 * below the newest visible row (waiting for writers of those rvs to finish) and returns
 * the settled prefix. Lists and watches "from now" start at its `head`.
 */
export async function settle(db: SqlClient): Promise<Settled> {
  for (;;) {
    const rows = await db.$queryRawUnsafe<{ base: bigint; compacted: bigint; p: bigint; next: bigint | null; real: bigint | null; full: boolean }[]>(
      SETTLE_SQL,
    );
    const r = rows[0];
    if (!r) return { settled: 0n, head: 0n };
    const p = BigInt(r.p);
    if (r.next !== null) {
      await fillGaps(db, p + 1n, BigInt(r.next) - 1n);
      continue;
    }
    // Every caller reads the log from the persisted prefix up: keep it close behind.
    if (p - BigInt(r.base) >= 64n || r.full) await persistSettled(db, p);
    if (r.full) continue;
    const real = r.real === null ? 0n : BigInt(r.real);
    const compacted = BigInt(r.compacted);
    return { settled: p, head: real > compacted ? real : compacted };
  }
}

/** The newest settled change: what lists are served as of and watches "from now" start after. */
export async function headOf(db: SqlClient): Promise<bigint> {
  return (await settle(db)).head;
}

/**
 * Closes the holes in [from, to] with GAP rows. A hole whose writer has written its row
 * but not committed waits for that commit (then the insert does nothing); a hole whose
 * writer is gone, rolled back or has not written yet is closed for good.
 */
export async function fillGaps(db: SqlClient, from: bigint, to: bigint): Promise<void> {
  if (to < from) return;
  await db.$executeRawUnsafe(
    `WITH t AS (SELECT set_config('lock_timeout', '${FILL_LOCK_TIMEOUT}', true))
     INSERT INTO change_log (rv, type, kind, namespace, name, object)
     SELECT g, '${GAP}', '', '', '', 'null'::json FROM t, generate_series($1::bigint, $2::bigint) AS g
     ON CONFLICT (rv) DO NOTHING`,
    from,
    to,
  );
}

async function persistSettled(db: SqlClient, settled: bigint): Promise<void> {
  await db.$executeRawUnsafe('UPDATE store_meta SET settled_rv = $1 WHERE id = 1 AND settled_rv < $1', settled);
}

export async function compactedRv(db: SqlClient): Promise<bigint> {
  const rows = await db.$queryRawUnsafe<{ compacted_rv: bigint }[]>(
    'SELECT compacted_rv FROM store_meta WHERE id = 1',
  );
  return BigInt(rows[0]?.compacted_rv ?? 0n);
}

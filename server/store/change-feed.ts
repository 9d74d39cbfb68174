// One change feed per store: LISTENs for commits, reads the change log in resourceVersion
// order into a bounded in-memory window (like the apiserver's watch cache) and wakes
// every subscriber. Subscribers older than the window read the log from Postgres;
// subscribers older than the compaction horizon get an Expired error.
//
// Order is total and gap-free per commit because every write takes its resourceVersion
// while holding one advisory lock until commit (see object-store.ts): once rv N is
// visible, every rv < N that will ever exist is visible too.
import pg from 'pg';
import { StowageError } from '../domain/errors';
import type { KubeObject } from '../resources/types';
import type { SqlClient } from './pg';

export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface ChangeEvent {
  type: ChangeType;
  rv: bigint;
  kind: string;
  namespace: string;
  name: string;
  object: KubeObject;
}

export const CHANGE_CHANNEL = 'stowage_changes';
const WINDOW = 20_000;
const PAGE = 2_000;

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
  private head = 0n;
  private listener: pg.Client | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private pumping: Promise<void> | undefined;
  private pumpAgain = false;
  private readonly wakers = new Set<() => void>();
  private started: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly db: SqlClient,
    private readonly connectionString: string,
  ) {}

  /** Highest resourceVersion this feed has read (all lower ones are in the log or gone). */
  get currentHead(): bigint {
    return this.head;
  }

  start(): Promise<void> {
    this.started ??= this.doStart();
    return this.started;
  }

  private async doStart(): Promise<void> {
    this.head = await headOf(this.db);
    const client = new pg.Client({ connectionString: this.connectionString });
    client.on('error', () => this.reconnectSoon());
    client.on('notification', () => this.pump());
    await client.connect();
    await client.query(`LISTEN ${CHANGE_CHANNEL}`);
    this.listener = client;
    // A safety net for lost notifications (e.g. while reconnecting).
    this.pollTimer = setInterval(() => this.pump(), 1000);
    this.pollTimer.unref();
  }

  private reconnectSoon(): void {
    if (this.stopped) return;
    const old = this.listener;
    this.listener = undefined;
    old?.end().catch(() => {});
    setTimeout(async () => {
      if (this.stopped) return;
      try {
        const client = new pg.Client({ connectionString: this.connectionString });
        client.on('error', () => this.reconnectSoon());
        client.on('notification', () => this.pump());
        await client.connect();
        await client.query(`LISTEN ${CHANGE_CHANNEL}`);
        this.listener = client;
        this.pump();
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
          for (;;) {
            const rows = await readLog(this.db, this.head, PAGE);
            if (rows.length === 0) break;
            for (const r of rows) this.window.push(toEvent(r));
            this.head = rows[rows.length - 1].rv;
            if (this.window.length > WINDOW) this.window.splice(0, this.window.length - WINDOW);
            for (const wake of this.wakers) wake();
            if (rows.length < PAGE) break;
          }
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
    if (w.length > 0 && after >= w[0].rv - 1n) {
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
      'SELECT rv, type, kind, namespace, name, object::text AS object FROM change_log WHERE rv > $1 AND rv <= $2 ORDER BY rv LIMIT $3',
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
  return {
    type: r.type as ChangeType,
    rv: BigInt(r.rv),
    kind: r.kind,
    namespace: r.namespace,
    name: r.name,
    object: JSON.parse(r.object) as KubeObject,
  };
}

export async function headOf(db: SqlClient): Promise<bigint> {
  const rows = await db.$queryRawUnsafe<{ head: bigint | null; compacted: bigint }[]>(
    'SELECT (SELECT max(rv) FROM change_log) AS head, (SELECT compacted_rv FROM store_meta WHERE id = 1) AS compacted',
  );
  const r = rows[0];
  const head = r?.head ?? 0n;
  const comp = r?.compacted ?? 0n;
  return BigInt(head > comp ? head : comp);
}

export async function compactedRv(db: SqlClient): Promise<bigint> {
  const rows = await db.$queryRawUnsafe<{ compacted_rv: bigint }[]>(
    'SELECT compacted_rv FROM store_meta WHERE id = 1',
  );
  return BigInt(rows[0]?.compacted_rv ?? 0n);
}

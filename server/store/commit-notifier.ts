// Tells every change feed, in every process, that commits happened, without making the
// commits wait for one another.
//
// A NOTIFY inside a write's own transaction would: Postgres serialises the commits of
// transactions that have notifications queued (async.c PreCommit_Notify takes a
// database-wide lock before the commit record and holds it until the commit's WAL flush),
// so writers that NOTIFY commit one at a time however many run in parallel: the global
// commit lock again, only hidden. Measured on a 10,000 + 10,000 burst, the store's
// COMMITs spent most of their time waiting on it (pg_stat_activity: Lock / object).
//
// So a write's transaction only appends to the change log, and after it has committed the
// process sends one NOTIFY of its own: at most one in flight per process, each covering
// every commit that came before it. (With synchronous_commit off for it, listeners heard
// it only when the WAL writer next flushed, a claim's bind then took ~100 ms longer; so
// it commits like any other transaction.) The NOTIFY is only a wake-up; what
// a feed delivers and in which order comes from the change log alone (change-feed.ts), and
// a lost NOTIFY (the process died between its commit and the NOTIFY, or the connection
// broke) is covered by the feeds' one-second poll.
//
// This process's own listeners do not wait for the NOTIFY: they are woken directly after
// the commit and ignore the notifications of this notifier's connection (`isOwn`). So the
// NOTIFY only serves other processes, and `delayMs` lets it gather the commits of a few
// milliseconds (under a burst, one NOTIFY per commit was a tenth of all statements).
import pg from 'pg';

/** How long a NOTIFY may wait so that it carries several commits: only other processes wait for it. */
export const OTHERS_DELAY_MS = 10;

export class CommitNotifier {
  private latest: bigint | undefined;
  private sending: Promise<void> | undefined;
  private client: pg.Client | undefined;
  private closed = false;

  constructor(
    private readonly connectionString: string,
    private readonly channel: string,
    private readonly delayMs = 0,
  ) {}

  /** Whether a notification came from this notifier (by its connection's backend pid). */
  isOwn(message: pg.Notification): boolean {
    // The backend pid, from the connection's BackendKeyData (not in pg's types).
    const pid = (this.client as { processID?: number | null } | undefined)?.processID;
    return typeof pid === 'number' && message.processId === pid;
  }

  /** Records a commit that wrote versions up to `rv`; a NOTIFY follows soon. */
  committed(rv: bigint): void {
    if (this.closed) return;
    if (this.latest === undefined || rv > this.latest) this.latest = rv;
    this.sending ??= this.send();
  }

  private async send(): Promise<void> {
    try {
      if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
      while (this.latest !== undefined && !this.closed) {
        const rv = this.latest;
        this.latest = undefined;
        const client = await this.connection();
        await client.query(`SELECT pg_notify($1, $2)`, [this.channel, rv.toString()]);
      }
    } catch {
      // The connection broke: the next commit connects again; the feeds' poll covers this one.
      const broken = this.client;
      this.client = undefined;
      broken?.end().catch(() => {});
    } finally {
      this.sending = undefined;
    }
  }

  private async connection(): Promise<pg.Client> {
    if (this.client) return this.client;
    const client = new pg.Client({ connectionString: this.connectionString });
    client.on('error', () => {
      if (this.client === client) this.client = undefined;
    });
    await client.connect();
    this.client = client;
    return client;
  }

  /** Waits for the NOTIFY in flight, if any. */
  async settled(): Promise<void> {
    while (this.sending) await this.sending;
  }

  async close(): Promise<void> {
    await this.settled();
    this.closed = true;
    await this.client?.end().catch(() => {});
    this.client = undefined;
  }
}

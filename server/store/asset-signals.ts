// A wake-up for whoever waits on intent records (provisioned_assets), across processes:
// a node agent's long-poll for its pool work waits for records of its node to want
// something, and the provisioner waits for the agent to have made a volume. Intent records
// are not objects, so the change log does not carry them; each transition made on the store
// (not inside a caller's transaction) sends a NOTIFY on its own channel after it has
// committed, as the change feed's wake-up does (commit-notifier.ts: never inside the
// writer's transaction, at most one in flight per process, each covering every change
// before it). Subscribers are woken with no payload: they read the records again, so a
// coalesced or lost NOTIFY costs at most the waiter's own fallback timeout.
//
// The same process's subscribers are woken at once, without the round trip (and not again
// by its own NOTIFY, which gathers the changes of OTHERS_DELAY_MS for other processes).
import pg from 'pg';
import { CommitNotifier, OTHERS_DELAY_MS } from './commit-notifier';

export const ASSET_CHANNEL = 'stowage_assets';

export class AssetSignals {
  private readonly notifier: CommitNotifier;
  private readonly subscribers = new Set<() => void>();
  private listener: pg.Client | undefined;
  private connecting: Promise<void> | undefined;
  private seq = 0n;
  private stopped = false;

  constructor(private readonly connectionString: string) {
    this.notifier = new CommitNotifier(connectionString, ASSET_CHANNEL, OTHERS_DELAY_MS);
  }

  /** A record changed and that change has committed: wake every waiter, here and elsewhere. */
  changed(): void {
    if (this.stopped) return;
    this.wakeLocal();
    this.notifier.committed(++this.seq);
  }

  /** Calls `wake` after every change (anywhere); returns the unsubscribe. Listens on first use. */
  subscribe(wake: () => void): () => void {
    this.subscribers.add(wake);
    if (!this.listener && !this.connecting && !this.stopped) this.connecting = this.listen().finally(() => (this.connecting = undefined));
    return () => this.subscribers.delete(wake);
  }

  /** Resolves at the next change, after `timeoutMs`, or when `signal` aborts, whichever is first. */
  next(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        unsubscribe();
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      const unsubscribe = this.subscribe(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  private wakeLocal(): void {
    for (const wake of [...this.subscribers]) {
      try {
        wake();
      } catch {
        // a subscriber's failure is its own
      }
    }
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.connectionString });
    client.on('error', () => this.reconnectSoon(client));
    // This process's own changes woke its subscribers already (changed()).
    client.on('notification', (m) => {
      if (!this.notifier.isOwn(m)) this.wakeLocal();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${ASSET_CHANNEL}`);
      if (this.stopped) {
        await client.end().catch(() => {});
        return;
      }
      this.listener = client;
    } catch {
      await client.end().catch(() => {});
      this.reconnectSoon(client);
    }
  }

  private reconnectSoon(client: pg.Client): void {
    if (this.listener === client) this.listener = undefined;
    client.end().catch(() => {});
    if (this.stopped) return;
    setTimeout(() => {
      if (this.stopped || this.listener || this.connecting) return;
      this.connecting = this.listen().finally(() => (this.connecting = undefined));
      this.wakeLocal(); // changes may have been missed meanwhile
    }, 500).unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.connecting;
    await this.notifier.close();
    await this.listener?.end().catch(() => {});
    this.listener = undefined;
    this.wakeLocal();
    this.subscribers.clear();
  }
}

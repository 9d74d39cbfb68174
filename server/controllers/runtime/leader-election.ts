// Leader election through a Postgres session advisory lock held on a dedicated
// connection: whoever holds the lock leads; Postgres releases it when that session ends.
//
// - A leader that dies (process killed, connection reset) loses the lock at once; a
//   standby polling every `retryPeriodMs` takes over within about that time. A leader
//   that lost its session but lives on waits one lease before competing again.
// - A leader that hangs stops answering: the session is idle, so Postgres ends it after
//   `leaseDurationMs` (idle_session_timeout), and TCP keepalives end it across a network
//   partition. The leader pings its session every `retryPeriodMs` and steps down as soon
//   as a ping fails or takes longer than the lease.
// - Keeping the lock never waits on work (as client-go's leaderelection renews its lease on
//   its own timer): starting and stopping the controllers run beside the loop, which keeps
//   pinging the session meanwhile. A start-up that waits on something slow (an absent
//   node's agent, say) therefore cannot let the session idle out. While a stop is still
//   running, the loop does not compete for the lock again.
// - Being leader is a hint for efficiency, not the safety mechanism: every write the
//   controllers make is guarded by row locks and resourceVersion, so a brief overlap of an
//   old and a new leader cannot corrupt anything.
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { LeaderLockSession } from '../../store/leader-locks';
import { controllerMetrics, type ControllerMetrics } from './metrics';
import { expectedContention } from './errors';

export interface LeaderElectionOptions {
  connectionString: string;
  /** Name of the lock; every process electing a leader for the same work uses the same. */
  lockName: string;
  log: Logger;
  retryPeriodMs?: number;
  leaseDurationMs?: number;
  metrics?: ControllerMetrics;
  /** Runs when this process becomes leader. */
  onStartedLeading(): Promise<void> | void;
  /** Runs when this process stops leading (lost the lock or stopping). */
  onStoppedLeading(): Promise<void> | void;
}

/** The two int4 keys of pg_try_advisory_lock(int, int): a fixed class and the name's hash. */
export function advisoryKeys(lockName: string): [number, number] {
  const h = createHash('sha256').update(lockName).digest();
  return [0x53544f57 /* "STOW" */, h.readInt32BE(0)];
}

export interface LeaderStatus {
  leading: boolean;
  /** Times this process became leader. */
  terms: number;
  /** Times it stopped leading while not stopping (a lost session, a failed start). */
  stepDowns: number;
  /** When the election loop last went round (ms since the epoch). */
  lastTickAt: number;
  /** How long the loop may go without a round while healthy (ms). */
  maxTickGapMs: number;
  stopped: boolean;
}

export class LeaderElector {
  private client: LeaderLockSession | undefined;
  private leading = false;
  private stopped = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private readonly retryPeriodMs: number;
  private readonly leaseDurationMs: number;
  private readonly keys: [number, number];
  private readonly metrics: ControllerMetrics;
  private transition: Promise<void> = Promise.resolve();
  /** Starts and stops of the controllers not finished yet (they run beside the loop). */
  private transitions = 0;
  /** The last start of the controllers failed: the loop gives the lock up. */
  private startFailed = false;
  private terms = 0;
  private stepDowns = 0;
  private lastTickAt = Date.now();

  constructor(private readonly opts: LeaderElectionOptions) {
    this.retryPeriodMs = opts.retryPeriodMs ?? 1000;
    this.leaseDurationMs = opts.leaseDurationMs ?? 10_000;
    this.keys = advisoryKeys(opts.lockName);
    this.metrics = opts.metrics ?? controllerMetrics();
  }

  get isLeader(): boolean {
    return this.leading;
  }

  /**
   * For health checks and tests. A round of the loop takes at most a connect and a query
   * (each bounded by the lease) after a sleep of at most a lease.
   */
  get status(): LeaderStatus {
    return {
      leading: this.leading,
      terms: this.terms,
      stepDowns: this.stepDowns,
      lastTickAt: this.lastTickAt,
      maxTickGapMs: 3 * this.leaseDurationMs + this.retryPeriodMs,
      stopped: this.stopped,
    };
  }

  start(): void {
    this.loop ??= this.run();
  }

  /** Steps down (waiting for onStoppedLeading), releases the lock and closes the session. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
    this.stepDown();
    await this.settled();
    const c = this.client;
    this.client = undefined;
    if (c) {
      await c.unlock(this.keys).catch(() => {});
      await c.end().catch(() => {});
    }
  }

  /** Waits until no start or stop of the controllers is running. */
  private async settled(): Promise<void> {
    while (this.transitions > 0) await this.transition;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(t);
        this.wake = undefined;
        resolve();
      };
      const t = setTimeout(done, ms);
      this.wake = done;
    });
  }

  private connect(): Promise<LeaderLockSession> {
    return LeaderLockSession.open(this.opts.connectionString, this.leaseDurationMs, (err, c) => {
      const expected = expectedContention(err);
      if (expected || this.stopped) this.opts.log.debug(`leader election connection ended: ${expected ?? err.message}`);
      else this.opts.log.warn({ err }, 'leader election connection failed');
      // The lock went with the session: the loop steps down and competes again.
      if (this.client === c) {
        this.client = undefined;
        this.wake?.();
      }
    });
  }

  private async withTimeout<T>(p: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        p,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('leader election query timed out')), this.leaseDurationMs);
        }),
      ]);
    } finally {
      if (timer) clearTimeout(timer);
    }
  }

  /** Ends the session (and with it the lock). */
  private dropSession(): void {
    const c = this.client;
    this.client = undefined;
    c?.end().catch(() => {});
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      this.lastTickAt = Date.now();
      let lost = false;
      try {
        if (this.leading && (!this.client || this.startFailed)) {
          // The session went (and the lock with it), or the controllers could not start.
          lost = true;
          if (this.startFailed) this.dropSession();
          this.stepDown();
        } else if (!this.leading && this.transitions > 0) {
          // A stop still running: no new term until the old controllers are gone.
          if (this.client) await this.withTimeout(this.client.ping());
        } else {
          this.client ??= await this.withTimeout(this.connect());
          const c = this.client;
          if (!this.leading) {
            const ok = await this.withTimeout(c.tryLock(this.keys));
            if (ok && !this.stopped) this.stepUp();
          } else {
            await this.withTimeout(c.ping());
          }
        }
      } catch (err) {
        if (!this.stopped) {
          const expected = expectedContention(err);
          if (expected) this.opts.log.debug(`leader election check ended: ${expected}`);
          else this.opts.log.warn({ err }, 'leader election check failed');
        }
        this.dropSession();
        lost = this.leading;
        this.stepDown();
      }
      // A leader that lost its session leaves the next term to a standby (no flapping).
      if (!this.stopped) await this.sleep(lost ? this.leaseDurationMs : this.retryPeriodMs);
    }
  }

  /** Runs a start or stop of the controllers after those before it, beside the loop. */
  private schedule(fn: () => Promise<void>): void {
    this.transitions++;
    this.transition = this.transition.then(fn).finally(() => {
      this.transitions--;
    });
  }

  private stepUp(): void {
    if (this.leading) return;
    this.leading = true;
    this.startFailed = false;
    this.terms++;
    this.metrics.leader.set({ lock: this.opts.lockName }, 1);
    this.opts.log.info({ lock: this.opts.lockName }, 'became leader');
    this.schedule(async () => {
      if (!this.leading) return;
      try {
        await this.opts.onStartedLeading();
      } catch (err) {
        // The loop gives the lock up and tries again after a lease.
        if (!this.stopped) this.opts.log.warn({ err }, 'starting as leader failed');
        if (this.leading) {
          this.startFailed = true;
          this.wake?.();
        }
      }
    });
  }

  private stepDown(): void {
    if (!this.leading) return;
    this.leading = false;
    if (!this.stopped) {
      this.stepDowns++;
      this.metrics.leaderLost.inc({ lock: this.opts.lockName });
    }
    this.metrics.leader.set({ lock: this.opts.lockName }, 0);
    this.opts.log.info({ lock: this.opts.lockName }, 'stopped leading');
    this.schedule(async () => {
      try {
        await this.opts.onStoppedLeading();
      } catch (err) {
        this.opts.log.error({ err }, 'stopping as leader failed');
      }
    });
  }
}

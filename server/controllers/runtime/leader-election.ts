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

  constructor(private readonly opts: LeaderElectionOptions) {
    this.retryPeriodMs = opts.retryPeriodMs ?? 1000;
    this.leaseDurationMs = opts.leaseDurationMs ?? 10_000;
    this.keys = advisoryKeys(opts.lockName);
    this.metrics = opts.metrics ?? controllerMetrics();
  }

  get isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    this.loop ??= this.run();
  }

  /** Steps down (waiting for onStoppedLeading), releases the lock and closes the session. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
    await this.stepDown();
    const c = this.client;
    this.client = undefined;
    if (c) {
      await c.unlock(this.keys).catch(() => {});
      await c.end().catch(() => {});
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(done, ms);
      const self = this;
      function done() {
        clearTimeout(t);
        self.wake = undefined;
        resolve();
      }
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

  private async run(): Promise<void> {
    while (!this.stopped) {
      let lost = false;
      try {
        if (this.leading && !this.client) {
          lost = true;
          await this.stepDown();
        }
        if (!lost) {
          this.client ??= await this.withTimeout(this.connect());
          const c = this.client;
          if (!this.leading) {
            const ok = await this.withTimeout(c.tryLock(this.keys));
            if (ok && !this.stopped) await this.stepUp();
          } else {
            await this.withTimeout(c.ping());
          }
        }
      } catch (err) {
        if (!this.stopped) {
          const expected = expectedContention(err);
          if (expected) this.opts.log.debug(`leader election check ended: ${expected}`);
          else this.opts.log.warn({ err }, 'leader election check or start failed');
        }
        const c = this.client;
        this.client = undefined;
        c?.end().catch(() => {});
        lost = this.leading;
        await this.stepDown();
      }
      // A leader that lost its session leaves the next term to a standby (no flapping).
      if (!this.stopped) await this.sleep(lost ? this.leaseDurationMs : this.retryPeriodMs);
    }
  }

  private stepUp(): Promise<void> {
    this.transition = this.transition.then(async () => {
      if (this.leading) return;
      this.leading = true;
      this.metrics.leader.set({ lock: this.opts.lockName }, 1);
      this.opts.log.info({ lock: this.opts.lockName }, 'became leader');
      await this.opts.onStartedLeading();
    });
    // A failed start propagates to the loop, which gives the lock up and tries again.
    const t = this.transition;
    this.transition = t.catch(() => {});
    return t;
  }

  private stepDown(): Promise<void> {
    this.transition = this.transition.then(async () => {
      if (!this.leading) return;
      this.leading = false;
      this.metrics.leader.set({ lock: this.opts.lockName }, 0);
      this.opts.log.info({ lock: this.opts.lockName }, 'stopped leading');
      try {
        await this.opts.onStoppedLeading();
      } catch (err) {
        this.opts.log.error({ err }, 'stopping as leader failed');
      }
    });
    return this.transition;
  }
}

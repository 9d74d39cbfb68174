// The sign-in limits at run time: per user name and per client address (in this process's
// memory; each replica counts its own), and a bound on password checks running at once,
// with a short line of waiting sign-ins and a 429 beyond it. The rules are pure
// (domain/sign-in-limits); this holds the state and the clock.
import { StowageError } from '../domain/errors';
import { EMPTY, isIdle, startAttempt, succeeded, waitFor, type KeyState, type SignInLimits } from '../domain/sign-in-limits';

function tooMany(message: string, waitMs: number): StowageError {
  const retryAfterSeconds = Math.max(1, Math.ceil(waitMs / 1000));
  return new StowageError('TooManyRequests', `${message}; try again in ${retryAfterSeconds} s`, { retryAfterSeconds });
}

export interface Attempt {
  /** Call when the password was right: the attempt no longer counts as a failure. */
  succeeded(): void;
}

export class SignInGuard {
  private readonly keys = new Map<string, KeyState>();
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    readonly limits: SignInLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /** Refuses (429) when the name or the address is locked out; else counts the attempt. */
  begin(name: string, address: string | undefined): Attempt {
    const t = this.now();
    const keys: [string, number][] = [[`user:${name.toLowerCase()}`, this.limits.maxFailuresPerUser]];
    if (address) keys.push([`addr:${address}`, this.limits.maxFailuresPerAddress]);
    const wait = Math.max(...keys.map(([k]) => waitFor(this.keys.get(k) ?? EMPTY, t)));
    if (wait > 0) throw tooMany('too many failed sign-ins', wait);
    for (const [k, max] of keys) this.keys.set(k, startAttempt(this.keys.get(k) ?? EMPTY, t, max, this.limits));
    this.forgetIdle(t);
    return {
      succeeded: () => {
        for (const [k] of keys) {
          const s = this.keys.get(k);
          if (s) this.keys.set(k, succeeded(s, t));
        }
      },
    };
  }

  /** Runs a password check when a slot is free; refuses (429) when the line is full. */
  async limit<T>(fn: () => Promise<T>): Promise<T> {
    if (this.running >= this.limits.concurrency) {
      if (this.waiting.length >= this.limits.queue) throw tooMany('too many sign-ins at once', 1000);
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running++;
    }
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }

  private forgetIdle(t: number): void {
    if (this.keys.size < 10_000) return;
    for (const [k, s] of this.keys) if (isIdle(s, t, this.limits.windowMs)) this.keys.delete(k);
  }
}

// The sign-in limits at run time: a backoff per (user name, client address) and a
// ceiling per address that only ends the free failures (domain/sign-in-limits), in this
// process's memory (each replica counts its own), and a bound on password checks running
// at once, with a short line of waiting sign-ins and a 429 beyond it. The rules are pure;
// this holds the state and the clock.
import { StowageError } from '../domain/errors';
import {
  addressAttempt,
  addressSucceeded,
  clientKey,
  freeFailuresFrom,
  NO_FAILURES,
  pairAttempt,
  pairForgotten,
  pairWait,
  type AddressState,
  type PairState,
  type SignInLimits,
} from '../domain/sign-in-limits';

function tooMany(message: string, waitMs: number): StowageError {
  const retryAfterSeconds = Math.max(1, Math.ceil(waitMs / 1000));
  return new StowageError('TooManyRequests', `${message}; try again in ${retryAfterSeconds} s`, { retryAfterSeconds });
}

export interface Attempt {
  /** Call when the password was right: the attempt no longer counts as a failure. */
  succeeded(): void;
}

/** States kept before idle ones are swept (at most once a second). */
const SWEEP_AT = 10_000;
/** Pairs kept at most: beyond, the oldest are forgotten (memory stays bounded under a flood of names). */
const MAX_PAIRS = 200_000;

export class SignInGuard {
  private readonly pairs = new Map<string, PairState>();
  private readonly addresses = new Map<string, AddressState>();
  private lastSweep = 0;
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    readonly limits: SignInLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Refuses (429) while this name must still wait after its failures from this address;
   * else counts the attempt (as a failure until `succeeded`).
   */
  begin(name: string, address: string | undefined): Attempt {
    const t = this.now();
    const addr = address ? clientKey(address) : '';
    const pairKey = `${name.toLowerCase()}\u0000${addr}`;
    const free = freeFailuresFrom(this.addresses.get(addr) ?? [], t, this.limits);
    const wait = pairWait(this.pairs.get(pairKey) ?? NO_FAILURES, t, free, this.limits);
    if (wait > 0) throw tooMany('too many failed sign-ins for this name from this address', wait);
    this.pairs.set(pairKey, pairAttempt(this.pairs.get(pairKey) ?? NO_FAILURES, t, free, this.limits));
    this.addresses.set(addr, addressAttempt(this.addresses.get(addr) ?? [], t, this.limits));
    this.sweep(t);
    return {
      succeeded: () => {
        this.pairs.delete(pairKey);
        const a = this.addresses.get(addr);
        if (a) this.addresses.set(addr, addressSucceeded(a, t));
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

  /** Forgets what no longer limits anyone, once many states are kept. */
  private sweep(t: number): void {
    if (this.pairs.size + this.addresses.size < SWEEP_AT || t - this.lastSweep < 1000) return;
    this.lastSweep = t;
    for (const [k, s] of this.pairs) if (pairForgotten(s, t, 0, this.limits)) this.pairs.delete(k);
    for (const [k, s] of this.addresses) if (s.every((f) => t - f >= this.limits.windowMs)) this.addresses.delete(k);
    for (const k of this.pairs.keys()) {
      if (this.pairs.size <= MAX_PAIRS) break;
      this.pairs.delete(k);
    }
  }
}

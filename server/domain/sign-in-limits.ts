// How many wrong passwords a user name or a client address may send before sign-in is
// refused for a while: failures are counted in a sliding window; reaching the limit locks
// the key out for the lockout time (even the right password is then refused). An attempt
// counts as a failure from the moment it starts, so a burst of parallel attempts cannot
// slip past the limit before the first one is known to be wrong. Pure: no I/O, no clock.

export interface SignInLimits {
  /** Failures of one user name within the window that lock it out. */
  maxFailuresPerUser: number;
  /** Failures from one client address within the window that lock it out. */
  maxFailuresPerAddress: number;
  windowMs: number;
  lockoutMs: number;
  /** Password checks running at once; more wait in line. */
  concurrency: number;
  /** Sign-ins waiting for a check; more are refused at once (429). */
  queue: number;
}

export const DEFAULT_SIGN_IN_LIMITS: SignInLimits = {
  maxFailuresPerUser: 5,
  maxFailuresPerAddress: 20,
  windowMs: 5 * 60_000,
  lockoutMs: 5 * 60_000,
  concurrency: 2,
  queue: 32,
};

export interface KeyState {
  /** Start times of attempts that failed (or are still running) within the window. */
  failures: number[];
  /** Locked out until then (ms since the epoch); 0 when not locked. */
  lockedUntil: number;
}

export const EMPTY: KeyState = { failures: [], lockedUntil: 0 };

/** How long `key` must still wait (ms); 0 when it may try now. */
export function waitFor(s: KeyState, now: number): number {
  return s.lockedUntil > now ? s.lockedUntil - now : 0;
}

/** The state after an attempt starts (counted as a failure until it succeeds). */
export function startAttempt(s: KeyState, now: number, max: number, limits: Pick<SignInLimits, 'windowMs' | 'lockoutMs'>): KeyState {
  const failures = [...s.failures.filter((t) => now - t < limits.windowMs), now];
  const lockedUntil = failures.length >= max ? now + limits.lockoutMs : s.lockedUntil > now ? s.lockedUntil : 0;
  return { failures, lockedUntil };
}

/** The state after the attempt started at `startedAt` succeeded: it no longer counts. */
export function succeeded(s: KeyState, startedAt: number): KeyState {
  const i = s.failures.indexOf(startedAt);
  if (i < 0) return s;
  const failures = [...s.failures.slice(0, i), ...s.failures.slice(i + 1)];
  return { failures, lockedUntil: s.lockedUntil };
}

/** Whether the state can be forgotten (nothing in the window, not locked). */
export function isIdle(s: KeyState, now: number, windowMs: number): boolean {
  return s.lockedUntil <= now && s.failures.every((t) => now - t >= windowMs);
}

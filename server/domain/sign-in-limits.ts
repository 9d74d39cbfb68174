// How wrong passwords slow sign-in, without letting one client lock others out.
//
// - Per (user name, client address): the first `freeFailures` wrong passwords cost
//   nothing; after them each attempt must wait a delay that doubles with every further
//   failure (`firstDelayMs`, 2x, 4x ... up to `maxDelayMs`), counted from the last
//   failure. Within the wait even the right password is refused (429 with Retry-After):
//   whoever guesses user A's password from an address is slowed, and only for user A
//   from that address. A success forgets the pair; so does a quiet `windowMs` after the
//   wait ended.
// - Per client address, a much higher ceiling (`addressCeiling` failures within
//   `windowMs`, across all names): past it, the address only loses its free failures, so
//   every name's first wrong password from it starts that pair's backoff. A name that has
//   not failed from the address still signs in at once: one client guessing many names
//   behind a shared address (a NAT, a proxy) slows itself, never its neighbours.
//
// An attempt counts as a failure from the moment it starts, so a burst of parallel
// attempts cannot slip past the limit before the first one is known to be wrong.
// Pure: no I/O, no clock.

export interface SignInLimits {
  /** Wrong passwords for one name from one address that cost no delay. */
  freeFailures: number;
  /** The delay after the first failure beyond the free ones; it doubles with each further failure. */
  firstDelayMs: number;
  /** The longest delay between two attempts of one name from one address. */
  maxDelayMs: number;
  /** Failures from one address (all names together) past which its free failures end. */
  addressCeiling: number;
  /** How long failures are remembered: the address's window, and a pair's quiet time after its wait. */
  windowMs: number;
  /** Password checks running at once; more wait in line. */
  concurrency: number;
  /** Sign-ins waiting for a check; more are refused at once (429). */
  queue: number;
}

export const DEFAULT_SIGN_IN_LIMITS: SignInLimits = {
  freeFailures: 5,
  firstDelayMs: 1000,
  maxDelayMs: 5 * 60_000,
  addressCeiling: 100,
  windowMs: 15 * 60_000,
  concurrency: 2,
  queue: 32,
};

type Backoff = Pick<SignInLimits, 'firstDelayMs' | 'maxDelayMs' | 'windowMs'>;

/** One name from one address. */
export interface PairState {
  /** Failures (attempts not known to have succeeded) since the pair was last forgotten. */
  failures: number;
  /** When the last of them started (ms since the epoch). */
  lastFailure: number;
}

export const NO_FAILURES: PairState = { failures: 0, lastFailure: 0 };

/** The wait that `failures` failures impose before the next attempt (ms). */
export function backoffMs(failures: number, free: number, limits: Backoff): number {
  if (failures < Math.max(free, 1)) return 0;
  const doublings = failures - Math.max(free, 1);
  // 2 ** 60 and beyond: already far past any cap.
  return Math.min(limits.maxDelayMs, limits.firstDelayMs * 2 ** Math.min(doublings, 60));
}

/** Whether the pair's failures are forgotten: quiet for `windowMs` after its wait ended. */
export function pairForgotten(s: PairState, now: number, free: number, limits: Backoff): boolean {
  return s.failures === 0 || now >= s.lastFailure + backoffMs(s.failures, free, limits) + limits.windowMs;
}

/** How long the pair must still wait (ms); 0 when it may try now. */
export function pairWait(s: PairState, now: number, free: number, limits: Backoff): number {
  if (pairForgotten(s, now, free, limits)) return 0;
  return Math.max(0, s.lastFailure + backoffMs(s.failures, free, limits) - now);
}

/** The pair after an attempt starts (a failure until it is known to have succeeded). */
export function pairAttempt(s: PairState, now: number, free: number, limits: Backoff): PairState {
  const before = pairForgotten(s, now, free, limits) ? 0 : s.failures;
  return { failures: before + 1, lastFailure: now };
}

/** An address: the start times of its failures within the window, newest last. */
export type AddressState = readonly number[];

/** The address's failures still within the window. */
function recent(s: AddressState, now: number, windowMs: number): number[] {
  return s.filter((t) => now - t < windowMs);
}

/** Whether the address is past its ceiling (its free failures are over). */
export function addressOverCeiling(s: AddressState, now: number, limits: Pick<SignInLimits, 'addressCeiling' | 'windowMs'>): boolean {
  return recent(s, now, limits.windowMs).length >= limits.addressCeiling;
}

/** The address after an attempt starts; it keeps no more than the ceiling needs. */
export function addressAttempt(s: AddressState, now: number, limits: Pick<SignInLimits, 'addressCeiling' | 'windowMs'>): AddressState {
  return [...recent(s, now, limits.windowMs), now].slice(-Math.max(1, limits.addressCeiling));
}

/** The address after the attempt started at `startedAt` succeeded: it no longer counts. */
export function addressSucceeded(s: AddressState, startedAt: number): AddressState {
  const i = s.lastIndexOf(startedAt);
  return i < 0 ? s : [...s.slice(0, i), ...s.slice(i + 1)];
}

/** The free failures a pair gets from an address in this state. */
export function freeFailuresFrom(s: AddressState, now: number, limits: Pick<SignInLimits, 'freeFailures' | 'addressCeiling' | 'windowMs'>): number {
  return addressOverCeiling(s, now, limits) ? 0 : limits.freeFailures;
}

/**
 * The client a sign-in is counted for: an IPv4 address as it is (an IPv4-mapped IPv6
 * address as its IPv4), an IPv6 address by its /64 network, since one host holds a whole
 * /64 and could otherwise take a fresh address, and a fresh backoff, for every guess.
 */
export function clientKey(address: string): string {
  const text = address.trim().toLowerCase().replace(/%.*$/, '');
  if (!text.includes(':')) return text;
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(text);
  if (mapped) return mapped[1];
  const halves = text.split('::');
  if (halves.length > 2) return text;
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  const missing = 8 - head.length - tail.length;
  if (missing < 0 || (halves.length === 1 && missing !== 0)) return text;
  const all = [...head, ...Array<string>(missing).fill('0'), ...tail];
  if (!all.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return text;
  return `${all.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

// Scheduled snapshots (SnapshotSchedule, snapshot.stowage.io/v1): the interval grammar, the
// time slots every replica agrees on, and the deterministic name of a slot's snapshot. Pure.
// Slots are aligned to the Unix epoch (a "6h" schedule's slots start at 00:00, 06:00, 12:00
// and 18:00 UTC), so any process that looks at a schedule at any time computes the same slot
// and the same snapshot name: a repeated create fails instead of taking a second snapshot.
import { fnv1a32 } from './local-pv-name';

/** The shortest interval a schedule may have. */
export const MIN_EVERY_MS = 5 * 60_000;
/** The longest: one year. */
export const MAX_EVERY_MS = 366 * 24 * 3_600_000;
export const MIN_KEEP = 1;
export const MAX_KEEP = 100;

/** On a scheduled snapshot: the schedule that made it. */
export const labelSnapshotSchedule = 'snapshot.stowage.io/schedule';
/** On a scheduled snapshot: its slot's start, as `20261126t060000z`. */
export const labelSnapshotSlot = 'snapshot.stowage.io/slot';

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION = /^(?:\d{1,6}(?:s|m|h|d))+$/;

/**
 * An interval such as `6h`, `90m`, `1d12h` in milliseconds, or undefined when it is not one
 * (Go's units s, m, h, plus d for days; whole numbers only).
 */
export function parseEvery(text: string): number | undefined {
  if (!DURATION.test(text)) return undefined;
  let ms = 0;
  for (const m of text.matchAll(/(\d+)([smhd])/g)) ms += Number(m[1]) * UNITS[m[2]];
  return ms;
}

/** Why `every` is refused, or undefined when it is a valid interval. */
export function everyProblem(text: string): string | undefined {
  const ms = parseEvery(text);
  if (ms === undefined) return 'must be a duration such as 30m, 6h or 1d (units s, m, h, d)';
  if (ms < MIN_EVERY_MS) return 'must be at least 5m';
  if (ms > MAX_EVERY_MS) return 'must be at most 366d';
  return undefined;
}

/** The start of the slot holding `now` (ms since the epoch). */
export function slotStart(now: number, everyMs: number): number {
  return Math.floor(now / everyMs) * everyMs;
}

/** A slot's start as a label value and name part: `20261126t060000z`. */
export function slotStamp(startMs: number): string {
  return new Date(startMs).toISOString().replace(/\.\d{3}Z$/, 'z').replace(/[-:]/g, '').toLowerCase();
}

/** The slot start a stamp stands for, or undefined for text that is not a stamp. */
export function stampTime(stamp: string): number | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})t(\d{2})(\d{2})(\d{2})z$/.exec(stamp);
  if (!m) return undefined;
  const t = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]);
  return Number.isNaN(t) ? undefined : t;
}

const MAX_NAME = 253;

/**
 * The name of the snapshot a schedule takes of a claim in a slot: `<schedule>-<claim>-<stamp>`,
 * shortened with a hash of the whole when it would pass 253 characters. The same inputs give
 * the same name on every replica and after every restart.
 */
export function scheduledSnapshotName(schedule: string, claim: string, stamp: string): string {
  const full = `${schedule}-${claim}-${stamp}`;
  if (full.length <= MAX_NAME) return full;
  const hash = fnv1a32(new TextEncoder().encode(`${schedule}\0${claim}`)).toString(16).padStart(8, '0');
  const room = MAX_NAME - schedule.length - stamp.length - hash.length - 3;
  return `${schedule}-${claim.slice(0, room).replace(/[-.]+$/, '')}-${hash}-${stamp}`;
}

// "Claim nearly full": a claim whose volume's used bytes reach a share of its capacity that
// an administrator sets (default 90%) gets one Warning event per crossing, and is listed
// on the home page. The crossing is remembered on the volume (annotation
// stowage.io/nearly-full, written by Stowage), so a usage report that finds the claim still
// past the mark writes nothing; once usage falls below the mark the memory is cleared, and
// the next crossing warns again. Pure.
import { roundedQuantity } from './quantity';

/** The reason of the Warning event on the claim. */
export const reasonVolumeNearlyFull = 'VolumeNearlyFull';

/** The threshold when neither the setting nor STOWAGE_NEARLY_FULL_PERCENT says otherwise. */
export const DEFAULT_NEARLY_FULL_PERCENT = 90;

/** A threshold as given (setting or environment): a whole number of percent, 1 to 100. */
export function parseNearlyFullPercent(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*\d{1,3}\s*$/.test(v) ? Number(v) : NaN;
  return Number.isInteger(n) && n >= 1 && n <= 100 ? n : undefined;
}

export interface NearlyFullInput {
  usedBytes: bigint | undefined;
  capacityBytes: bigint | undefined;
  thresholdPercent: number;
  /** The volume remembers a warning for the current crossing. */
  marked: boolean;
}

export type NearlyFullAction = 'warn' | 'clear' | 'none';

/** Used as a share of capacity reaches the threshold (integer arithmetic, no rounding). */
export function isNearlyFull(usedBytes: bigint, capacityBytes: bigint, thresholdPercent: number): boolean {
  return capacityBytes > 0n && usedBytes * 100n >= BigInt(thresholdPercent) * capacityBytes;
}

/**
 * What to do on a usage report: warn (event, remember) on the way up past the mark; clear
 * the memory once below it; nothing while the state holds. Unknown usage or capacity
 * clears a memory (the volume is no longer measured, or no longer bound).
 */
export function nearlyFullAction(i: NearlyFullInput): NearlyFullAction {
  if (i.usedBytes === undefined || i.capacityBytes === undefined || i.capacityBytes <= 0n) return i.marked ? 'clear' : 'none';
  const full = isNearlyFull(i.usedBytes, i.capacityBytes, i.thresholdPercent);
  if (full && !i.marked) return 'warn';
  if (!full && i.marked) return 'clear';
  return 'none';
}

const size = roundedQuantity;

/** Used as a whole percent of capacity, rounded down (for messages and lists). */
export function usedPercent(usedBytes: bigint, capacityBytes: bigint): number {
  return capacityBytes > 0n ? Number((usedBytes * 100n) / capacityBytes) : 0;
}

/** The event's message: used and capacity as quantities, the share and the threshold. */
export function nearlyFullMessage(usedBytes: bigint, capacityBytes: bigint, thresholdPercent: number): string {
  return `volume is ${usedPercent(usedBytes, capacityBytes)}% full: ${size(usedBytes)} used of ${size(capacityBytes)} (warning at ${thresholdPercent}%); expand the claim or free space`;
}

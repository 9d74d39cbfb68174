// The value of the size control: an amount and a unit, never a bare number. "500" with unit
// Gi is 500Gi; a whole quantity pasted or typed ("10Gi", "1.5Ti", "500M", "2 GiB") is read
// with the domain's quantity parser. Binary units first; decimal ones are offered. Pure.
import { bytesToQuantity, formatQuantity, parseQuantity, quantityToBytes } from '@/server/domain/quantity';

export const BINARY_UNITS = ['Mi', 'Gi', 'Ti'] as const;
export const DECIMAL_UNITS = ['M', 'G', 'T'] as const;
/** The units the size control offers (the units a size is shown in are SIZE_UNITS of ./size). */
export const INPUT_UNITS = [...BINARY_UNITS, ...DECIMAL_UNITS] as const;
export type SizeUnit = (typeof INPUT_UNITS)[number];

export interface SizeValue {
  /** The amount as typed: a plain decimal number ("10", "1.5"); its unit is `unit`. */
  size: string;
  unit: SizeUnit;
}

const UNIT_BYTES: Record<SizeUnit, bigint> = { Mi: 1n << 20n, Gi: 1n << 30n, Ti: 1n << 40n, M: 10n ** 6n, G: 10n ** 9n, T: 10n ** 12n };
const isBinary = (u: SizeUnit) => (BINARY_UNITS as readonly string[]).includes(u);
/** A plain, unsigned decimal number: "10", "1.5", ".5", "2." */
const PLAIN_NUMBER = /^(\d+\.?\d*|\.\d+)$/;
/** Bounds what a person may type: no unit here needs more digits. */
const MAX_AMOUNT_CHARS = 24;

export function isSizeUnit(u: string): u is SizeUnit {
  return (INPUT_UNITS as readonly string[]).includes(u);
}

/** The bytes of a value (a fraction of a byte rounds up, as Kubernetes does); undefined when the amount is not a number. */
export function bytesOfValue(v: SizeValue): bigint | undefined {
  const size = v.size.trim();
  if (!PLAIN_NUMBER.test(size) || size.length > MAX_AMOUNT_CHARS || !isSizeUnit(v.unit)) return undefined;
  const q = parseQuantity(`${size}${v.unit}`);
  return q ? quantityToBytes(q) : undefined;
}

/** The canonical quantity a value asks for ("1.5Gi" -> "1536Mi", "500M" -> "500M"); "" when not a size. */
export function quantityOfValue(v: SizeValue): string {
  const b = bytesOfValue(v);
  return b === undefined ? '' : formatQuantity(bytesToQuantity(b, isBinary(v.unit) ? 'BinarySI' : 'DecimalSI'));
}

/** `bytes / unit` as a decimal with at most `maxDecimals` places, when exact. */
function exactAmount(bytes: bigint, unit: SizeUnit, maxDecimals: number): string | undefined {
  for (let d = 0; d <= maxDecimals; d++) {
    const scaled = bytes * 10n ** BigInt(d);
    if (scaled % UNIT_BYTES[unit] !== 0n) continue;
    const digits = (scaled / UNIT_BYTES[unit]).toString().padStart(d + 1, '0');
    return d === 0 ? digits : `${digits.slice(0, -d)}.${digits.slice(-d)}`;
  }
  return undefined;
}

/**
 * The value that shows `bytes` exactly, in the largest unit whose amount is at least 1 and
 * has at most two decimals; binary units first (decimal first when `decimal`). A size no
 * such unit shows exactly is given in M with up to six decimals (always exact for bytes).
 */
export function valueOfBytes(bytes: bigint, decimal = false): SizeValue {
  if (bytes <= 0n) return { size: '0', unit: decimal ? 'G' : 'Gi' };
  const families: (readonly SizeUnit[])[] = decimal ? [DECIMAL_UNITS, BINARY_UNITS] : [BINARY_UNITS, DECIMAL_UNITS];
  for (const family of families) {
    for (const unit of [...family].reverse()) {
      if (bytes < UNIT_BYTES[unit]) continue;
      const size = exactAmount(bytes, unit, 2);
      if (size !== undefined) return { size, unit };
    }
  }
  return { size: exactAmount(bytes, 'M', 6) ?? '0', unit: 'M' };
}

/** The value of a quantity text ("10Gi", "1536Mi" -> 1.5 Gi, "500M"); undefined when it is not a non-negative size. */
export function valueOfQuantity(text: string | undefined): SizeValue | undefined {
  if (text === undefined) return undefined;
  const q = parseQuantity(text.trim());
  if (!q || q.num < 0n) return undefined;
  return valueOfBytes(quantityToBytes(q), q.format === 'DecimalSI' && /[kMGTPE]$/.test(text.trim()));
}

/** "2 GiB", "2GB", "2 gi" as quantity text ("2Gi", "2G"); anything else as it is, without spaces. */
function asQuantityText(text: string): string {
  const t = text.trim().replace(/\s+/g, '');
  const m = /^(.*?)([kKmMgGtTpPeE])(i?)[bB]?$/.exec(t);
  if (!m || !/\d$/.test(m[1])) return t.replace(/[bB]$/, '');
  // A lone "m" is a milli in a quantity: kept, and refused as a size below.
  if (m[2] === 'm' && !m[3] && !/[bB]$/.test(t)) return t;
  const letter = m[2] === 'k' || m[2] === 'K' ? (m[3] ? 'K' : 'k') : m[2].toUpperCase();
  return `${m[1]}${letter}${m[3] ? 'i' : ''}`;
}

/**
 * What text typed or pasted into the amount means, with `unit` the unit the control shows:
 * a plain number is that many of `unit`; a whole quantity is read as written (its unit kept
 * when the control offers it, else converted). Undefined when it is not a size.
 */
export function readSizeText(text: string, unit: SizeUnit): SizeValue | undefined {
  const t = text.trim();
  if (t.length === 0 || t.length > MAX_AMOUNT_CHARS + 4) return undefined;
  if (PLAIN_NUMBER.test(t)) return { size: t, unit };
  const quantity = asQuantityText(t);
  const q = parseQuantity(quantity);
  if (!q || q.num < 0n || /\dm$/.test(quantity)) return undefined;
  const written = /^(\d+\.?\d*|\.\d+)([A-Za-z]+)$/.exec(quantity);
  if (written && isSizeUnit(written[2])) return { size: written[1], unit: written[2] };
  return valueOfQuantity(quantity);
}

/** Why the value is not a size in [min, max] bytes (in human units), or undefined. */
export function valueProblem(v: SizeValue, opts: { min?: bigint; max?: bigint; human: (b: bigint) => string }): string | undefined {
  const b = bytesOfValue(v);
  if (b === undefined) return v.size.trim() ? `"${v.size.trim()}" is not a number` : 'Enter a size';
  if (b <= 0n) return 'Enter a size above zero';
  if (opts.min !== undefined && b < opts.min) return `At least ${opts.human(opts.min)}`;
  if (opts.max !== undefined && b > opts.max) return `At most ${opts.human(opts.max)}`;
  return undefined;
}

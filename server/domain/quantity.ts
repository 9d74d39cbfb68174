// Resource quantities ("10Gi", "500m", "1e3") with the semantics of Kubernetes'
// k8s.io/apimachinery/pkg/api/resource Quantity: the same grammar, the same rounding
// (non-zero values are rounded up, away from zero, to nano precision), the same cap for
// BinarySI values, and the same canonical String() output. Values are exact (bigint),
// never floating point.

export type QuantityFormat = 'BinarySI' | 'DecimalSI' | 'DecimalExponent';

export interface Quantity {
  /** exact value = num / 10^scale, kept exact with bigint */
  num: bigint;
  /**
   * Decimal places of `num`. `parseQuantity` returns the smallest scale >= 0 for the value,
   * so two parsed quantities with equal values have equal num and scale; other code may
   * build quantities with any scale (even negative).
   */
  scale: number;
  /** The suffix family the value was written in; it picks the output suffix. */
  format: QuantityFormat;
  /**
   * The input text, when upstream would echo it back unchanged (it does so for text that is
   * already canonical, and for a few harmless variants such as "+1Ki" or "1E3"). Set by
   * `parseQuantity` as a NON-enumerable property, so it is invisible to spreads, JSON and
   * deep equality; `formatQuantity` uses it only while it still denotes the same value.
   */
  readonly cached?: string;
}

// ---------------------------------------------------------------------------
// Parsing

const MAX_INT64 = (1n << 63n) - 1n;
const MAX_INT32 = (1n << 31n) - 1n;
const DECIMAL_SUFFIXES: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIXES: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const SUFFIX_CHARS = 'eEinumkKMGTP';
/** Values beyond 10^this are refused rather than expanded (upstream keeps them lazily). */
const MAX_DECIMAL_DIGITS = 1000;

interface Scanned {
  negative: boolean;
  /** sign, digits and point as written, without the suffix */
  numeral: string;
  /** integer digits without leading zeros ("0" when none are left) */
  whole: string;
  fraction: string;
  suffix: string;
}

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';

/** The lenient scanner of upstream parseQuantityString: `[+-]digits[.digits]suffix`. */
function scan(str: string): Scanned | undefined {
  const end = str.length;
  let pos = 0;
  let negative = false;
  if (str[0] === '-') {
    negative = true;
    pos++;
  } else if (str[0] === '+') {
    pos++;
  }
  while (pos < end && str[pos] === '0') pos++;
  if (pos >= end) return { negative, numeral: '0', whole: '0', fraction: '', suffix: '' };

  const wholeStart = pos;
  while (isDigit(str[pos])) pos++;
  const whole = str.slice(wholeStart, pos) || '0';
  let fraction = '';
  if (str[pos] === '.') {
    const fractionStart = ++pos;
    while (isDigit(str[pos])) pos++;
    fraction = str.slice(fractionStart, pos);
  }
  const numeral = str.slice(0, pos);

  const suffixStart = pos;
  while (pos < end && SUFFIX_CHARS.includes(str[pos])) pos++;
  if (str[pos] === '+' || str[pos] === '-') pos++;
  while (isDigit(str[pos])) pos++;
  if (pos < end) return undefined;
  return { negative, numeral, whole, fraction, suffix: str.slice(suffixStart) };
}

interface Suffix {
  base: 2 | 10;
  exponent: number;
  format: QuantityFormat;
}

function interpretSuffix(s: string): Suffix | undefined {
  if (Object.hasOwn(DECIMAL_SUFFIXES, s)) return { base: 10, exponent: DECIMAL_SUFFIXES[s], format: 'DecimalSI' };
  if (Object.hasOwn(BINARY_SUFFIXES, s)) return { base: 2, exponent: BINARY_SUFFIXES[s], format: 'BinarySI' };
  if (s.length > 1 && (s[0] === 'e' || s[0] === 'E') && /^[+-]?[0-9]+$/.test(s.slice(1))) {
    const value = BigInt(s.slice(1));
    // Upstream parses an int64 and then truncates it to int32, so `1e4294967296` reads as 1
    // and `1e999999999999` as a nano; an exponent beyond int32 is refused here instead.
    if (value > MAX_INT32 || value < -MAX_INT32 - 1n) return undefined;
    return { base: 10, exponent: Number(value), format: 'DecimalExponent' };
  }
  return undefined;
}

const pow10Cache: bigint[] = [1n];
function pow10(n: number): bigint {
  if (n < 64) {
    for (let i = pow10Cache.length; i <= n; i++) pow10Cache[i] = pow10Cache[i - 1] * 10n;
    return pow10Cache[n];
  }
  return 10n ** BigInt(n);
}

function decimalDigits(n: bigint): number {
  return (n < 0n ? -n : n).toString().length;
}

/** Smallest scale >= 0 for the same value; undefined when the value is absurdly large. */
function normalize(num: bigint, scale: number, format: QuantityFormat): Quantity | undefined {
  if (num === 0n || scale === 0) return { num, scale: 0, format };
  if (scale < 0) {
    if (decimalDigits(num) - scale > MAX_DECIMAL_DIGITS) return undefined;
    return { num: num * pow10(-scale), scale: 0, format };
  }
  while (scale > 0 && num % 10n === 0n) {
    num /= 10n;
    scale--;
  }
  return { num, scale, format };
}

/** Upstream's parse errors (ErrFormatWrong, ErrSuffix, ErrNumeric), word for word. */
export const quantityErrors = {
  format: "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
  suffix: "unable to parse quantity's suffix",
  numeric: 'unable to parse numeric part of quantity',
} as const;

export type QuantityParse = { ok: true; quantity: Quantity } | { ok: false; error: string };

const failed = (error: string): QuantityParse => ({ ok: false, error });
const parsed = (quantity: Quantity): QuantityParse => ({ ok: true, quantity });

/**
 * Upstream ParseQuantity step by step, with its error for each way to fail. As upstream, a
 * numeral without digits reads as zero (".", "+", "Gi", "e3"), except where upstream's
 * exact path needs a digit ("Pi", "Ei", "e-10": the numeric error). Stowage refuses two
 * things upstream accepts: an exponent beyond int32 (upstream silently truncates it, so
 * "1e4294967296" is 1) and a value of more than 1000 digits.
 */
function parseText(str: string): QuantityParse {
  if (str.length === 0) return failed(quantityErrors.format);
  if (str === '0') return parsed(withCache({ num: 0n, scale: 0, format: 'DecimalSI' }, str));
  const parts = scan(str);
  if (!parts) return failed(quantityErrors.format);
  const suffix = interpretSuffix(parts.suffix);
  if (!suffix) return failed(quantityErrors.suffix);
  const { negative, whole, fraction } = parts;
  const { base, exponent } = suffix;

  // Upstream's int64 fast path: exact, and the only path that may keep the input text.
  let precision: number;
  let scale10 = 0; // the value is digits * multiplier * 10^scale10
  let multiplier = 1n;
  if (base === 10) {
    scale10 = exponent;
    precision = 18 - (whole.length + fraction.length);
  } else if (fraction.length === 0) {
    multiplier = 1n << BigInt(exponent);
    precision = 15 - whole.length - Math.trunc((exponent * 3) / 10) - 1;
  } else {
    precision = -1;
  }
  if (precision >= 0 && scale10 - fraction.length >= -9) {
    scale10 -= fraction.length;
    const shifted = whole + fraction;
    const digits = BigInt(shifted);
    const magnitude = digits * multiplier;
    if (magnitude <= MAX_INT64) {
      const q = normalize(negative ? -magnitude : magnitude, -scale10, suffix.format);
      if (!q) return failed(quantityErrors.numeric);
      const canonical =
        base === 2
          ? (digits & 7n) !== 0n
          : scale10 % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
      return parsed(canonical ? withCache(q, str) : q);
    }
  }

  // The exact path of upstream (inf.Dec): needs at least one digit.
  if (!/[0-9]/.test(parts.numeral)) return failed(quantityErrors.numeric);
  let num = BigInt(whole + fraction);
  let scale = fraction.length;
  if (base === 10) scale -= exponent;
  else num *= 1n << BigInt(exponent);
  if (num !== 0n && scale > 9) {
    // Round up (away from zero) to nano precision, so that asking for some gets some.
    const drop = scale - 9;
    if (drop > decimalDigits(num)) num = 1n;
    else {
      const d = pow10(drop);
      num = num % d === 0n ? num / d : num / d + 1n;
    }
    scale = 9;
  }
  let format = suffix.format;
  if (format === 'BinarySI' && scale >= 0) {
    const one = pow10(scale);
    if (num > MAX_INT64 * one) {
      num = MAX_INT64;
      scale = 0;
    } else if (num > 0n && num < one) {
      format = 'DecimalSI';
    }
  }
  const q = normalize(negative ? -num : num, scale, format);
  return q ? parsed(q) : failed(quantityErrors.numeric);
}

function withCache(q: Quantity, text: string): Quantity {
  Object.defineProperty(q, 'cached', { value: text, enumerable: false });
  return q;
}

/**
 * Parses a quantity as upstream ParseQuantity does (no surrounding whitespace allowed).
 * Numbers are read through their JavaScript text form (`1000` -> "1000" -> DecimalSI), which
 * may differ from the raw JSON text upstream would see (`1e3` in JSON is DecimalExponent there).
 */
export function parseQuantity(input: string | number): Quantity | undefined {
  const r = parseQuantityText(input);
  return r.ok ? r.quantity : undefined;
}

/** parseQuantity with upstream's error text when the input is not a quantity. */
export function parseQuantityText(input: string | number): QuantityParse {
  if (typeof input === 'number') return Number.isFinite(input) ? parseText(String(input)) : failed(quantityErrors.format);
  if (typeof input !== 'string') return failed(quantityErrors.format);
  return parseText(input);
}

/**
 * A quantity as found in decoded JSON (upstream UnmarshalJSON trims surrounding whitespace);
 * with upstream's error text when it does not parse.
 */
export function quantityFromJSONText(value: unknown): QuantityParse {
  if (typeof value === 'string') return parseText(value.trim());
  if (typeof value === 'number') return parseQuantityText(value);
  return failed(quantityErrors.format);
}

export function quantityFromJSON(value: unknown): Quantity | undefined {
  const r = quantityFromJSONText(value);
  return r.ok ? r.quantity : undefined;
}

// ---------------------------------------------------------------------------
// Output

const BINARY_SUFFIX_BY_POWER = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
const DECIMAL_SUFFIX_BY_EXPONENT: Record<number, string> = Object.fromEntries(
  Object.entries(DECIMAL_SUFFIXES).map(([s, e]) => [e, s]),
);

/** The exact integer value, or undefined when there is a fraction. */
function exactInteger(q: Quantity): bigint | undefined {
  if (q.scale <= 0) return q.num * pow10(-q.scale);
  const d = pow10(q.scale);
  return q.num % d === 0n ? q.num / d : undefined;
}

function decimalString(q: Quantity, format: QuantityFormat): string {
  let mantissa = q.num;
  let exponent = -q.scale;
  if (mantissa !== 0n) {
    // Trailing zeros off in one step (dividing by 10 per zero is quadratic on a huge value).
    const text = mantissa.toString();
    const kept = text.replace(/0+$/, '');
    mantissa = BigInt(kept);
    exponent += text.length - kept.length;
  }
  const down = ((exponent % 3) + 3) % 3; // lower the exponent to a multiple of 3
  mantissa *= pow10(down);
  exponent -= down;
  if (format === 'DecimalSI') {
    if (exponent > 18) {
      // Upstream emits the mantissa with no suffix here (a bug); keep the value instead.
      mantissa *= pow10(exponent - 18);
      exponent = 18;
    }
    if (exponent >= -9) return `${mantissa}${DECIMAL_SUFFIX_BY_EXPONENT[exponent]}`;
  }
  return exponent === 0 ? `${mantissa}` : `${mantissa}e${exponent}`;
}

function binaryString(value: bigint): string {
  let mantissa = value;
  let power = 0;
  while (power < 6 && mantissa % 1024n === 0n) {
    mantissa /= 1024n;
    power++;
  }
  return `${mantissa}${BINARY_SUFFIX_BY_POWER[power]}`;
}

/** Canonical text exactly as upstream Quantity.String(). */
export function formatQuantity(q: Quantity): string {
  if (q.cached !== undefined) {
    const r = parseText(q.cached);
    const again = r.ok ? r.quantity : undefined;
    if (again && again.format === q.format && compareQuantities(again, q) === 0) return q.cached;
  }
  if (q.num === 0n) return '0';
  let format: QuantityFormat = q.format;
  if (format === 'BinarySI') {
    const small = compareQuantities(q, bytesToQuantity(-1024n)) > 0 && compareQuantities(q, bytesToQuantity(1024n)) < 0;
    const integer = small ? undefined : exactInteger(q);
    // Values in (-1024, 1024) and fractional values are shown as DecimalSI, never rounded.
    if (integer !== undefined) return binaryString(integer);
    format = 'DecimalSI';
  } else if (format !== 'DecimalSI' && format !== 'DecimalExponent') {
    format = 'DecimalExponent';
  }
  return decimalString(q, format);
}

/** parse + format; undefined when the input is not a quantity. */
export function canonicalQuantity(input: string | number): string | undefined {
  const q = parseQuantity(input);
  return q && formatQuantity(q);
}

// ---------------------------------------------------------------------------
// Arithmetic

/** The integer value rounded up, away from zero (upstream Value(), without int64 overflow). */
export function quantityToBytes(q: Quantity): bigint {
  if (q.scale <= 0) return q.num * pow10(-q.scale);
  const d = pow10(q.scale);
  const whole = q.num / d;
  if (q.num % d === 0n) return whole;
  return q.num > 0n ? whole + 1n : whole - 1n;
}

export function compareQuantities(a: Quantity, b: Quantity): -1 | 0 | 1 {
  const scale = Math.max(a.scale, b.scale);
  const x = a.num * pow10(scale - a.scale);
  const y = b.num * pow10(scale - b.scale);
  return x < y ? -1 : x > y ? 1 : 0;
}

export function bytesToQuantity(bytes: bigint, format: QuantityFormat = 'BinarySI'): Quantity {
  return { num: bytes, scale: 0, format };
}

export function isNegative(q: Quantity): boolean {
  return q.num < 0n;
}

export function isZero(q: Quantity): boolean {
  return q.num === 0n;
}

const MI = 1024n * 1024n;

/** Bytes as a quantity a person reads in a message: from a MiB up, rounded to whole MiB ("973Mi", "1Gi"). */
export function roundedQuantity(bytes: bigint): string {
  return formatQuantity(bytesToQuantity(bytes >= MI ? ((bytes + MI / 2n) / MI) * MI : bytes));
}

// Byte figures of the Capacity page, short ("1.5Gi") and for charts (GiB as a number).

const UNITS: [string, bigint][] = [
  ['Pi', 1n << 50n],
  ['Ti', 1n << 40n],
  ['Gi', 1n << 30n],
  ['Mi', 1n << 20n],
  ['Ki', 1n << 10n],
];

/** Bytes (decimal string) in the largest binary unit that keeps a whole part, one decimal at most. */
export function shortBytes(s: string | null | undefined): string {
  if (s === null || s === undefined) return 'unknown';
  const b = BigInt(s);
  const neg = b < 0n;
  const a = neg ? -b : b;
  const found = UNITS.find(([, n]) => a >= n);
  if (!found) return `${b}`;
  const [u, n] = found;
  const tenths = (a * 10n) / n;
  const text = tenths % 10n === 0n ? `${tenths / 10n}` : `${tenths / 10n}.${tenths % 10n}`;
  return `${neg ? '-' : ''}${text}${u}`;
}

/** Bytes (decimal string) as GiB, for a chart axis. */
export function gibOf(s: string): number {
  return Number((BigInt(s) * 1000n) >> 30n) / 1000;
}

/** Part of a whole as a whole percent, or undefined when the whole is zero. */
export function percentOf(part: string, whole: string): number | undefined {
  const w = BigInt(whole);
  if (w === 0n) return undefined;
  return Number((BigInt(part) * 100n) / w);
}

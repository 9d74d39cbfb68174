// Bytes as people read them: the largest binary unit that keeps the number at least 1, to
// three significant digits ("252 GiB", "1.5 KiB"). The one byte formatter: the dashboard's
// (components/format/size.ts) and the messages the server writes (a provisioner's "not
// enough space") both use it, so the same size reads the same everywhere. Pure.

export const SIZE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'] as const;

/** Three significant digits, trailing zeros dropped: 1.50 -> "1.5", 252.4 -> "252" (whole from 1000 on). */
function digits(n: number): string {
  return n >= 1000 ? String(Math.round(n)) : String(Number(n.toPrecision(3)));
}

export function humanBytes(bytes: bigint): string {
  const sign = bytes < 0n ? '-' : '';
  const abs = bytes < 0n ? -bytes : bytes;
  let u = 0;
  while (u < SIZE_UNITS.length - 1 && abs >= 1n << BigInt(10 * (u + 1))) u++;
  // Exact below a KiB; above, the unit's value as a float is precise enough for 3 digits.
  let n = u === 0 ? Number(abs) : Number((abs * 1000n) >> BigInt(10 * u)) / 1000;
  let text = u === 0 ? String(n) : digits(n);
  // 1023.9 MiB rounds to "1020"; past 999.5 a unit reads better as the next one ("1 GiB").
  if (u > 0 && u < SIZE_UNITS.length - 1 && Number(text) >= 1000) {
    n /= 1024;
    u++;
    text = digits(n);
  }
  return `${sign}${text} ${SIZE_UNITS[u]}`;
}

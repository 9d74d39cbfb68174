// CSV (RFC 4180) for exports: every cell quoted when it must be, and cells that a
// spreadsheet would run as a formula (starting with = + - @, or a tab or carriage return)
// prefixed with a single quote (OWASP "CSV injection"). Pure.

const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(value: unknown): string {
  let s = value === null || value === undefined ? '' : typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (FORMULA_START.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) || s !== s.trim() ? `"${s.replace(/"/g, '""')}"` : s;
}

/** A CSV document: a header line, then one line per row, CRLF line ends. */
export function toCsv(columns: readonly string[], rows: readonly (readonly unknown[])[]): string {
  return [columns, ...rows].map((r) => r.map(csvCell).join(',')).join('\r\n') + '\r\n';
}

// Go-style durations as class parameters and settings write them ("30s", "1m30s", "1.5h",
// "500ms"), as upstream's time.ParseDuration reads them (no sign, no bare number). Pure.
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const WHOLE = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h))+$/;
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;

/** Milliseconds of a duration like "1m30s"; undefined when it is not one (or longer than a year). */
export function parseDuration(text: string): number | undefined {
  if (text.length > 40 || !WHOLE.test(text)) return undefined;
  let ms = 0;
  for (const m of text.matchAll(PART)) ms += Number(m[1]) * UNIT_MS[m[2]];
  return Number.isFinite(ms) && ms <= 366 * 86_400_000 ? Math.round(ms) : undefined;
}

// How a value of a diff reads in the timeline: absent, a short scalar, or compact JSON.
export function formatValue(v: unknown): string {
  if (v === undefined) return '(absent)';
  if (typeof v === 'string') return v;
  const s = JSON.stringify(v);
  return s.length > 400 ? `${s.slice(0, 397)}...` : s;
}

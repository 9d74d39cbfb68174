// metav1.Time on the wire: RFC 3339 in whole seconds, UTC ("2026-11-28T15:36:16Z"), as
// upstream's apimachinery marshals it. Pure.

/** A time as metav1.Time writes it (milliseconds dropped). */
export function metaTime(at: Date | number): string {
  return new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

// JSON merge patch (RFC 7386): objects merge recursively, `null` removes a member, and
// anything else (arrays included) replaces the target value.

export function jsonMergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return structuredClone(patch);
  const base: Record<string, unknown> =
    target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [k, v] of Object.entries(patch as Record<string, unknown>)) {
    if (v === null) delete base[k];
    else base[k] = jsonMergePatch(base[k], v);
  }
  return base;
}

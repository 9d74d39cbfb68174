// JSON merge patch (RFC 7386): objects merge recursively, `null` removes a member, and
// anything else (arrays included) replaces the target value. Keys are data: a patch key
// named `__proto__`, `constructor` or `prototype` reads and writes an own member, never
// the prototype chain.
import { copyMap, getOwn, isPlainMap, setOwn } from '../../domain/own-keys';

export function jsonMergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainMap(patch)) return structuredClone(patch);
  const base = isPlainMap(target) ? copyMap(target) : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete base[k];
    else setOwn(base, k, jsonMergePatch(getOwn(base, k), v));
  }
  return base;
}

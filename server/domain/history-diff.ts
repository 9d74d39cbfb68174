// What changed between two versions of an object: the changed paths with their old and
// new values, for the history timeline's before/after view. Pure.
//
// Paths read like the YAML: `spec.capacity.storage`, `metadata.annotations["a.b/c"]`,
// `spec.accessModes[1]`. metadata.resourceVersion is left out (every write changes it).
// A value absent on one side is `undefined` there.

export interface Change {
  path: string;
  before: unknown;
  after: unknown;
}

const IGNORED = new Set(['metadata.resourceVersion']);
const PLAIN_KEY = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function join(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  if (PLAIN_KEY.test(key)) return path ? `${path}.${key}` : key;
  return `${path}[${JSON.stringify(key)}]`;
}

function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => same(x, b[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

function walk(path: string, a: unknown, b: unknown, out: Change[], depth: number): void {
  if (IGNORED.has(path) || same(a, b)) return;
  if (depth < 32 && isRecord(a) && isRecord(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of [...keys].sort()) walk(join(path, k), a[k], b[k], out, depth + 1);
    return;
  }
  if (depth < 32 && Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    a.forEach((x, i) => walk(join(path, i), x, b[i], out, depth + 1));
    return;
  }
  out.push({ path, before: a, after: b });
}

/** The changed paths from `before` to `after` (either may be undefined: created, deleted). */
export function diffObjects(before: unknown, after: unknown): Change[] {
  const out: Change[] = [];
  walk('', before, after, out, 0);
  return out;
}

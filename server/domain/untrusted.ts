// One inspection of every decoded request body and every object before it is written:
// the limits no value from outside may pass, whatever its kind. Nesting is bounded (the
// patch merges and the validators recurse), strings and keys may not hold NUL (Postgres
// text and jsonb cannot store it), numbers must be finite, and `__proto__` is refused as a
// key (no Kubernetes field, label or annotation key can be named so, and the libraries a
// value passes through treat it as the prototype rather than as data).
//
// The walk is iterative, so a value nested a million deep is refused without recursion.

/** Deepest nesting of maps and lists accepted in a body or an object. */
export const MAX_NESTING_DEPTH = 100;

export interface UntrustedProblem {
  /** Dotted path of the offending value, e.g. `metadata.labels[a]`; '' for the root. */
  path: string;
  message: string;
}

const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function join(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  if (!identifier.test(key)) return `${path}[${JSON.stringify(key)}]`;
  return path === '' ? key : `${path}.${key}`;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** No lone surrogate: Postgres (jsonb, text) and UTF-8 cannot hold one. */
function isWellFormed(s: string): boolean {
  return !LONE_SURROGATE.test(s);
}

export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__']);

/** The first problem of a decoded JSON-like value, or undefined when it may be used. */
export function inspectUntrusted(value: unknown, maxDepth = MAX_NESTING_DEPTH): UntrustedProblem | undefined {
  const stack: { v: unknown; path: string; depth: number }[] = [{ v: value, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { v, path, depth } = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\0')) return { path, message: 'strings may not contain the NUL character (\\u0000)' };
      if (!isWellFormed(v)) return { path, message: 'strings must be valid Unicode (no lone surrogate such as \\ud800)' };
    } else if (typeof v === 'number') {
      if (!Number.isFinite(v)) return { path, message: 'numbers must be finite' };
    } else if (typeof v === 'bigint' || typeof v === 'function' || typeof v === 'symbol') {
      return { path, message: 'only maps, lists, strings, numbers, booleans and null are accepted' };
    } else if (v !== null && typeof v === 'object') {
      if (depth >= maxDepth) return { path, message: `nested deeper than ${maxDepth} levels` };
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null && proto !== Array.prototype) {
        return { path, message: 'only maps, lists, strings, numbers, booleans and null are accepted' };
      }
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) stack.push({ v: v[i], path: join(path, i), depth: depth + 1 });
      } else {
        for (const key of Object.keys(v)) {
          if (key.includes('\0')) return { path, message: 'keys may not contain the NUL character (\\u0000)' };
          if (!isWellFormed(key)) return { path, message: 'keys must be valid Unicode (no lone surrogate such as \\ud800)' };
          if (FORBIDDEN_KEYS.has(key)) return { path: join(path, key), message: `"${key}" may not be used as a key` };
          stack.push({ v: (v as Record<string, unknown>)[key], path: join(path, key), depth: depth + 1 });
        }
      }
    }
  }
  return undefined;
}

/** True when a string from a URL or query (a name, namespace, selector, token) cannot be stored or compared (NUL, lone surrogates). */
export function unstorable(s: string | undefined | null): boolean {
  return typeof s === 'string' && (s.includes('\0') || !isWellFormed(s));
}

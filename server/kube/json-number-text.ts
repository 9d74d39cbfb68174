// A quantity sent as a JSON number is read from the number's own text, as upstream's
// Quantity.UnmarshalJSON parses the raw bytes: `1e3` stays `1e3` (DecimalExponent), where
// JavaScript's JSON.parse would give 1000 and so "1k"; 123456789012345678901234567890 keeps
// every digit. Node 20's JSON.parse shows a reviver no source text, so:
//   1. JSON.parse as always (fast; it also validates the text);
//   2. look for numbers at quantity paths in the result (following only those paths; in a
//      JSON patch, each operation's value under its path). Usually there are none: done;
//   3. else scan the text once, iteratively (no recursion, whatever the nesting), keeping the
//      raw text of the numbers at exactly those places, and put that text there as a string.
// JSON.parse keeps the last of duplicate keys; the scan does too.
import { forEachAtQuantityPath, isMap } from '../resources/quantity-paths';

type Segment = string | number;


/** RFC 6901: "/spec/capacity/storage" -> ["spec", "capacity", "storage"]; undefined when malformed. */
function pointerSegments(pointer: string): string[] | undefined {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) return undefined;
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Where (in the parsed body) numbers sit that are quantities of the object (the keys: the paths as JSON). */
function quantityNumbers(body: unknown): Map<string, Segment[]> {
  const found = new Map<string, Segment[]>();
  const at = (prefix: Segment[]) => (v: unknown, path: string[]) => {
    if (typeof v !== 'number') return;
    const full = [...prefix, ...path];
    found.set(JSON.stringify(full), full);
  };
  if (isMap(body)) forEachAtQuantityPath(body, [], at([]));
  else if (Array.isArray(body)) {
    // A JSON patch: each operation's value lands at its path.
    body.forEach((op, i) => {
      if (!isMap(op) || typeof op.path !== 'string' || !('value' in op)) return;
      const base = pointerSegments(op.path);
      if (base) forEachAtQuantityPath(op.value, base, at([i, 'value']));
    });
  }
  return found;
}

/** The index of the quote that closes the string opening at `start`. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  for (;;) {
    const q = text.indexOf('"', i);
    if (q < 0) return text.length - 1;
    let slashes = 0;
    for (let j = q - 1; text.charCodeAt(j) === 0x5c; j--) slashes++;
    if (slashes % 2 === 0) return q;
    i = q + 1;
  }
}

const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** The raw text of the numbers at `wanted` paths of valid JSON `text` (one pass, iterative). */
export function rawNumberTexts(text: string, wanted: ReadonlySet<string>): Map<string, string> {
  const out = new Map<string, string>();
  const path: Segment[] = [];
  const inObject: boolean[] = [];
  let expectKey = false;
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    switch (c) {
      case ' ':
      case '\t':
      case '\n':
      case '\r':
      case ':':
        i++;
        break;
      case '{':
      case '[':
        inObject.push(c === '{');
        path.push(c === '{' ? '' : 0);
        expectKey = c === '{';
        i++;
        break;
      case '}':
      case ']':
        inObject.pop();
        path.pop();
        expectKey = false;
        i++;
        break;
      case ',':
        if (inObject[inObject.length - 1]) expectKey = true;
        else (path[path.length - 1] as number)++;
        i++;
        break;
      case '"': {
        const end = stringEnd(text, i);
        if (expectKey) {
          const raw = text.slice(i, end + 1);
          path[path.length - 1] = raw.includes('\\') ? (JSON.parse(raw) as string) : raw.slice(1, -1);
          expectKey = false;
        }
        i = end + 1;
        break;
      }
      case 't':
      case 'n':
        i += 4;
        break;
      case 'f':
        i += 5;
        break;
      default: {
        NUMBER.lastIndex = i;
        const m = NUMBER.exec(text);
        if (!m) return out; // not JSON (JSON.parse accepted it first, so never)
        const key = JSON.stringify(path);
        if (wanted.has(key)) out.set(key, m[0]);
        i += m[0].length;
      }
    }
  }
  return out;
}

/**
 * The body JSON.parse gave for `text`, with each quantity sent as a JSON number replaced by
 * that number's text (a string, which the kind's strategy canonicalises as any quantity).
 */
export function keepQuantityNumberText(text: string, body: unknown): unknown {
  const found = quantityNumbers(body);
  if (found.size === 0) return body;
  const raw = rawNumberTexts(text, new Set(found.keys()));
  for (const [key, at] of found) {
    const t = raw.get(key);
    if (t === undefined) continue;
    let parent = body as Record<string | number, unknown>;
    for (const seg of at.slice(0, -1)) parent = parent[seg] as Record<string | number, unknown>;
    // An own property even for a key such as "__proto__", as JSON.parse makes it.
    Object.defineProperty(parent, at[at.length - 1], { value: t, writable: true, enumerable: true, configurable: true });
  }
  return body;
}

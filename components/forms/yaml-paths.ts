// Finds where a field path (as the server names it in validation errors, e.g.
// `spec.capacity.storage`, `spec.accessModes[0]`, `metadata.labels[app.kubernetes.io/name]`)
// sits in the YAML text a person typed, so the editor can mark that line. Pure.
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml';

export type PathSegment = string | number;

/** `a.b[0].c[x.y/z]` -> ['a', 'b', 0, 'c', 'x.y/z']. */
export function parseFieldPath(path: string): PathSegment[] {
  const out: PathSegment[] = [];
  let cur = '';
  for (let i = 0; i < path.length; i++) {
    const ch = path[i];
    if (ch === '.') {
      if (cur) out.push(cur);
      cur = '';
    } else if (ch === '[') {
      if (cur) out.push(cur);
      cur = '';
      const end = path.indexOf(']', i + 1);
      const inner = end === -1 ? path.slice(i + 1) : path.slice(i + 1, end);
      out.push(/^\d+$/.test(inner) ? Number(inner) : inner);
      i = end === -1 ? path.length : end;
    } else {
      cur += ch;
    }
  }
  if (cur) out.push(cur);
  return out;
}

/** Paths upstream's validation names loosely (and the server repeats), to the field they mean. */
const upstreamAliases: Record<string, string> = {
  'spec.resources[storage]': 'spec.resources.requests.storage',
  volumeMode: 'spec.volumeMode',
  nodeAffinity: 'spec.nodeAffinity',
};

/** `metadata.annotations.a.b/c` (upstream's Child() form) -> `metadata.annotations[a.b/c]`. */
function annotationPath(path: string): string | undefined {
  const m = /^metadata\.(annotations|labels)\.(.+)$/.exec(path);
  return m && !m[2].includes('[') ? `metadata.${m[1]}[${m[2]}]` : undefined;
}

export interface PathLocation {
  /** 1-based line of the deepest node of the path found in the text. */
  line: number;
  /** True when the whole path was found; false when only an ancestor was. */
  exact: boolean;
}

/**
 * The line of `path` in `text`, or of its deepest ancestor present (a missing required
 * field marks its parent). Undefined when the text does not parse or nothing matches.
 */
export function locateFieldPath(text: string, path: string): PathLocation | undefined {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc });
  if (doc.errors.length > 0) return undefined;
  const segs = parseFieldPath(upstreamAliases[path] ?? annotationPath(path) ?? path);
  let node: unknown = doc.contents;
  let offset: number | undefined;
  let found = 0;
  for (const seg of segs) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(seg));
      if (!pair) break;
      offset = (pair.key as Node).range?.[0] ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof seg === 'number') {
      const item = node.items[seg] as Node | undefined;
      if (!item) break;
      offset = item.range?.[0] ?? offset;
      node = item;
    } else {
      break;
    }
    found++;
  }
  if (offset === undefined) return undefined;
  return { line: lc.linePos(offset).line, exact: found === segs.length };
}

// JSON patch (RFC 6902) with JSON pointers (RFC 6901): add, remove, replace, move, copy
// and test, applied in order to a copy of the document; all or nothing. Pointers walk own
// members only, so `/metadata/constructor/x` or `/__proto__/x` name keys of the document
// (which may not exist), never a prototype or a built-in.
import { isDeepStrictEqual } from 'node:util';
import { StowageError } from '../../domain/errors';
import { getOwn, hasOwn, isPlainMap, setOwn } from '../../domain/own-keys';

const OPS = ['add', 'remove', 'replace', 'move', 'copy', 'test'] as const;
type Op = (typeof OPS)[number];

interface Operation {
  op: Op;
  path: string[];
  from?: string[];
  value?: unknown;
}

/** A patch that is not a list of well-formed operations (400). */
function malformed(message: string): StowageError {
  return new StowageError('BadRequest', message);
}

/** A well-formed operation that cannot be applied to this document (422). */
function inapplicable(message: string): StowageError {
  return new StowageError('Invalid', `the JSON patch could not be applied: ${message}`);
}

function parsePointer(pointer: unknown, field: string, index: number): string[] {
  if (typeof pointer !== 'string') throw malformed(`operation ${index}: "${field}" must be a string`);
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw malformed(`operation ${index}: "${field}" must be a JSON pointer starting with "/": ${JSON.stringify(pointer)}`);
  return pointer
    .slice(1)
    .split('/')
    .map((s) => {
      if (/~[^01]|~$/.test(s)) throw malformed(`operation ${index}: invalid escape in JSON pointer ${JSON.stringify(pointer)}`);
      return s.replace(/~1/g, '/').replace(/~0/g, '~');
    });
}

/** The operations of a patch body, checked for shape before anything is applied. */
export function parseJsonPatch(body: unknown): Operation[] {
  if (!Array.isArray(body)) throw malformed('a JSON patch must be a JSON array of operations');
  return body.map((raw, i) => {
    if (!isPlainMap(raw)) throw malformed(`operation ${i} is not an object`);
    const op = getOwn(raw, 'op');
    if (!(OPS as readonly unknown[]).includes(op)) throw malformed(`operation ${i}: unsupported "op" ${JSON.stringify(op ?? null)}`);
    const out: Operation = { op: op as Op, path: parsePointer(getOwn(raw, 'path'), 'path', i) };
    if (op === 'move' || op === 'copy') out.from = parsePointer(getOwn(raw, 'from'), 'from', i);
    if (op === 'add' || op === 'replace' || op === 'test') {
      if (!hasOwn(raw, 'value')) throw malformed(`operation ${i}: "${op}" needs a "value"`);
      out.value = raw.value;
    }
    return out;
  });
}

function show(path: string[]): string {
  return path.length === 0 ? '""' : `"/${path.map((s) => s.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}"`;
}

function arrayIndex(list: unknown[], seg: string, path: string[], allowEnd: boolean): number {
  if (allowEnd && seg === '-') return list.length;
  if (!/^(0|[1-9][0-9]*)$/.test(seg)) throw inapplicable(`${show(path)}: "${seg}" is not an index of a list`);
  const i = Number(seg);
  if (i > list.length || (!allowEnd && i === list.length)) throw inapplicable(`${show(path)}: index ${i} is out of range`);
  return i;
}

/** The value at `path`, or an error when any step is missing. */
function getAt(doc: unknown, path: string[]): unknown {
  let cur = doc;
  for (const seg of path) {
    if (Array.isArray(cur)) cur = cur[arrayIndex(cur, seg, path, false)];
    else if (isPlainMap(cur) && hasOwn(cur, seg)) cur = cur[seg];
    else throw inapplicable(`${show(path)} does not exist`);
  }
  return cur;
}

function parentOf(doc: unknown, path: string[]): { parent: Record<string, unknown> | unknown[]; key: string } {
  const parent = getAt(doc, path.slice(0, -1));
  if (!Array.isArray(parent) && !isPlainMap(parent)) throw inapplicable(`the parent of ${show(path)} is not a map or a list`);
  return { parent, key: path[path.length - 1] };
}

function add(doc: unknown, path: string[], value: unknown): unknown {
  if (path.length === 0) return value;
  const { parent, key } = parentOf(doc, path);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, path, true), 0, value);
  else setOwn(parent, key, value);
  return doc;
}

function remove(doc: unknown, path: string[]): { doc: unknown; removed: unknown } {
  if (path.length === 0) return { doc: null, removed: doc };
  const { parent, key } = parentOf(doc, path);
  if (Array.isArray(parent)) {
    const [removed] = parent.splice(arrayIndex(parent, key, path, false), 1);
    return { doc, removed };
  }
  if (!hasOwn(parent, key)) throw inapplicable(`${show(path)} does not exist`);
  const removed = parent[key];
  delete parent[key];
  return { doc, removed };
}

function isPrefix(prefix: string[], path: string[]): boolean {
  return prefix.length < path.length && prefix.every((s, i) => path[i] === s);
}

/** Applies the operations to a copy of `document`; the original is unchanged. */
export function applyJsonPatch(document: unknown, ops: Operation[]): unknown {
  let doc = structuredClone(document);
  for (const o of ops) {
    switch (o.op) {
      case 'add':
        doc = add(doc, o.path, structuredClone(o.value));
        break;
      case 'remove':
        doc = remove(doc, o.path).doc;
        break;
      case 'replace':
        getAt(doc, o.path);
        doc = add(remove(doc, o.path).doc, o.path, structuredClone(o.value));
        break;
      case 'move': {
        if (isPrefix(o.from!, o.path)) throw inapplicable(`cannot move ${show(o.from!)} into its own child ${show(o.path)}`);
        const r = remove(doc, o.from!);
        doc = add(r.doc, o.path, r.removed);
        break;
      }
      case 'copy':
        doc = add(doc, o.path, structuredClone(getAt(doc, o.from!)));
        break;
      case 'test': {
        const actual = getAt(doc, o.path);
        if (!isDeepStrictEqual(actual, o.value)) throw inapplicable(`the value at ${show(o.path)} is not the value tested for`);
        break;
      }
    }
  }
  return doc;
}

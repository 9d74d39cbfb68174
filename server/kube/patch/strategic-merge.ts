// Strategic merge patch, applied as the apiserver applies it (apimachinery
// pkg/util/strategicpatch, StrategicMergeMapPatch with MergeParallelList and
// IgnoreUnmatchedNulls): maps merge, `null` deletes, lists named in the kind's patch
// metadata merge (by merge key for lists of maps), other lists are replaced, and the
// directives `$patch` (replace/delete/merge), `$retainKeys`, `$setElementOrder/<list>` and
// `$deleteFromPrimitiveList/<list>` are obeyed and never stored. Keys are data: every
// lookup and write is of own members, so `__proto__`, `constructor` or `prototype` in a
// patch never reaches a prototype.
import { isDeepStrictEqual } from 'node:util';
import { StowageError } from '../../domain/errors';
import { getOwn, hasOwn, setOwn } from '../../domain/own-keys';
import { fieldMeta, type PatchMeta } from './patch-meta';

type Json = null | boolean | number | string | Json[] | JsonMap;
export type JsonMap = { [key: string]: Json };

const DIRECTIVE = '$patch';
const RETAIN_KEYS = '$retainKeys';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList';
const SET_ELEMENT_ORDER = '$setElementOrder';

function bad(message: string): StowageError {
  return new StowageError('BadRequest', message);
}

function isMap(v: unknown): v is JsonMap {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function typeOf(v: Json): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'list';
  return typeof v === 'object' ? 'map' : typeof v;
}

function isDirectiveKey(k: string): boolean {
  return (
    k === DIRECTIVE ||
    k === RETAIN_KEYS ||
    k.startsWith(`${SET_ELEMENT_ORDER}/`) ||
    k.startsWith(`${DELETE_FROM_PRIMITIVE_LIST}/`)
  );
}

/** Applies `patch` to `original`; neither argument is changed. */
export function strategicMergePatch(original: JsonMap, patch: JsonMap, meta: PatchMeta): JsonMap {
  if (!isMap(patch)) throw bad('a strategic merge patch must be a JSON object');
  const merged = mergeMap(structuredClone(original), structuredClone(patch), meta);
  return removeDirectives(merged) as JsonMap;
}

function otherStrategy(meta: PatchMeta): string {
  const s = meta.strategies ?? [];
  if (s.length > 2) throw bad(`unexpected patch strategy: ${s.join(',')}`);
  const other = s.filter((x) => x !== 'retainKeys');
  if (s.length === 2 && other.length !== 1) throw bad(`unexpected patch strategy: ${s.join(',')}`);
  return other[0] ?? '';
}

function mergeMap(original: JsonMap | undefined, patch: JsonMap, meta: PatchMeta): JsonMap {
  if (hasOwn(patch, DIRECTIVE)) {
    const d = patch[DIRECTIVE];
    if (d === 'replace') {
      delete patch[DIRECTIVE];
      return patch;
    }
    if (d === 'delete') return {};
    throw bad(`Unknown patch type: ${JSON.stringify(d)} in map: ${JSON.stringify(patch)}`);
  }
  const out = original ?? {};
  applyRetainKeys(out, patch);
  applySetElementOrder(out, patch, meta);
  for (const [key, patchV] of Object.entries(patch)) {
    let k = key;
    let isDeleteList = false;
    if (key.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
      k = keyAfter(key, DELETE_FROM_PRIMITIVE_LIST);
      isDeleteList = true;
    }
    if (patchV === null) {
      delete out[k];
      continue;
    }
    if (!hasOwn(out, k) || typeOf(out[k]) !== typeOf(patchV)) {
      if (!isDeleteList) setWithoutDirectives(out, k, patchV);
      continue;
    }
    const originalV = out[k];
    const fm = fieldMeta(meta, k);
    if (isMap(originalV)) {
      setOwn(out, k, otherStrategy(fm) === 'replace' ? (patchV) : mergeMap(originalV, patchV as JsonMap, fm));
    } else if (Array.isArray(originalV)) {
      setOwn(out, k, mergeListHandler(originalV, patchV as Json[], fm, isDeleteList));
    } else {
      setWithoutDirectives(out, k, patchV);
    }
  }
  return out;
}

function setWithoutDirectives(target: JsonMap, k: string, v: Json): void {
  discardNulls(v);
  const [value, keep] = stripDirectives(v);
  if (keep) setOwn(target, k, value);
  else delete target[k];
}

function keyAfter(key: string, prefix: string): string {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix) {
    throw bad(
      prefix === DELETE_FROM_PRIMITIVE_LIST
        ? 'invalid patch format of primitive list'
        : 'invalid patch format of setElementOrder list',
    );
  }
  return key.slice(slash + 1);
}

function applyRetainKeys(original: JsonMap, patch: JsonMap): void {
  if (!hasOwn(patch, RETAIN_KEYS)) return;
  const list = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(list)) throw bad('invalid patch format of retainKeys');
  const keep = new Set(list);
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || isDirectiveKey(k)) continue;
    if (!keep.has(k)) throw bad('invalid patch format of retainKeys');
  }
  for (const k of Object.keys(original)) if (!keep.has(k)) delete original[k];
}

function mergeListHandler(original: Json[], patch: Json[], meta: PatchMeta, isDeleteList: boolean): Json[] {
  if (otherStrategy(meta) === 'merge' || isDeleteList) return mergeList(original, patch, meta, isDeleteList);
  return patch;
}

function elementKind(...lists: Json[][]): string | undefined {
  let kind: string | undefined;
  for (const l of lists) {
    for (const v of l) {
      const t = typeOf(v);
      if (t === 'list') throw new StowageError('Invalid', 'lists of lists are not supported');
      if (kind === undefined) kind = t;
      else if (kind !== t) throw bad(`list element types are not identical: ${JSON.stringify(lists)}`);
    }
  }
  return kind;
}

function same(a: Json | undefined, b: Json | undefined): boolean {
  if (a === null || typeof a !== 'object') return a === b;
  return isDeepStrictEqual(a, b);
}

/** The identity of an element: the merge key's value for maps, the element itself otherwise. */
function identity(v: Json, mergeKey: string | undefined): Json | undefined {
  return mergeKey && isMap(v) ? getOwn<Json>(v, mergeKey) : v;
}

function indexIn(list: Json[], v: Json, mergeKey: string | undefined): number {
  const id = identity(v, mergeKey);
  return list.findIndex((x) => same(identity(x, mergeKey), id));
}

function mergeList(original: Json[], patch: Json[], meta: PatchMeta, isDeleteList: boolean): Json[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = elementKind(original, patch);
  const mergeKey = meta.mergeKey;
  let merged: Json[];
  let patchOrder = patch;
  let serverOrder = original;
  if (kind !== 'map') {
    if (isDeleteList) return original.filter((v) => !patch.some((d) => same(d, v)));
    merged = dedupe([...original, ...patch]);
  } else {
    if (!mergeKey) throw bad('cannot merge lists without merge key');
    const special = splitSpecialElements(original, patch, mergeKey);
    patchOrder = special.patch;
    serverOrder = special.original;
    merged = mergeMapsByKey(special.original, special.patch, mergeKey, meta);
  }
  const key = kind === 'map' ? mergeKey : undefined;
  const inPatch = merged.filter((v) => indexIn(patchOrder, v, key) >= 0);
  const serverOnly = merged.filter((v) => indexIn(patchOrder, v, key) < 0);
  return normalizeOrder(inPatch, serverOnly, patchOrder, serverOrder, key);
}

function dedupe(list: Json[]): Json[] {
  const out: Json[] = [];
  for (const v of list) if (!out.some((x) => same(x, v))) out.push(v);
  return out;
}

/** `$patch: delete` elements delete by merge key; `$patch: replace` replaces the whole list. */
function splitSpecialElements(original: Json[], patch: Json[], mergeKey: string): { original: Json[]; patch: Json[] } {
  let orig = original;
  const plain: Json[] = [];
  let replace = false;
  for (const v of patch) {
    const m = v as JsonMap;
    if (!hasOwn(m, DIRECTIVE)) {
      plain.push(v);
      continue;
    }
    const d = m[DIRECTIVE];
    if (d === 'delete') {
      if (!hasOwn(m, mergeKey)) throw bad(`map: ${JSON.stringify(m)} does not contain declared merge key: ${mergeKey}`);
      orig = orig.filter((x) => !(isMap(x) && same(getOwn<Json>(x, mergeKey), m[mergeKey])));
    } else if (d === 'replace') {
      replace = true;
    } else if (d === 'merge') {
      throw bad('merging lists cannot yet be specified in the patch');
    } else {
      throw bad(`Unknown patch type: ${JSON.stringify(d)} in map: ${JSON.stringify(m)}`);
    }
  }
  return replace ? { original: plain, patch: [] } : { original: orig, patch: plain };
}

function mergeMapsByKey(original: Json[], patch: Json[], mergeKey: string, meta: PatchMeta): Json[] {
  const out = [...original];
  for (const v of patch) {
    const m = v as JsonMap;
    if (!isMap(m) || !hasOwn(m, mergeKey)) throw bad(`map: ${JSON.stringify(m)} does not contain declared merge key: ${mergeKey}`);
    const i = out.findIndex((x) => isMap(x) && same(getOwn<Json>(x, mergeKey), m[mergeKey]));
    if (i >= 0) out[i] = mergeMap(out[i] as JsonMap, m, meta);
    else out.push(v);
  }
  return out;
}

/** Orders patch items by `patchOrder` and server-only items by `serverOrder`, then interleaves. */
function normalizeOrder(
  inPatch: Json[],
  serverOnly: Json[],
  patchOrder: Json[],
  serverOrder: Json[],
  mergeKey: string | undefined,
): Json[] {
  const left = sortBy(serverOnly, serverOrder, mergeKey);
  const right = sortBy(inPatch, patchOrder, mergeKey);
  const out: Json[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = indexIn(serverOrder, left[i], mergeKey);
      const ri = indexIn(serverOrder, right[j], mergeKey);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

function sortBy(items: Json[], order: Json[], mergeKey: string | undefined): Json[] {
  if (mergeKey) {
    for (const v of [...items, ...order]) {
      if (!isMap(v) || !hasOwn(v, mergeKey)) throw bad(`map: ${JSON.stringify(v)} does not contain declared merge key: ${mergeKey}`);
    }
  }
  const deletes = mergeKey ? items.filter((v) => (v as JsonMap)[DIRECTIVE] === 'delete') : [];
  const rest = mergeKey ? items.filter((v) => (v as JsonMap)[DIRECTIVE] !== 'delete') : items;
  const ranked = rest.map((v, pos) => ({ v, pos, at: indexIn(order, v, mergeKey) }));
  ranked.sort((a, b) => {
    if (a.at >= 0 && b.at >= 0) return a.at - b.at;
    if (a.at >= 0) return -1;
    if (b.at >= 0) return 1;
    return a.pos - b.pos;
  });
  return [...ranked.map((r) => r.v), ...deletes];
}

/** `$setElementOrder/<list>`: merges that list now and puts it in the given order. */
function applySetElementOrder(original: JsonMap, patch: JsonMap, meta: PatchMeta): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER)) continue;
    const order = patch[key];
    delete patch[key];
    if (!Array.isArray(order)) throw bad('invalid patch format of setElementOrder list');
    const listKey = keyAfter(key, SET_ELEMENT_ORDER);
    const hasOriginal = hasOwn(original, listKey);
    const hasPatch = hasOwn(patch, listKey);
    const originalList = hasOriginal ? original[listKey] : [];
    const patchList = hasPatch ? patch[listKey] : [];
    if (!Array.isArray(originalList) || !Array.isArray(patchList)) {
      throw bad('invalid patch format of setElementOrder list');
    }
    const fm = fieldMeta(meta, listKey);
    const mergeKey = fm.mergeKey;
    checkOrderMatchesPatch(patchList, order, mergeKey);
    let merged: Json[];
    if (hasOriginal && !hasPatch) merged = originalList;
    else if (!hasOriginal && hasPatch) merged = stripDirectives(patchList)[0] as Json[];
    else if (hasOriginal && hasPatch) merged = mergeListHandler(originalList, patchList, fm, false);
    else continue;
    const kind = elementKind(originalList, patchList);
    if (kind === undefined) {
      setOwn(original, listKey, merged);
      delete patch[listKey];
      continue;
    }
    const key2 = kind === 'map' ? mergeKey : undefined;
    const inOrder = merged.filter((v) => indexIn(order, v, key2) >= 0);
    const serverOnly = merged.filter((v) => indexIn(order, v, key2) < 0);
    setOwn(original, listKey, normalizeOrder(inOrder, serverOnly, order, originalList, key2));
    delete patch[listKey];
  }
}

/** The relative order of the patch list's items must agree with the order list (upstream check). */
function checkOrderMatchesPatch(patchList: Json[], order: Json[], mergeKey: string | undefined): void {
  if (order.length === 0 || patchList.length === 0) return;
  const items = mergeKey ? patchList.filter((v) => !(isMap(v) && v[DIRECTIVE] === 'delete')) : patchList;
  let p = 0;
  let o = 0;
  while (p < items.length && o < order.length) {
    if (isMap(items[p]) && hasOwn(items[p] as JsonMap, DIRECTIVE)) {
      p++;
      continue;
    }
    if (mergeKey && (!isMap(items[p]) || !isMap(order[o]))) throw bad('invalid patch format of setElementOrder list');
    if (same(identity(items[p], mergeKey), identity(order[o], mergeKey))) p++;
    o++;
  }
  if (p < items.length) {
    throw bad(`The order in patch list:\n${JSON.stringify(patchList)}\n doesn't match $setElementOrder list:\n${JSON.stringify(order)}`);
  }
}

function discardNulls(v: Json): void {
  if (Array.isArray(v)) v.forEach(discardNulls);
  else if (isMap(v)) {
    for (const k of Object.keys(v)) {
      if (v[k] === null) delete v[k];
      else discardNulls(v[k]);
    }
  }
}

/** Removes directives: a map holding `$patch` goes away entirely; other directive keys are dropped. */
function stripDirectives(v: Json): [Json, boolean] {
  if (Array.isArray(v)) {
    const out: Json[] = [];
    for (const x of v) {
      const [y, keep] = stripDirectives(x);
      if (keep) out.push(y);
    }
    return [out, true];
  }
  if (isMap(v)) {
    if (hasOwn(v, DIRECTIVE)) return [null, false];
    for (const k of Object.keys(v)) {
      if (isDirectiveKey(k)) {
        delete v[k];
        continue;
      }
      const [y, keep] = stripDirectives(v[k]);
      if (keep) setOwn(v, k, y);
      else delete v[k];
    }
  }
  return [v, true];
}

function removeDirectives(v: Json): Json {
  return stripDirectives(v)[0] ?? {};
}

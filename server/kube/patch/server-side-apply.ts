// Server-side apply (application/apply-patch+yaml), after upstream's structured-merge-diff:
// every applier (field manager) owns the set of fields it last applied, recorded in
// metadata.managedFields as FieldsV1 (`{"f:spec":{"f:capacity":{"f:storage":{}}}}`, list
// items keyed `k:{"name":"c"}`, set members `v:"x"`, an item's own existence `.`). An apply
// merges the applied configuration into the live object by list type (lists with a merge
// key merge by key, sets by value, other lists are replaced whole), refuses to change a
// field another manager owns unless forced (then takes it over), and removes the fields
// this manager applied before but no longer does, unless another manager owns them too.
// List types come from the strategic-merge metadata of each kind (patch-meta.ts), which
// upstream derives from the same Go tags. Pure: no I/O.
import { isDeepStrictEqual } from 'node:util';
import { StowageError } from '../../domain/errors';
import type { KubeObject } from '../../resources/types';
import { fieldMeta, patchMetaFor, type PatchMeta } from './patch-meta';

export type Fields = { [key: string]: Fields };

export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion?: string;
  time?: string;
  fieldsType?: 'FieldsV1';
  fieldsV1?: Fields;
  subresource?: string;
}

type Json = Record<string, unknown>;
const SEP = '\u0000';

function isPlain(v: unknown): v is Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

const isMergeList = (m: PatchMeta) => (m.strategies ?? []).includes('merge');

/** Metadata the server owns: never part of what a manager applies or owns. */
const SYSTEM_METADATA = new Set([
  'name',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'managedFields',
  'selfLink',
]);

/** The part of an object a manager can own: no apiVersion/kind, no system metadata, no status. */
export function ownable(obj: Json): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'apiVersion' || k === 'kind' || k === 'status') continue;
    if (k === 'metadata' && isPlain(v)) {
      const meta: Json = {};
      for (const [mk, mv] of Object.entries(v)) if (!SYSTEM_METADATA.has(mk)) meta[mk] = mv;
      if (Object.keys(meta).length > 0) out.metadata = meta;
      continue;
    }
    out[k] = v;
  }
  return out;
}

function keyOf(item: Json, mergeKey: string): string {
  return `k:${JSON.stringify({ [mergeKey]: item[mergeKey] })}`;
}

function childFields(v: unknown, m: PatchMeta): Fields {
  if (isPlain(v)) return fieldsOf(v, m);
  if (Array.isArray(v) && isMergeList(m)) {
    const out: Fields = {};
    for (const item of v) {
      if (m.mergeKey && isPlain(item) && item[m.mergeKey] !== undefined) out[keyOf(item, m.mergeKey)] = { '.': {}, ...fieldsOf(item, m) };
      else if (!m.mergeKey) out[`v:${JSON.stringify(item)}`] = {};
    }
    return out;
  }
  return {};
}

/** The fields set in a map, as FieldsV1. */
export function fieldsOf(obj: Json, meta: PatchMeta): Fields {
  const out: Fields = {};
  for (const [k, v] of Object.entries(obj)) {
    if (v === null || v === undefined) continue;
    out[`f:${k}`] = childFields(v, fieldMeta(meta, k));
  }
  return out;
}

/** Every owned path (leaves of the tree), as strings of segments joined by NUL. */
export function toSet(fields: Fields | undefined): Set<string> {
  const out = new Set<string>();
  const walk = (f: Fields, prefix: string[]) => {
    const keys = Object.keys(f);
    if (keys.length === 0 && prefix.length > 0) out.add(prefix.join(SEP));
    for (const k of keys) {
      if (k === '.') out.add([...prefix, '.'].join(SEP));
      else if (isPlain(f[k])) walk(f[k], [...prefix, k]);
    }
  };
  if (isPlain(fields)) walk(fields, []);
  return out;
}

export function fromSet(set: Iterable<string>): Fields {
  const root: Fields = {};
  for (const path of set) {
    let node = root;
    for (const seg of path.split(SEP)) node = node[seg] ??= {};
  }
  return root;
}

/** The value a path names in an object (a list item for `k:`/`v:`, undefined when absent). */
function valueAt(obj: unknown, path: string[]): unknown {
  let cur: unknown = obj;
  for (const seg of path) {
    if (seg === '.') return cur;
    if (seg.startsWith('f:')) {
      if (!isPlain(cur) || !Object.hasOwn(cur, seg.slice(2))) return undefined;
      cur = cur[seg.slice(2)];
    } else if (seg.startsWith('k:')) {
      const key = JSON.parse(seg.slice(2)) as Json;
      cur = Array.isArray(cur) ? cur.find((i) => isPlain(i) && Object.entries(key).every(([k, v]) => isDeepStrictEqual(i[k], v))) : undefined;
    } else if (seg.startsWith('v:')) {
      const value = JSON.parse(seg.slice(2));
      cur = Array.isArray(cur) ? cur.find((i) => isDeepStrictEqual(i, value)) : undefined;
    } else {
      return undefined;
    }
    if (cur === undefined) return undefined;
  }
  return cur;
}

/** A path as upstream prints it: `.spec.containers[name="c"].image`, `.metadata.finalizers[="x"]`. */
export function printPath(path: string): string {
  let out = '';
  for (const seg of path.split(SEP)) {
    if (seg === '.') continue;
    if (seg.startsWith('f:')) out += `.${seg.slice(2)}`;
    else if (seg.startsWith('k:')) {
      const key = JSON.parse(seg.slice(2)) as Json;
      out += `[${Object.entries(key).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(',')}]`;
    } else if (seg.startsWith('v:')) out += `[=${seg.slice(2)}]`;
  }
  return out;
}

function mergeValue(live: unknown, applied: unknown, m: PatchMeta): unknown {
  if (isPlain(live) && isPlain(applied)) {
    const out: Json = { ...live };
    for (const [k, v] of Object.entries(applied)) {
      if (v === null) continue;
      out[k] = Object.hasOwn(live, k) ? mergeValue(live[k], v, fieldMeta(m, k)) : structuredClone(v);
    }
    return out;
  }
  if (Array.isArray(live) && Array.isArray(applied) && isMergeList(m)) {
    const out = live.map((i) => structuredClone(i));
    for (const item of applied) {
      if (m.mergeKey && isPlain(item)) {
        const at = out.findIndex((i) => isPlain(i) && isDeepStrictEqual(i[m.mergeKey!], item[m.mergeKey!]));
        if (at >= 0) out[at] = mergeValue(out[at], item, m);
        else out.push(structuredClone(item));
      } else if (!out.some((i) => isDeepStrictEqual(i, item))) {
        out.push(structuredClone(item));
      }
    }
    return out;
  }
  return structuredClone(applied);
}

/** Removes the field (or list item, or set member) a path names. */
function removeAt(obj: Json, path: string[]): void {
  const last = path[path.length - 1];
  const itemPath = last === '.' ? path.slice(0, -1) : path;
  const tail = itemPath[itemPath.length - 1];
  const parent = valueAt(obj, itemPath.slice(0, -1));
  if (tail.startsWith('f:')) {
    if (isPlain(parent)) delete parent[tail.slice(2)];
  } else if (Array.isArray(parent)) {
    const item = valueAt(obj, itemPath);
    const at = parent.indexOf(item);
    if (at >= 0) parent.splice(at, 1);
  }
}

/** Every proper prefix of the paths (the maps and items that hold them). */
function parentPaths(paths: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const p of paths) {
    const segs = p.split(SEP);
    for (let i = 1; i < segs.length; i++) out.add(segs.slice(0, i).join(SEP));
  }
  return out;
}

export interface Conflict {
  manager: string;
  apiVersion?: string;
  path: string;
}

/** Upstream's message for apply conflicts. */
export function conflictMessage(conflicts: Conflict[]): string {
  const byManager = new Map<string, Conflict[]>();
  for (const c of conflicts) byManager.set(c.manager, [...(byManager.get(c.manager) ?? []), c]);
  const parts = [...byManager.entries()].map(([manager, list]) => {
    const using = list[0].apiVersion ? ` using ${list[0].apiVersion}` : '';
    if (list.length === 1) return `conflict with "${manager}"${using}: ${printPath(list[0].path)}`;
    return `conflicts with "${manager}"${using}:\n${list.map((c) => `- ${printPath(c.path)}`).join('\n')}`;
  });
  const n = conflicts.length;
  return `Apply failed with ${n} conflict${n === 1 ? '' : 's'}: ${parts.join('\n')}`;
}

export function conflictError(resource: { plural: string; group: string }, name: string, conflicts: Conflict[]): StowageError {
  return new StowageError('Conflict', conflictMessage(conflicts), {
    kind: resource.plural,
    name,
    ...(resource.group ? { group: resource.group } : {}),
    causes: conflicts.map((c) => ({
      reason: 'FieldManagerConflict' as never,
      message: `conflict with "${c.manager}"${c.apiVersion ? ` using ${c.apiVersion}` : ''}`,
      field: printPath(c.path),
    })),
  });
}

/** The managedFields entries of an object that have the expected shape (others are dropped). */
export function managedEntries(obj: KubeObject): ManagedFieldsEntry[] {
  const raw: unknown = obj.metadata?.managedFields;
  if (!Array.isArray(raw)) return [];
  return raw.filter(
    (e): e is ManagedFieldsEntry =>
      isPlain(e) && typeof e.manager === 'string' && (e.operation === 'Apply' || e.operation === 'Update') && (e.fieldsV1 === undefined || isPlain(e.fieldsV1)),
  );
}

export interface ApplyInput {
  /** The live object, or undefined when the apply creates it. */
  live: KubeObject | undefined;
  /** The applied configuration (the request body). */
  applied: KubeObject;
  manager: string;
  force: boolean;
  /** `status` when applying to the status subresource. */
  subresource?: string;
  now: string;
  /** For the conflict Status: the resource's plural and group. */
  resource: { plural: string; group: string };
}

/**
 * The object after an apply, with its managedFields. Throws 409 with the conflicts when
 * another manager owns a field the applied configuration changes and `force` is false.
 */
export function serverSideApply(input: ApplyInput): KubeObject {
  const { live, applied, manager, force, now } = input;
  const kind = String(applied.kind ?? live?.kind ?? '');
  const meta = patchMetaFor(kind);
  // On the status subresource a manager applies (and owns) status only.
  const appliedOwnable = input.subresource === 'status' ? (isPlain(applied.status) ? { status: applied.status } : {}) : ownable(applied);
  const appliedSet = toSet(fieldsOf(appliedOwnable, meta));
  const apiVersion = String(applied.apiVersion ?? live?.apiVersion ?? '');
  const mine = (e: ManagedFieldsEntry) => e.manager === manager && e.operation === 'Apply' && (e.subresource ?? '') === (input.subresource ?? '');
  const entries = live ? managedEntries(live) : [];
  const previous = toSet(entries.find(mine)?.fieldsV1);
  const liveJson = (live ?? {}) as Json;

  // Conflicts: a field another manager owns whose value the apply would change.
  const conflicts: Conflict[] = [];
  const others = entries.filter((e) => !mine(e)).map((e) => ({ entry: e, set: toSet(e.fieldsV1) }));
  for (const o of others) {
    for (const p of appliedSet) {
      if (!o.set.has(p) || p.endsWith('.') || p.split(SEP).pop()!.startsWith('v:')) continue;
      const path = p.split(SEP);
      if (!isDeepStrictEqual(valueAt(liveJson, path), valueAt(appliedOwnable, path))) {
        conflicts.push({ manager: o.entry.manager, apiVersion: o.entry.apiVersion, path: p });
      }
    }
  }
  if (conflicts.length > 0 && !force) {
    const name = String(applied.metadata?.name ?? live?.metadata?.name ?? '');
    throw conflictError(input.resource, name, conflicts);
  }
  // Forced: the conflicting fields change hands.
  const taken = new Set(conflicts.map((c) => `${c.manager}${SEP}${c.path}`));
  for (const o of others) for (const p of [...o.set]) if (taken.has(`${o.entry.manager}${SEP}${p}`)) o.set.delete(p);

  // Merge, then drop what this manager applied before, no longer applies, and nobody else owns.
  const merged = (live ? mergeValue(structuredClone(liveJson), appliedOwnable, meta) : structuredClone(applied)) as Json;
  const ownedByOthers = new Set(others.flatMap((o) => [...o.set]));
  // A path that is now the parent of applied or owned fields (a map applied empty before,
  // with fields now) is not dropped: removing it would take its other fields along.
  const parents = parentPaths([...appliedSet, ...ownedByOthers]);
  const dropped = [...previous].filter((p) => !appliedSet.has(p) && !ownedByOthers.has(p) && !parents.has(p));
  // Items before their fields' parents, deepest first, so a removed item takes its fields along.
  for (const p of dropped.sort((a, b) => b.split(SEP).length - a.split(SEP).length)) removeAt(merged, p.split(SEP));

  const result = merged as KubeObject;
  result.apiVersion = apiVersion || result.apiVersion;
  result.kind = kind;
  result.metadata = { ...(result.metadata ?? {}) };
  if (live) {
    for (const k of ['name', 'namespace', 'uid', 'resourceVersion']) {
      if ((live.metadata as Json)[k] !== undefined) (result.metadata as Json)[k] = (live.metadata as Json)[k];
    }
  }
  const unchanged = isDeepStrictEqual([...previous].sort(), [...appliedSet].sort());
  const myEntry: ManagedFieldsEntry = {
    manager,
    operation: 'Apply',
    apiVersion,
    time: unchanged ? (entries.find(mine)?.time ?? now) : now,
    fieldsType: 'FieldsV1',
    fieldsV1: fromSet(appliedSet),
    ...(input.subresource ? { subresource: input.subresource } : {}),
  };
  const kept = others.filter((o) => o.set.size > 0).map((o) => ({ ...o.entry, fieldsV1: fromSet(o.set) }));
  const order = entries.map((e) => e.manager + e.operation);
  const all = [...kept, ...(appliedSet.size > 0 ? [myEntry] : [])];
  all.sort((a, b) => {
    const ia = order.indexOf(a.manager + a.operation);
    const ib = order.indexOf(b.manager + b.operation);
    return (ia < 0 ? 1e9 : ia) - (ib < 0 ? 1e9 : ib);
  });
  result.metadata.managedFields = all;
  return result;
}

/**
 * managedFields after a write that is not an apply (create, update, patch): as upstream's
 * field manager records an `Update` operation, the writer takes the fields it changed
 * (away from whoever owned them, without conflicts) and fields it removed leave every
 * entry. Returns the entries unchanged when the write changed no owned part.
 */
export function recordUpdate(prev: KubeObject | undefined, next: KubeObject, manager: string, now: string, subresource?: string): ManagedFieldsEntry[] {
  const meta = patchMetaFor(String(next.kind ?? prev?.kind ?? ''));
  const part = (o: KubeObject | undefined): Json => {
    if (!o) return {};
    if (subresource === 'status') return isPlain(o.status) ? { status: o.status } : {};
    return ownable(o);
  };
  const before = part(prev);
  const after = part(next);
  const beforeSet = toSet(fieldsOf(before, meta));
  const afterSet = toSet(fieldsOf(after, meta));
  const changed = [...afterSet].filter((p) => {
    if (!beforeSet.has(p)) return true;
    const path = p.split(SEP);
    return !isDeepStrictEqual(valueAt(after, path), valueAt(before, path));
  });
  const removed = [...beforeSet].filter((p) => !afterSet.has(p));
  const entries = prev ? managedEntries(prev) : managedEntries(next);
  if (changed.length === 0 && removed.length === 0) return entries;
  const mine = (e: ManagedFieldsEntry) => e.manager === manager && e.operation === 'Update' && (e.subresource ?? '') === (subresource ?? '');
  const gone = new Set([...changed, ...removed]);
  const out: ManagedFieldsEntry[] = [];
  let found = false;
  for (const e of entries) {
    const set = toSet(e.fieldsV1);
    if (mine(e)) {
      found = true;
      for (const p of removed) set.delete(p);
      for (const p of changed) set.add(p);
      if (set.size > 0) out.push({ ...e, time: now, fieldsV1: fromSet(set) });
      continue;
    }
    for (const p of gone) set.delete(p);
    if (set.size > 0) out.push({ ...e, fieldsV1: fromSet(set) });
  }
  if (!found && changed.length > 0) {
    out.push({
      manager,
      operation: 'Update',
      apiVersion: String(next.apiVersion ?? ''),
      time: now,
      fieldsType: 'FieldsV1',
      fieldsV1: fromSet(changed),
      ...(subresource ? { subresource } : {}),
    });
  }
  return out;
}

/** Upstream's manager name for a non-apply write: fieldManager, else the User-Agent up to its first "/". */
export function updateManager(fieldManager: string | undefined, userAgent: string | undefined): string {
  if (fieldManager) return fieldManager;
  const name = (userAgent ?? '').split('/')[0].trim().slice(0, 128);
  return /^[\x20-\x7e]+$/.test(name) ? name : 'unknown';
}

// Kubernetes protobuf bodies (`application/vnd.kubernetes.protobuf`), both ways, driven by
// the one field table per kind in protobuf-schema.ts. The envelope is the 4-byte magic
// "k8s\0" and a runtime.Unknown message (typeMeta = 1 {apiVersion = 1, kind = 2}, raw = 2,
// contentEncoding = 3, contentType = 4); `raw` is the typed object.
//
// Decoding a request refuses anything malformed with a 400 and a kind without a table
// with a 415. Encoding a response never drops data: a value the table cannot carry exactly
// (a field it does not list, a zero value Go would omit, an empty list or map, a null, a
// timestamp not in upstream's spelling) throws Unrepresentable, and the caller answers JSON
// instead (or 406 when the client accepts protobuf only).
import { StowageError } from '../domain/errors';
import { malformedProtobuf as bad, readFields, Writer, type WireValue } from './protobuf-wire';
import type { Field, Schema } from './protobuf-fields';
import { PROTOBUF_KINDS } from './protobuf-schema';

export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';
export const PROTOBUF_WATCH_MEDIA_TYPE = `${PROTOBUF_MEDIA_TYPE};stream=watch`;
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** An object protobuf cannot carry without losing something; `path` names the first such value. */
export class Unrepresentable extends Error {
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(`${path}: ${reason}`);
    this.name = 'Unrepresentable';
  }
}

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Sets a key as an own data property, so names such as "__proto__" stay plain data. */
function put(o: Obj, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  else o[key] = value;
}

// --- timestamps ----------------------------------------------------------------------------

const TIME_RE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{6}))?Z$/;

type ParsedTime = { seconds: bigint; nanos: number } | undefined;

/** Timestamps repeat across the items of a list: the last few thousand are remembered. */
const timeCache = new Map<string, ParsedTime>();

function parseTime(text: string, micro: boolean): ParsedTime {
  const key = `${micro ? 'u' : 's'}${text}`;
  if (timeCache.has(key)) return timeCache.get(key);
  const t = parseTimeUncached(text, micro);
  if (timeCache.size >= 4096) timeCache.clear();
  timeCache.set(key, t);
  return t;
}

/** Seconds (and nanoseconds) of a timestamp spelled exactly as upstream writes it, else undefined. */
function parseTimeUncached(text: string, micro: boolean): ParsedTime {
  const m = TIME_RE.exec(text);
  if (!m || (m[7] !== undefined) !== micro) return undefined;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
  const d = new Date(ms);
  d.setUTCFullYear(Number(m[1])); // years below 100 are not 19xx
  if (formatTime(BigInt(Math.floor(d.getTime() / 1000)), micro ? Number(m[7]) * 1000 : 0, micro) !== text) return undefined;
  return { seconds: BigInt(Math.floor(d.getTime() / 1000)), nanos: micro ? Number(m[7]) * 1000 : 0 };
}

/** RFC 3339 in UTC as Go's meta/v1 Time (seconds) or MicroTime (6 fraction digits) marshals it. */
function formatTime(seconds: bigint, nanos: number, micro: boolean): string | undefined {
  // Go refuses to marshal years outside [0, 9999]; so does this.
  if (seconds < -62167219200n || seconds > 253402300799n) return undefined;
  const iso = new Date(Number(seconds) * 1000).toISOString(); // 4-digit years in this range
  const base = iso.slice(0, 19);
  return micro ? `${base}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z` : `${base}Z`;
}

// --- encoding --------------------------------------------------------------------------------

function isZero(v: unknown): boolean {
  return v === '' || v === 0 || v === false;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function encodeString(s: unknown, at: string): Buffer {
  if (typeof s !== 'string') throw new Unrepresentable(at, 'not a string');
  if (LONE_SURROGATE.test(s)) throw new Unrepresentable(at, 'not valid UTF-16');
  return Buffer.from(s, 'utf8');
}

function encodeQuantity(v: unknown, at: string): Buffer {
  if (typeof v !== 'string' || v === '') throw new Unrepresentable(at, 'a quantity must be a non-empty string');
  return new Writer().bytes(1, encodeString(v, at)).done();
}

function encodeMapValue(f: Field, v: unknown, at: string): Buffer {
  if (f.values === 'quantity') return encodeQuantity(v, at);
  if (f.values === 'bytes') {
    if (typeof v !== 'string') throw new Unrepresentable(at, 'not a base64 string');
    const b = Buffer.from(v, 'base64');
    if (b.toString('base64') !== v) throw new Unrepresentable(at, 'not canonical base64');
    return b;
  }
  return encodeString(v, at);
}

function encodeField(w: Writer, f: Field, v: unknown, at: string): void {
  if (v === null) {
    // A non-pointer Time is null in JSON when zero, and an empty message on the wire.
    if ((f.type === 'time' || f.type === 'microTime') && f.keep) {
      w.bytes(f.no, Buffer.alloc(0));
      return;
    }
    throw new Unrepresentable(at, 'null');
  }
  if (isZero(v) && !f.keep && f.type !== 'map') throw new Unrepresentable(at, 'a zero value Go omits');
  switch (f.type) {
    case 'string':
      w.bytes(f.no, encodeString(v, at));
      return;
    case 'bool':
      if (typeof v !== 'boolean') throw new Unrepresentable(at, 'not a boolean');
      w.tag(f.no, 0).varint(v ? 1 : 0);
      return;
    case 'int32':
    case 'int64': {
      if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new Unrepresentable(at, 'not an integer');
      if (f.type === 'int32' && (v < -(2 ** 31) || v >= 2 ** 31)) throw new Unrepresentable(at, 'beyond int32');
      w.tag(f.no, 0).varint(v);
      return;
    }
    case 'strings':
      if (!Array.isArray(v) || (v.length === 0 && !f.keep)) throw new Unrepresentable(at, 'not a non-empty list');
      v.forEach((s, i) => w.bytes(f.no, encodeString(s, `${at}[${i}]`)));
      return;
    case 'time':
    case 'microTime': {
      const t = typeof v === 'string' ? parseTime(v, f.type === 'microTime') : undefined;
      if (!t) throw new Unrepresentable(at, 'not a timestamp in upstream spelling');
      const m = new Writer().tag(1, 0).varint(t.seconds);
      if (t.nanos !== 0) m.tag(2, 0).varint(t.nanos);
      w.bytes(f.no, m.done());
      return;
    }
    case 'quantity':
      w.bytes(f.no, encodeQuantity(v, at));
      return;
    case 'intOrString': {
      const m = new Writer();
      if (typeof v === 'number') {
        if (!Number.isInteger(v) || v < -(2 ** 31) || v >= 2 ** 31) throw new Unrepresentable(at, 'not an int32');
        m.tag(1, 0).varint(0).tag(2, 0).varint(v);
      } else m.tag(1, 0).varint(1).bytes(3, encodeString(v, at));
      w.bytes(f.no, m.done());
      return;
    }
    case 'fieldsV1':
      if (!isObj(v)) throw new Unrepresentable(at, 'not an object');
      w.bytes(f.no, new Writer().bytes(1, Buffer.from(JSON.stringify(v), 'utf8')).done());
      return;
    case 'message':
      if (!isObj(v)) throw new Unrepresentable(at, 'not an object');
      w.bytes(f.no, encodeMessage(v, f.schema!, at));
      return;
    case 'messages':
      if (!Array.isArray(v) || (v.length === 0 && !f.keep)) throw new Unrepresentable(at, 'not a non-empty list');
      v.forEach((item, i) => {
        if (!isObj(item)) throw new Unrepresentable(`${at}[${i}]`, 'not an object');
        w.bytes(f.no, encodeMessage(item, f.schema!, `${at}[${i}]`));
      });
      return;
    case 'map': {
      if (!isObj(v) || Object.keys(v).length === 0) throw new Unrepresentable(at, 'not a non-empty map');
      // Sorted, as upstream's generated code writes maps.
      for (const key of Object.keys(v).sort()) {
        const entry = new Writer().bytes(1, encodeString(key, at)).bytes(2, encodeMapValue(f, v[key], `${at}[${JSON.stringify(key)}]`));
        w.bytes(f.no, entry.done());
      }
      return;
    }
    case 'inline':
      throw new Error('inline fields are encoded by their parent');
  }
}

/** The JSON names a message carries, including those of its inline members. */
function namesOf(schema: Schema): Set<string> {
  const names = new Set<string>();
  for (const f of schema) {
    if (f.type === 'inline') for (const n of namesOf(f.schema!)) names.add(n);
    else names.add(f.name);
  }
  return names;
}

const nameCache = new WeakMap<Schema, Set<string>>();
const sortedCache = new WeakMap<Schema, Field[]>();

/** A message; `inlined` when its fields sit in a parent object that has others too (the parent checks the keys). */
function encodeMessage(o: Obj, schema: Schema, at: string, inlined = false): Buffer {
  let names = nameCache.get(schema);
  if (!names) nameCache.set(schema, (names = namesOf(schema)));
  for (const key of inlined ? [] : Object.keys(o)) {
    if (!names.has(key) && o[key] !== undefined) throw new Unrepresentable(`${at}.${key}`, 'no protobuf field');
  }
  let sorted = sortedCache.get(schema);
  if (!sorted) sortedCache.set(schema, (sorted = [...schema].sort((a, b) => a.no - b.no)));
  const w = new Writer();
  for (const f of sorted) {
    if (f.type === 'inline') {
      // Always written, as upstream writes an embedded struct.
      w.bytes(f.no, encodeMessage(o, f.schema!, at, true));
      continue;
    }
    if (!Object.hasOwn(o, f.name) || o[f.name] === undefined) continue;
    encodeField(w, f, o[f.name], `${at}.${f.name}`);
  }
  return w.done();
}

function schemaFor(apiVersion: unknown, kind: unknown): Schema | undefined {
  return PROTOBUF_KINDS.get(`${String(apiVersion ?? '')}/${String(kind ?? '')}`);
}

/** The envelope around a typed message. */
function envelope(apiVersion: string, kind: string, raw: Buffer): Buffer {
  const typeMeta = new Writer().bytes(1, Buffer.from(apiVersion)).bytes(2, Buffer.from(kind)).done();
  const unknown = new Writer().bytes(1, typeMeta).bytes(2, raw).bytes(3, Buffer.alloc(0)).bytes(4, Buffer.alloc(0)).done();
  return Buffer.concat([MAGIC, unknown]);
}

/** An object (with its kind and apiVersion) as a protobuf body; throws Unrepresentable. */
export function encodeKubeProtobuf(o: unknown): Buffer {
  if (!isObj(o)) throw new Unrepresentable('', 'not an object');
  const schema = schemaFor(o.apiVersion, o.kind);
  if (!schema) throw new Unrepresentable('', `no protobuf schema for ${String(o.apiVersion)}/${String(o.kind)}`);
  const { apiVersion, kind, ...rest } = o;
  return envelope(String(apiVersion), String(kind), encodeMessage(rest, schema, String(kind)));
}

/**
 * One event of a protobuf watch stream: a 4-byte big-endian length, then meta/v1 WatchEvent
 * {type = 1, object = 2 (RawExtension {raw = 1}: the object's own protobuf body)}.
 */
export function encodeWatchEvent(type: string, object: unknown): Buffer {
  const raw = new Writer().bytes(1, encodeKubeProtobuf(object)).done();
  const event = new Writer().bytes(1, Buffer.from(type)).bytes(2, raw).done();
  const length = Buffer.alloc(4);
  length.writeUInt32BE(event.length);
  return Buffer.concat([length, event]);
}

// --- decoding ---------------------------------------------------------------------------------

function asBuffer(v: WireValue, at: string): Buffer {
  if (!Buffer.isBuffer(v)) throw bad(`${at} must be length-delimited`);
  return v;
}

function asVarint(v: WireValue, at: string): bigint {
  if (Buffer.isBuffer(v)) throw bad(`${at} must be a varint`);
  return v;
}

function utf8(b: Buffer, at: string): string {
  const s = b.toString('utf8');
  if (!Buffer.from(s, 'utf8').equals(b)) throw bad(`${at} is not valid UTF-8`);
  return s;
}

function integer(v: WireValue, bits: 32 | 64, at: string): number {
  const n = BigInt.asIntN(bits, asVarint(v, at));
  if (n > BigInt(Number.MAX_SAFE_INTEGER) || n < BigInt(Number.MIN_SAFE_INTEGER)) throw bad(`${at} is out of range`);
  return Number(n);
}

function decodeTime(b: Buffer, micro: boolean, at: string): string | undefined {
  if (b.length === 0) return undefined; // the zero time: null in JSON
  let seconds = 0n;
  let nanos = 0;
  for (const [no, v] of readFields(b)) {
    if (no === 1) seconds = BigInt.asIntN(64, asVarint(v, at));
    if (no === 2) nanos = integer(v, 32, at);
  }
  if (nanos < 0 || nanos > 999_999_999) throw bad(`${at} has nanoseconds out of range`);
  const text = formatTime(seconds, nanos, micro);
  if (text === undefined) throw bad(`${at} is outside the years 0000-9999`);
  return text;
}

function decodeQuantity(b: Buffer, at: string): string {
  let text = '0';
  for (const [no, v] of readFields(b)) if (no === 1) text = utf8(asBuffer(v, at), at) || '0';
  return text;
}

function decodeMapValue(f: Field, b: Buffer, at: string): string {
  if (f.values === 'quantity') return decodeQuantity(b, at);
  if (f.values === 'bytes') return b.toString('base64');
  return utf8(b, at);
}

function decodeField(out: Obj, f: Field, v: WireValue, at: string): void {
  let value: unknown;
  switch (f.type) {
    case 'string':
      value = utf8(asBuffer(v, at), at);
      break;
    case 'bool':
      value = asVarint(v, at) !== 0n;
      break;
    case 'int32':
    case 'int64':
      value = integer(v, f.type === 'int32' ? 32 : 64, at);
      break;
    case 'strings': {
      const list = Array.isArray(out[f.name]) ? (out[f.name] as unknown[]) : [];
      list.push(utf8(asBuffer(v, at), at));
      value = list;
      break;
    }
    case 'time':
    case 'microTime':
      value = decodeTime(asBuffer(v, at), f.type === 'microTime', at);
      if (value === undefined) {
        if (f.keep) put(out, f.name, null);
        else delete out[f.name];
        return;
      }
      break;
    case 'quantity':
      value = decodeQuantity(asBuffer(v, at), at);
      break;
    case 'intOrString': {
      let isString = false;
      let n = 0;
      let text = '';
      for (const [no, x] of readFields(asBuffer(v, at))) {
        if (no === 1) isString = integer(x, 64, at) === 1;
        if (no === 2) n = integer(x, 32, at);
        if (no === 3) text = utf8(asBuffer(x, at), at);
      }
      value = isString ? text : n;
      break;
    }
    case 'fieldsV1': {
      let raw: Buffer = Buffer.alloc(0);
      for (const [no, x] of readFields(asBuffer(v, at))) if (no === 1) raw = asBuffer(x, at);
      try {
        value = JSON.parse(utf8(raw, at));
      } catch {
        throw bad(`${at} is not JSON`);
      }
      if (!isObj(value)) throw bad(`${at} must be a JSON object`);
      break;
    }
    case 'message':
      value = decodeMessage(asBuffer(v, at), f.schema!, at);
      break;
    case 'messages': {
      const list = Array.isArray(out[f.name]) ? (out[f.name] as unknown[]) : [];
      list.push(decodeMessage(asBuffer(v, at), f.schema!, at));
      value = list;
      break;
    }
    case 'map': {
      let key = '';
      let entryValue: string | undefined;
      for (const [no, x] of readFields(asBuffer(v, at))) {
        if (no === 1) key = utf8(asBuffer(x, at), at);
        if (no === 2) entryValue = decodeMapValue(f, asBuffer(x, at), at);
      }
      const m = isObj(out[f.name]) ? (out[f.name] as Obj) : {};
      put(m, key, entryValue ?? (f.values === 'quantity' ? '0' : ''));
      value = m;
      break;
    }
    case 'inline':
      for (const [k, x] of Object.entries(decodeMessage(asBuffer(v, at), f.schema!, at))) put(out, k, x);
      return;
  }
  // Go leaves a zero value of an `omitempty` field out of JSON.
  if (isZero(value) && !f.keep) delete out[f.name];
  else put(out, f.name, value);
}

function decodeMessage(buf: Buffer, schema: Schema, at: string): Obj {
  const out: Obj = {};
  for (const [no, v] of readFields(buf)) {
    const f = schema.find((x) => x.no === no);
    if (!f) continue; // unknown fields are skipped, as protobuf readers do
    decodeField(out, f, v, f.name ? `${at}.${f.name}` : at);
  }
  // A list that is always in JSON (a List's items) is [] when the wire has none.
  for (const f of schema) if (f.keep && (f.type === 'messages' || f.type === 'strings') && !Object.hasOwn(out, f.name)) out[f.name] = [];
  return out;
}

/** A protobuf request body as the JSON object it stands for. */
export function decodeKubeProtobuf(body: Buffer): Obj {
  if (body.length < 4 || !body.subarray(0, 4).equals(MAGIC)) throw bad('it does not start with the Kubernetes protobuf magic');
  let apiVersion = '';
  let kind = '';
  let raw: Buffer = Buffer.alloc(0);
  for (const [no, v] of readFields(body.subarray(4))) {
    if (no === 1) {
      for (const [n, x] of readFields(asBuffer(v, 'typeMeta'))) {
        if (n === 1) apiVersion = utf8(asBuffer(x, 'typeMeta.apiVersion'), 'typeMeta.apiVersion');
        if (n === 2) kind = utf8(asBuffer(x, 'typeMeta.kind'), 'typeMeta.kind');
      }
    } else if (no === 2) raw = asBuffer(v, 'raw');
    else if (no === 3) {
      const encoding = utf8(asBuffer(v, 'contentEncoding'), 'contentEncoding');
      if (encoding !== '') throw bad(`content encoding ${JSON.stringify(encoding)} is not supported`);
    }
  }
  const schema = schemaFor(apiVersion, kind);
  if (!schema) {
    throw new StowageError(
      'UnsupportedMediaType',
      `protobuf bodies are accepted for ${[...PROTOBUF_KINDS.keys()].filter((k) => !/(List|\/Status|\/DeleteOptions)$/.test(k)).join(', ')} and DeleteOptions; send ${apiVersion}/${kind} as application/json or application/yaml`,
    );
  }
  return { apiVersion, kind, ...decodeMessage(raw, schema, kind) };
}

// Reading the protobuf bodies kubectl sends for its typed commands (`kubectl create secret
// generic`, `kubectl create namespace`): the `k8s\0` envelope around a runtime.Unknown,
// whose raw bytes are the object (k8s.io/api/core/v1/generated.proto). Only the kinds and
// fields those commands send are read; unknown fields are skipped; any malformed input is
// a 400. Field numbers below are those of the .proto files.
import { StowageError } from '../domain/errors';

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

function bad(why: string): StowageError {
  return new StowageError('BadRequest', `the protobuf request body is malformed: ${why}`);
}

interface Field {
  no: number;
  wire: number;
  /** Varint value (wire 0) or the bytes (wire 2). */
  value: bigint | Buffer;
}

function fields(buf: Buffer): Field[] {
  const out: Field[] = [];
  let i = 0;
  const varint = (): bigint => {
    let shift = 0n;
    let v = 0n;
    for (let n = 0; n < 10; n++) {
      if (i >= buf.length) throw bad('truncated varint');
      const b = buf[i++]!;
      v |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return v;
      shift += 7n;
    }
    throw bad('varint too long');
  };
  while (i < buf.length) {
    const tag = varint();
    const no = Number(tag >> 3n);
    const wire = Number(tag & 7n);
    if (wire === 0) out.push({ no, wire, value: varint() });
    else if (wire === 2) {
      const len = Number(varint());
      if (len > buf.length - i) throw bad('length past the end');
      out.push({ no, wire, value: buf.subarray(i, i + len) });
      i += len;
    } else if (wire === 1) i += 8;
    else if (wire === 5) i += 4;
    else throw bad(`wire type ${wire}`);
    if (i > buf.length) throw bad('truncated field');
  }
  return out;
}

const bytesOf = (f: Field): Buffer => {
  if (f.wire !== 2) throw bad(`field ${f.no} is not length-delimited`);
  return f.value as Buffer;
};
const str = (f: Field): string => bytesOf(f).toString('utf8');

function mapEntry(f: Field): [string, Buffer] {
  let key = '';
  let value: Buffer = Buffer.alloc(0);
  for (const e of fields(bytesOf(f))) {
    if (e.no === 1) key = str(e);
    else if (e.no === 2) value = bytesOf(e);
  }
  return [key, value];
}

function stringMap(fs: Field[], no: number): Record<string, string> | undefined {
  const entries = fs.filter((f) => f.no === no).map(mapEntry);
  return entries.length ? Object.fromEntries(entries.map(([k, v]) => [k, v.toString('utf8')])) : undefined;
}

function objectMeta(buf: Buffer): Record<string, unknown> {
  const fs = fields(buf);
  const meta: Record<string, unknown> = {};
  const names: Record<number, string> = { 1: 'name', 2: 'generateName', 3: 'namespace', 5: 'uid', 6: 'resourceVersion' };
  for (const f of fs) if (names[f.no]) meta[names[f.no]!] = str(f);
  const labels = stringMap(fs, 11);
  if (labels) meta.labels = labels;
  const annotations = stringMap(fs, 12);
  if (annotations) meta.annotations = annotations;
  const finalizers = fs.filter((f) => f.no === 14).map(str);
  if (finalizers.length) meta.finalizers = finalizers;
  return meta;
}

/** The fields of each kind after metadata (field 1), by kind. */
const KINDS: Record<string, (fs: Field[], o: Record<string, unknown>) => void> = {
  Secret(fs, o) {
    const data = fs.filter((f) => f.no === 2).map(mapEntry);
    if (data.length) o.data = Object.fromEntries(data.map(([k, v]) => [k, v.toString('base64')]));
    const type = fs.find((f) => f.no === 3);
    if (type) o.type = str(type);
    const stringData = stringMap(fs, 4);
    if (stringData) o.stringData = stringData;
    const immutable = fs.find((f) => f.no === 5 && f.wire === 0);
    if (immutable) o.immutable = immutable.value !== 0n;
  },
  Namespace(fs, o) {
    const spec = fs.find((f) => f.no === 2);
    if (spec) {
      const finalizers = fields(bytesOf(spec)).filter((f) => f.no === 1).map(str);
      o.spec = finalizers.length ? { finalizers } : {};
    }
  },
};

/** A Kubernetes protobuf body as the JSON object it stands for. */
export function decodeProtobufObject(body: Buffer): Record<string, unknown> {
  if (body.length < MAGIC.length || !body.subarray(0, MAGIC.length).equals(MAGIC)) throw bad('no k8s envelope');
  const unknown = fields(body.subarray(MAGIC.length));
  let apiVersion = '';
  let kind = '';
  let raw: Buffer | undefined;
  for (const f of unknown) {
    if (f.no === 1) {
      for (const t of fields(bytesOf(f))) {
        if (t.no === 1) apiVersion = str(t);
        else if (t.no === 2) kind = str(t);
      }
    } else if (f.no === 2) raw = bytesOf(f);
  }
  const decode = KINDS[kind];
  if (!decode || apiVersion !== 'v1') {
    throw new StowageError('UnsupportedMediaType', `protobuf bodies are read for v1 ${Object.keys(KINDS).join(', ')} only; send ${kind || 'this object'} as JSON or YAML`);
  }
  if (!raw) throw bad('no object');
  const fs = fields(raw);
  const o: Record<string, unknown> = { apiVersion, kind };
  const meta = fs.find((f) => f.no === 1);
  o.metadata = meta ? objectMeta(bytesOf(meta)) : {};
  decode(fs, o);
  return o;
}

// Decodes Kubernetes protobuf request bodies (`application/vnd.kubernetes.protobuf`) into
// the JSON shape the rest of the API takes. kubectl sends protobuf for its typed commands
// (`kubectl create namespace`, `create secret`, `create configmap`, `create quota`, `auth can-i`,
// `auth whoami`). The envelope is the 4-byte magic "k8s\0" and a runtime.Unknown message
// (typeMeta = 1 {apiVersion = 1, kind = 2}, raw = 2, contentEncoding = 3, contentType = 4);
// `raw` is the typed object, decoded with the field numbers of the upstream generated.proto
// files for the kinds listed below. Anything else is refused with 415, never guessed.
import { StowageError } from '../domain/errors';

type Field =
  | { name: string; type: 'string' | 'bool' | 'int' | 'bytes' }
  | { name: string; type: 'strings' }
  | { name: string; type: 'message' | 'messages'; schema: Schema }
  | { name: string; type: 'map'; values: 'string' | 'bytes' | 'quantity' }
  | { name: string; type: 'quantity' }
  | { name: string; type: 'time' };
type Schema = Record<number, Field>;

const ownerReference: Schema = {
  1: { name: 'kind', type: 'string' },
  3: { name: 'name', type: 'string' },
  4: { name: 'uid', type: 'string' },
  5: { name: 'apiVersion', type: 'string' },
  6: { name: 'controller', type: 'bool' },
  7: { name: 'blockOwnerDeletion', type: 'bool' },
};

// k8s.io/apimachinery/pkg/apis/meta/v1 ObjectMeta (managedFields are not taken from clients here).
const objectMeta: Schema = {
  1: { name: 'name', type: 'string' },
  2: { name: 'generateName', type: 'string' },
  3: { name: 'namespace', type: 'string' },
  5: { name: 'uid', type: 'string' },
  6: { name: 'resourceVersion', type: 'string' },
  7: { name: 'generation', type: 'int' },
  8: { name: 'creationTimestamp', type: 'time' },
  11: { name: 'labels', type: 'map', values: 'string' },
  12: { name: 'annotations', type: 'map', values: 'string' },
  13: { name: 'ownerReferences', type: 'messages', schema: ownerReference },
  14: { name: 'finalizers', type: 'strings' },
};

const resourceAttributes: Schema = {
  1: { name: 'namespace', type: 'string' },
  2: { name: 'verb', type: 'string' },
  3: { name: 'group', type: 'string' },
  4: { name: 'version', type: 'string' },
  5: { name: 'resource', type: 'string' },
  6: { name: 'subresource', type: 'string' },
  7: { name: 'name', type: 'string' },
};

const nonResourceAttributes: Schema = {
  1: { name: 'path', type: 'string' },
  2: { name: 'verb', type: 'string' },
};

// core/v1 ResourceQuota (`kubectl create quota`): quantities are resource.Quantity {string = 1}.
const resourceQuotaSpec: Schema = {
  1: { name: 'hard', type: 'map', values: 'quantity' },
  2: { name: 'scopes', type: 'strings' },
  3: {
    name: 'scopeSelector',
    type: 'message',
    schema: {
      1: {
        name: 'matchExpressions',
        type: 'messages',
        schema: { 1: { name: 'scopeName', type: 'string' }, 2: { name: 'operator', type: 'string' }, 3: { name: 'values', type: 'strings' } },
      },
    },
  },
};

/** The kinds Stowage accepts as protobuf, by apiVersion/kind. */
const KINDS: Record<string, Schema> = {
  'v1/Namespace': {
    1: { name: 'metadata', type: 'message', schema: objectMeta },
    2: { name: 'spec', type: 'message', schema: { 1: { name: 'finalizers', type: 'strings' } } },
  },
  'v1/ConfigMap': {
    1: { name: 'metadata', type: 'message', schema: objectMeta },
    2: { name: 'data', type: 'map', values: 'string' },
    3: { name: 'binaryData', type: 'map', values: 'bytes' },
    4: { name: 'immutable', type: 'bool' },
  },
  'v1/Secret': {
    1: { name: 'metadata', type: 'message', schema: objectMeta },
    2: { name: 'data', type: 'map', values: 'bytes' },
    3: { name: 'type', type: 'string' },
    4: { name: 'stringData', type: 'map', values: 'string' },
    5: { name: 'immutable', type: 'bool' },
  },
  'v1/ResourceQuota': {
    1: { name: 'metadata', type: 'message', schema: objectMeta },
    2: { name: 'spec', type: 'message', schema: resourceQuotaSpec },
    3: {
      name: 'status',
      type: 'message',
      schema: { 1: { name: 'hard', type: 'map', values: 'quantity' }, 2: { name: 'used', type: 'map', values: 'quantity' } },
    },
  },
  'authorization.k8s.io/v1/SelfSubjectAccessReview': {
    1: { name: 'metadata', type: 'message', schema: objectMeta },
    2: {
      name: 'spec',
      type: 'message',
      schema: {
        1: { name: 'resourceAttributes', type: 'message', schema: resourceAttributes },
        2: { name: 'nonResourceAttributes', type: 'message', schema: nonResourceAttributes },
      },
    },
  },
  'authentication.k8s.io/v1/SelfSubjectReview': {
    1: { name: 'metadata', type: 'message', schema: objectMeta },
  },
};

export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

const bad = (message: string) => new StowageError('BadRequest', `the protobuf request body is malformed: ${message}`);

/** Reads one protobuf message's fields: [field number, wire type, value]. */
function* fields(buf: Buffer): Generator<[number, number, bigint | Buffer]> {
  let pos = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (pos >= buf.length) throw bad('truncated varint');
      const b = buf[pos++];
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
      if (shift > 63n) throw bad('varint too long');
    }
  };
  while (pos < buf.length) {
    const key = varint();
    const field = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (field === 0) throw bad('field number 0');
    if (wire === 0) yield [field, wire, varint()];
    else if (wire === 2) {
      const len = Number(varint());
      if (pos + len > buf.length) throw bad('truncated field');
      yield [field, wire, buf.subarray(pos, pos + len)];
      pos += len;
    } else if (wire === 1 || wire === 5) {
      pos += wire === 1 ? 8 : 4;
      if (pos > buf.length) throw bad('truncated fixed-width field');
    } else throw bad(`unsupported wire type ${wire}`);
  }
}

function asBuffer(v: bigint | Buffer, what: string): Buffer {
  if (!Buffer.isBuffer(v)) throw bad(`${what} must be length-delimited`);
  return v;
}

function utf8(b: Buffer, what: string): string {
  const s = b.toString('utf8');
  if (!Buffer.from(s, 'utf8').equals(b)) throw bad(`${what} is not valid UTF-8`);
  return s;
}

/** Sets a key as an own data property, so names such as "__proto__" stay plain data. */
function put(o: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
}

function decodeMessage(buf: Buffer, schema: Schema, path: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [num, , value] of fields(buf)) {
    const f = schema[num];
    if (!f) continue; // unknown fields are skipped, as protobuf readers do
    const at = `${path}.${f.name}`;
    switch (f.type) {
      case 'string':
        put(out, f.name, utf8(asBuffer(value, at), at));
        break;
      case 'bytes':
        put(out, f.name, asBuffer(value, at).toString('base64'));
        break;
      case 'bool':
        if (Buffer.isBuffer(value)) throw bad(`${at} must be a varint`);
        put(out, f.name, value !== 0n);
        break;
      case 'int':
        if (Buffer.isBuffer(value)) throw bad(`${at} must be a varint`);
        put(out, f.name, Number(BigInt.asIntN(64, value)));
        break;
      case 'strings': {
        const list = (out[f.name] as string[] | undefined) ?? [];
        list.push(utf8(asBuffer(value, at), at));
        put(out, f.name, list);
        break;
      }
      case 'message':
        put(out, f.name, decodeMessage(asBuffer(value, at), f.schema, at));
        break;
      case 'messages': {
        const list = (out[f.name] as unknown[] | undefined) ?? [];
        list.push(decodeMessage(asBuffer(value, at), f.schema, at));
        put(out, f.name, list);
        break;
      }
      case 'quantity': {
        const q = decodeMessage(asBuffer(value, at), { 1: { name: 'string', type: 'string' } }, at);
        put(out, f.name, String(q.string ?? ''));
        break;
      }
      case 'map': {
        const entry = decodeMessage(asBuffer(value, at), { 1: { name: 'key', type: 'string' }, 2: { name: 'value', type: f.values } }, at);
        const map = (out[f.name] as Record<string, unknown> | undefined) ?? {};
        put(map, String(entry.key ?? ''), entry.value ?? '');
        put(out, f.name, map);
        break;
      }
      case 'time': {
        // meta/v1 Time: {seconds = 1 (int64), nanos = 2 (int32)}
        const t = decodeMessage(asBuffer(value, at), { 1: { name: 'seconds', type: 'int' } }, at);
        put(out, f.name, new Date(Number(t.seconds ?? 0) * 1000).toISOString().replace('.000Z', 'Z'));
        break;
      }
    }
  }
  return out;
}

/** A protobuf request body as the JSON object it stands for. */
export function decodeKubeProtobuf(body: Buffer): Record<string, unknown> {
  if (body.length < 4 || !body.subarray(0, 4).equals(MAGIC)) throw bad('it does not start with the Kubernetes protobuf magic');
  const unknown = decodeMessage(body.subarray(4), {
    1: { name: 'typeMeta', type: 'message', schema: { 1: { name: 'apiVersion', type: 'string' }, 2: { name: 'kind', type: 'string' } } },
    2: { name: 'raw', type: 'bytes' },
    3: { name: 'contentEncoding', type: 'string' },
  }, 'Unknown');
  const typeMeta = (unknown.typeMeta ?? {}) as { apiVersion?: string; kind?: string };
  if (unknown.contentEncoding) throw bad(`content encoding ${JSON.stringify(unknown.contentEncoding)} is not supported`);
  const key = `${typeMeta.apiVersion ?? ''}/${typeMeta.kind ?? ''}`;
  const schema = Object.hasOwn(KINDS, key) ? KINDS[key] : undefined;
  if (!schema) {
    throw new StowageError(
      'UnsupportedMediaType',
      `protobuf bodies are accepted for ${Object.keys(KINDS).join(', ')}; send ${key} as application/json or application/yaml`,
    );
  }
  const raw = Buffer.from(String(unknown.raw ?? ''), 'base64');
  return { apiVersion: typeMeta.apiVersion, kind: typeMeta.kind, ...decodeMessage(raw, schema, typeMeta.kind ?? '') };
}

// The protobuf field tables (protobuf-schema.ts) are a second description of each kind,
// beside its zod schema (resources/<kind>/schema.ts). This walks both, field by field, and
// fails when a field is in one and not in the other, or has another type there, unless
// the difference is on the allow-list below with its reason. A loose zod object (kept as
// sent) may miss fields protobuf has; a field zod has and protobuf lacks makes an object
// that uses it JSON only (protobuf-codec.ts, Unrepresentable), so each one is listed.
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { strategies } from '../resources/registry';
import type { Field, Schema } from './protobuf-fields';
import { JSON_ONLY_KINDS, PROTOBUF_KINDS } from './protobuf-schema';

type Zod = z.core.$ZodType;
type Def = z.core.$ZodTypeDef & {
  innerType?: Zod;
  shape?: Record<string, Zod>;
  catchall?: Zod;
  element?: Zod;
  valueType?: Zod;
  options?: Zod[];
};

const defOf = (t: Zod): Def => t._zod.def;

/** Without `.optional()` / `.nullable()` / `.nullish()`. */
function unwrap(t: Zod): Zod {
  let d = defOf(t);
  while ((d.type === 'optional' || d.type === 'nullable') && d.innerType) {
    t = d.innerType;
    d = defOf(t);
  }
  return t;
}

/** A message's fields by JSON name, inline (embedded) messages' fields included. */
function fieldsOf(schema: Schema): Map<string, Field> {
  const out = new Map<string, Field>();
  for (const f of schema) {
    if (f.type === 'inline') for (const [k, v] of fieldsOf(f.schema ?? [])) out.set(k, v);
    else out.set(f.name, f);
  }
  return out;
}

/** The zod shape a protobuf field type corresponds to. */
const expected: Record<Field['type'], string> = {
  string: 'string',
  time: 'string',
  microTime: 'string',
  fieldsV1: 'object',
  bool: 'boolean',
  int32: 'number',
  int64: 'number',
  quantity: 'quantity',
  intOrString: 'quantity',
  strings: 'string[]',
  message: 'object',
  messages: 'object[]',
  map: 'record',
  inline: 'object',
};

/** What a zod type is, in the words of the table above. */
function shapeOf(t: Zod): string {
  const d = defOf(unwrap(t));
  if (d.type === 'array' && d.element) {
    const e = shapeOf(d.element);
    return e === 'string' ? 'string[]' : e === 'object' || e === 'open' ? 'object[]' : `${e}[]`;
  }
  if (d.type === 'union' && (d.options ?? []).map(shapeOf).sort().join('|') === 'number|string') return 'quantity';
  if (d.type === 'record') return defOf(d.valueType!).type === 'unknown' ? 'open' : 'record';
  return d.type;
}

const isOpen = (t: Zod) => shapeOf(t) === 'open';
const isLoose = (d: Def) => d.catchall !== undefined && defOf(d.catchall).type !== 'never';

/** Every difference between a zod object and a protobuf message, as "path: what". */
function differences(zod: Zod, table: Schema, path = ''): string[] {
  const d = defOf(unwrap(zod));
  if (d.type !== 'object' || !d.shape) return [`${path || '.'}: zod has ${shapeOf(zod)}, protobuf a message`];
  const out: string[] = [];
  const pb = fieldsOf(table);
  const at = (k: string) => (path ? `${path}.${k}` : k);
  for (const [k, t] of Object.entries(d.shape)) {
    // apiVersion and kind travel in the protobuf envelope (runtime.Unknown), not in the message.
    if (!path && (k === 'apiVersion' || k === 'kind')) continue;
    const f = pb.get(k);
    if (!f) {
      out.push(`${at(k)}: only in zod`);
      continue;
    }
    const got = shapeOf(t);
    const want = expected[f.type];
    // A map of bytes is base64 strings in JSON; a map of quantities is strings (or numbers).
    const sameShape = got === want || (want === 'record' && got === 'open') || (want === 'object' && (got === 'open' || got === 'record'));
    if (!sameShape) out.push(`${at(k)}: zod has ${got}, protobuf ${f.type}`);
    else if (f.schema && !isOpen(t) && got !== 'record') {
      const inner = got === 'object[]' ? defOf(unwrap(t)).element! : t;
      out.push(...differences(inner, f.schema, at(k)));
    }
  }
  for (const k of pb.keys()) {
    if (!(k in d.shape)) out.push(`${at(k)}: only in protobuf${isLoose(d) ? ', kept as sent' : ''}`);
  }
  return out;
}

/**
 * Known differences, each with its reason. An entry that no longer differs fails the test
 * too, so the list stays true.
 */
const allowed: Record<string, string[]> = {
  // Node fields Stowage accepts (kept as sent) but has no table for: such a node is answered as JSON.
  Node: [
    'status.config: only in zod', // NodeConfigStatus (dynamic kubelet config, removed upstream): kept as sent
    'status.runtimeHandlers: only in zod', // NodeRuntimeHandler list (1.30): kept as sent
    'status.features: only in zod', // NodeFeatures (1.31): kept as sent
    'spec.configSource: only in zod', // NodeConfigSource (deprecated): kept as sent
  ],
  // Container statuses are kept as sent (resources/pod/schema.ts) and have no table: a pod
  // that carries them is answered as JSON.
  Pod: ['status.containerStatuses: only in zod', 'status.initContainerStatuses: only in zod'],
};

/**
 * Fields protobuf has inside objects the zod schema keeps as sent (looseObject): named
 * here, space-separated by the object's path, so that a field dropped from a loose zod
 * object is noticed as well. `*` applies to every kind.
 */
const keptAsSent: Record<string, Record<string, string>> = {
  // Server-side apply bookkeeping: kept as sent, never interpreted (resources/metadata.ts).
  '*': { 'metadata.managedFields': 'manager operation apiVersion time fieldsType fieldsV1 subresource' },
  // What the kubelet reports and Stowage never reads.
  Node: {
    'status.daemonEndpoints': 'kubeletEndpoint',
    'status.nodeInfo': 'machineID systemUUID bootID kernelVersion osImage containerRuntimeVersion kubeletVersion kubeProxyVersion operatingSystem architecture',
    'status.images': 'names sizeBytes',
    'status.volumesAttached': 'name devicePath',
  },
  // Stowage runs no containers: everything but the storage-relevant subset is kept as sent.
  Pod: {
    spec: 'terminationGracePeriodSeconds activeDeadlineSeconds dnsPolicy serviceAccountName serviceAccount hostNetwork securityContext imagePullSecrets hostname subdomain automountServiceAccountToken tolerations priorityClassName priority enableServiceLinks',
    'spec.volumes': 'hostPath emptyDir secret configMap',
    'spec.containers': 'command args workingDir ports env resources livenessProbe readinessProbe terminationMessagePath imagePullPolicy securityContext stdin tty envFrom terminationMessagePolicy startupProbe',
    'spec.containers.volumeMounts': 'mountPropagation subPathExpr',
    'spec.initContainers': 'command args workingDir ports env resources livenessProbe readinessProbe terminationMessagePath imagePullPolicy securityContext stdin tty envFrom terminationMessagePolicy startupProbe',
    'spec.initContainers.volumeMounts': 'mountPropagation subPathExpr',
  },
};

function allowedFor(kind: string): string[] {
  const kept = Object.entries({ ...keptAsSent['*'], ...keptAsSent[kind] }).flatMap(([path, names]) =>
    names.split(' ').map((n) => `${path}.${n}: only in protobuf, kept as sent`),
  );
  return [...(allowed[kind] ?? []), ...kept];
}

const kinds = strategies.filter((s) => !JSON_ONLY_KINDS.has(`${s.apiVersion}/${s.kind}`)).map((s) => ({ kind: s.kind, key: `${s.apiVersion}/${s.kind}`, schema: s.schema }));

describe('protobuf tables agree with the zod schemas', () => {
  it.each(kinds)('$kind', ({ kind, key, schema }) => {
    const table = PROTOBUF_KINDS.get(key);
    expect(table, `no protobuf table for ${key}`).toBeDefined();
    expect(schema, `no zod schema for ${kind}`).toBeDefined();
    const diffs = differences(schema!, table!);
    const allow = allowedFor(kind);
    expect(diffs.filter((x) => !allow.includes(x)), 'differences not on the allow-list').toEqual([]);
    expect(allow.filter((x) => !diffs.includes(x)), 'allow-list entries that no longer differ').toEqual([]);
  });

  it('every kind with a table has a schema, and the other way round', () => {
    const tabled = [...PROTOBUF_KINDS.keys()].filter((k) => !/List$|\/(Status|DeleteOptions|SelfSubjectAccessReview|SelfSubjectReview)$/.test(k));
    expect(tabled.sort()).toEqual(kinds.map((k) => k.key).sort());
  });
});

describe('the walk itself', () => {
  const pv = strategies.find((s) => s.kind === 'PersistentVolume')!.schema!;
  const table = PROTOBUF_KINDS.get('v1/PersistentVolume')!;
  const without = (s: Schema, name: string): Schema => s.filter((f) => f.name !== name);
  const withSpec = (fn: (spec: Schema) => Schema): Schema =>
    table.map((f) => (f.name === 'spec' ? { ...f, schema: fn(f.schema!) } : f));
  const unexpected = (zod: Zod, t: Schema) => differences(zod, t).filter((x) => !allowedFor('PersistentVolume').includes(x));

  it('finds nothing in the tables as they are', () => {
    expect(unexpected(pv, table)).toEqual([]);
  });

  it('finds a field the table lost', () => {
    expect(unexpected(pv, withSpec((spec) => without(spec, 'claimRef')))).toEqual(['spec.claimRef: only in zod']);
  });

  it('finds a field the schema lost, deep and inline', () => {
    const spec = pv._zod.def as unknown as { shape: Record<string, Zod> };
    const specType = unwrap(spec.shape.spec) as z.ZodObject;
    const lost = (pv as z.ZodObject).extend({ spec: specType.omit({ nfs: true }).nullish() });
    expect(unexpected(lost, table)).toEqual(['spec.nfs: only in protobuf']);
  });

  it('finds a field of another type', () => {
    const changed = withSpec((spec) => spec.map((f) => (f.name === 'storageClassName' ? { ...f, type: 'bool' as const } : f)));
    expect(unexpected(pv, changed)).toEqual(['spec.storageClassName: zod has string, protobuf bool']);
  });
});

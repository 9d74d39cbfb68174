// Generators of hostile input for the fuzz suite: strings that break parsers and
// databases, names, paths, query parameters, bodies of every kind, patches of every type,
// content types and encodings. Mostly-valid objects with hostile parts, so that some
// writes succeed and "nothing invalid is stored" is tested, not only refusals.
import fc from 'fast-check';
import { stringify as toYaml } from 'yaml';

/** Strings known to hurt: NUL, prototype names, traversal, escapes, huge and odd unicode. */
export const nastyString = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('\u0000', 'x\u0000', '__proto__', 'constructor', '1e65', '\uD800') },
  fc.constantFrom(
    '',
    '\u0000',
    'a\u0000b',
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'hasOwnProperty',
    '..',
    '../../etc/passwd',
    '%00',
    '%',
    '%zz',
    '//[',
    '\\',
    '\uD800',
    '\uFFFF',
    '\u202E',
    'é',
    '😀',
    ' ',
    '\n',
    '$patch',
    '$retainKeys',
    '$setElementOrder/finalizers',
    '$deleteFromPrimitiveList/finalizers',
    'a'.repeat(300),
    '1e999999999999',
    '1e65',
    'Gi',
    '+',
    '.',
    '-1',
    '9223372036854775808',
    'null',
    'true',
    '!!binary',
    '{',
    'a=b,c!=d',
    'x in (a,b',
  ),
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 8 }),
);

/** Usually `good`, sometimes a nasty string: objects that are mostly valid, so some writes land. */
function mostly<T>(good: fc.Arbitrary<T>): fc.Arbitrary<T | string> {
  return fc.oneof({ weight: 6, arbitrary: good }, { weight: 1, arbitrary: nastyString });
}

export const goodName = fc.constantFrom('fz-a', 'fz-b', 'fz-c', 'existing');
export const name = fc.oneof({ weight: 5, arbitrary: goodName }, { weight: 1, arbitrary: nastyString });
export const namespace = fc.oneof({ weight: 3, arbitrary: fc.constantFrom('default', 'team-a', 'other') }, { weight: 1, arbitrary: nastyString });

export const quantity = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('1Gi', '10Mi', '5Gi') },
  fc.constantFrom('0', '1e65', '1e308', 'Gi', '+', '.', '1e999999999999', '-1', '9Ei', '100E', '0.5Ki'),
  fc.double(),
  nastyString,
);

export const stringMap = fc.dictionary(mostly(fc.constantFrom('app', 'tier', 'example.com/x')), mostly(fc.constantFrom('a', 'b', '')), {
  maxKeys: 3,
});

/** Any JSON value, sometimes nested deeper than anything accepts. */
export const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  { weight: 1, arbitrary: fc.integer({ min: 90, max: 400 }).map((d) => nest(d)) },
  { weight: 1, arbitrary: fc.dictionary(nastyString, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }) },
);

function nest(depth: number): unknown {
  let v: unknown = 'x';
  for (let i = 0; i < depth; i++) v = i % 3 === 0 ? [v] : { a: v };
  return v;
}

const meta = fc.record(
  { name, labels: stringMap, annotations: stringMap, finalizers: fc.array(mostly(fc.constant('example.com/f')), { maxLength: 2 }), resourceVersion: fc.oneof(fc.constant('1'), nastyString) },
  { requiredKeys: ['name'] },
);

const pv = fc.record(
  {
    apiVersion: fc.constant('v1'),
    kind: fc.constant('PersistentVolume'),
    metadata: meta,
    spec: fc.record(
      {
        capacity: fc.record({ storage: quantity }),
        accessModes: fc.array(mostly(fc.constantFrom('ReadWriteOnce', 'ReadOnlyMany')), { minLength: 1, maxLength: 2 }),
        hostPath: fc.record({ path: mostly(fc.constant('/tmp/x')) }),
        storageClassName: mostly(fc.constant('fast')),
        persistentVolumeReclaimPolicy: mostly(fc.constantFrom('Retain', 'Delete')),
      },
      { requiredKeys: ['capacity', 'accessModes', 'hostPath'] },
    ),
  },
  { requiredKeys: ['apiVersion', 'kind', 'metadata', 'spec'] },
);

const pvc = fc.record({
  apiVersion: fc.constant('v1'),
  kind: fc.constant('PersistentVolumeClaim'),
  metadata: meta,
  spec: fc.record(
    {
      accessModes: fc.array(mostly(fc.constant('ReadWriteOnce')), { minLength: 1, maxLength: 2 }),
      resources: fc.record({ requests: fc.record({ storage: quantity }), limits: fc.record({ storage: quantity }) }, { requiredKeys: ['requests'] }),
      volumeName: mostly(fc.constant('existing')),
      storageClassName: mostly(fc.constant('fast')),
      selector: fc.record({ matchLabels: stringMap }),
    },
    { requiredKeys: ['accessModes', 'resources'] },
  ),
});

const sc = fc.record(
  {
    apiVersion: fc.constant('storage.k8s.io/v1'),
    kind: fc.constant('StorageClass'),
    metadata: meta,
    provisioner: mostly(fc.constantFrom('stowage.io/host-path', 'example.com/x')),
    parameters: stringMap,
    reclaimPolicy: mostly(fc.constantFrom('Retain', 'Delete')),
    volumeBindingMode: mostly(fc.constantFrom('Immediate', 'WaitForFirstConsumer')),
  },
  { requiredKeys: ['apiVersion', 'kind', 'metadata', 'provisioner'] },
);

const ns = fc.record({ apiVersion: fc.constant('v1'), kind: fc.constant('Namespace'), metadata: meta });

export const kubeObject = fc.oneof(pv, pvc, sc, ns);
const objectFor: Record<string, fc.Arbitrary<unknown>> = { persistentvolumes: pv, persistentvolumeclaims: pvc, storageclasses: sc, namespaces: ns };

export const jsonPatch = fc.array(
  fc.record(
    {
      op: fc.oneof(fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test'), nastyString),
      path: fc.oneof(
        fc.constantFrom('/metadata/labels/a', '/metadata/labels', '/spec/capacity/storage', '/__proto__/polluted', '/metadata/constructor/polluted', '/metadata/finalizers/-', '/metadata/finalizers/0', '', '/'),
        nastyString.map((s) => `/${s}`),
        nastyString,
      ),
      from: fc.constantFrom('/metadata/labels', '/metadata/constructor', '/spec', ''),
      value: anyJson,
    },
    { requiredKeys: ['op', 'path'] },
  ),
  { maxLength: 4 },
);

export const mergePatch = fc.oneof(
  fc.record({ metadata: fc.record({ labels: stringMap, annotations: stringMap, finalizers: fc.array(nastyString, { maxLength: 2 }) }, { requiredKeys: [] }) }),
  fc.record({ spec: fc.record({ capacity: fc.record({ storage: quantity }) }) }),
  fc.constant(JSON.parse('{"__proto__":{"polluted":"1"}}') as unknown),
  fc.constant(JSON.parse('{"metadata":{"labels":{"constructor":{"prototype":{"polluted":"1"}}}}}') as unknown),
  fc.constant({ metadata: { $patch: 'replace' } }),
  fc.constant({ metadata: { finalizers: [{ $patch: 'delete' }] } }),
  fc.constant({ metadata: { '$setElementOrder/finalizers': ['a'], finalizers: ['a'] } }),
  anyJson,
);

export const CONTENT_TYPES = [
  'application/json',
  'application/yaml',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/json-patch+json',
  'application/apply-patch+yaml',
  'application/vnd.kubernetes.protobuf',
  'text/plain',
  'application/json; charset=utf-16',
  'multipart/form-data; boundary=x',
  '',
];

export type Encoded = { contentType: string; body: Buffer | undefined; encoding?: string };

/** A body and how it is labelled: JSON, YAML, patches, raw bytes, or mislabelled. */
export const body: fc.Arbitrary<Encoded> = fc.oneof(
  kubeObject.map((o) => ({ contentType: 'application/json', body: Buffer.from(JSON.stringify(o)) })),
  kubeObject.map((o) => ({ contentType: 'application/yaml', body: Buffer.from(safeYaml(o)) })),
  mergePatch.map((p) => ({ contentType: 'application/merge-patch+json', body: Buffer.from(JSON.stringify(p)) })),
  mergePatch.map((p) => ({ contentType: 'application/strategic-merge-patch+json', body: Buffer.from(JSON.stringify(p)) })),
  jsonPatch.map((p) => ({ contentType: 'application/json-patch+json', body: Buffer.from(JSON.stringify(p)) })),
  fc.constantFrom(
    'a: !!binary aGVsbG8=',
    'kind: !Evil x',
    '__proto__: {polluted: "1"}',
    'a: &x [1]\nb: [*x, *x, *x]',
    '{"a":1,"a":2}',
    '[' .repeat(3000),
  ).map((t) => ({ contentType: 'application/yaml', body: Buffer.from(t) })),
  fc.tuple(fc.constantFrom(...CONTENT_TYPES), fc.uint8Array({ maxLength: 64 })).map(([contentType, bytes]) => ({ contentType, body: Buffer.from(bytes) })),
  fc.tuple(fc.constantFrom(...CONTENT_TYPES), anyJson).map(([contentType, v]) => ({ contentType, body: Buffer.from(JSON.stringify(v) ?? '') })),
  kubeObject.map((o) => ({ contentType: 'application/json', body: Buffer.from(JSON.stringify(o)), encoding: 'gzip' })),
  fc.constant({ contentType: 'application/json', body: undefined }),
);

/** Percent-encodes the UTF-8 bytes of any string (lone surrogates included, as U+FFFD). */
export function enc(s: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b);
    out += /[A-Za-z0-9\-_.~]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

function safeYaml(v: unknown): string {
  try {
    return toYaml(v);
  } catch {
    return '{}';
  }
}

export const PLURALS = [
  { prefix: '/api/v1', plural: 'persistentvolumes', namespaced: false },
  { prefix: '/api/v1', plural: 'persistentvolumeclaims', namespaced: true },
  { prefix: '/api/v1', plural: 'namespaces', namespaced: false },
  { prefix: '/api/v1', plural: 'nodes', namespaced: false },
  { prefix: '/api/v1', plural: 'events', namespaced: true },
  { prefix: '/apis/storage.k8s.io/v1', plural: 'storageclasses', namespaced: false },
];

const segment = fc.oneof({ weight: 4, arbitrary: name.map((s) => enc(s)) }, { weight: 1, arbitrary: fc.constantFrom('%00', '%', '%zz', '..', '%2e%2e', '%2F', 'x%00y') });

/** A path that usually names a resource, sometimes an object, a subresource, or nothing sensible. */
export const path = fc.oneof(
  { weight: 6, arbitrary: fc
    .tuple(fc.constantFrom(...PLURALS), fc.option(namespace, { nil: undefined }), fc.option(segment, { nil: undefined }), fc.option(fc.constantFrom('status', 'finalize', 'x'), { nil: undefined, freq: 4 }))
    .map(([p, ns, n, sub]) => {
      const nsPart = p.namespaced && ns !== undefined ? `/namespaces/${enc(ns)}` : '';
      return `${p.prefix}${nsPart}/${p.plural}${n !== undefined ? `/${n}` : ''}${n !== undefined && sub ? `/${sub}` : ''}`;
    }) },
  { weight: 1, arbitrary: fc.constantFrom('/', '/api', '/apis', '/version', '/openapi/v2', '/api/v2', '/apis/x/v1', '/api/v1/pods', '/healthz/x', '/api/v1/namespaces/default/pods/x/log') },
  { weight: 1, arbitrary: fc.constantFrom('/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', '/apis/authentication.k8s.io/v1/selfsubjectreviews') },
  { weight: 1, arbitrary: fc.array(segment, { minLength: 1, maxLength: 5 }).map((s) => `/${s.join('/')}`) },
);

const QUERY_KEYS = ['labelSelector', 'fieldSelector', 'limit', 'continue', 'resourceVersion', 'resourceVersionMatch', 'dryRun', 'fieldValidation', 'propagationPolicy', 'gracePeriodSeconds', 'includeObject', 'allowWatchBookmarks', 'fieldManager'];

export const query = fc
  .array(
    fc.tuple(
      fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...QUERY_KEYS) }, { weight: 1, arbitrary: nastyString }),
      fc.oneof(
        fc.constantFrom('All', 'Strict', '1', '0', '-1', '99999999999999999999', '9007199254740993', 'a=b', 'a in (b)', 'metadata.name=x', 'Orphan', 'Exact', ''),
        nastyString,
        fc.constant(Buffer.from('{"rv":"x","ns":"","name":"a"}').toString('base64url')),
      ),
    ),
    { maxLength: 4 },
  )
  .map((pairs) => (pairs.length ? `?${pairs.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&')}` : ''));

export const ACCEPTS = [
  'application/json',
  'application/yaml',
  'application/json;as=Table;v=v1;g=meta.k8s.io',
  'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io',
  'application/vnd.kubernetes.protobuf',
  '*/*',
  'text/html',
  '',
];

export const ROLES = ['admin', 'developer', 'viewer', 'anonymous'] as const;
export type FuzzRole = (typeof ROLES)[number];

export interface RestCase {
  role: FuzzRole;
  method: string;
  path: string;
  accept: string;
  body: Encoded;
}

function encodings(objects: fc.Arbitrary<unknown>): fc.Arbitrary<Encoded> {
  return fc.oneof(
    { weight: 3, arbitrary: objects.map((o) => ({ contentType: 'application/json', body: Buffer.from(JSON.stringify(o)) })) },
    objects.map((o) => ({ contentType: 'application/yaml', body: Buffer.from(safeYaml(o)) })),
    objects.map((o) => ({ contentType: 'application/merge-patch+json', body: Buffer.from(JSON.stringify(o)) })),
    objects.map((o) => ({ contentType: 'application/strategic-merge-patch+json', body: Buffer.from(JSON.stringify(o)) })),
  );
}

/** A request on one resource: its path, a method, and (usually) a body of the path's kind. */
const resourceCase = fc.constantFrom(...PLURALS).chain((p) =>
  fc.record({
    method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE'),
    ns: fc.oneof({ weight: 8, arbitrary: fc.constantFrom('default', 'team-a', 'other') }, { weight: 1, arbitrary: nastyString }),
    name: fc.oneof({ weight: 5, arbitrary: goodName }, { weight: 1, arbitrary: nastyString }),
    sub: fc.oneof({ weight: 8, arbitrary: fc.constant(undefined) }, { weight: 2, arbitrary: fc.constant('status') }, { weight: 1, arbitrary: fc.constantFrom('finalize', 'x') }),
    body: fc.oneof({ weight: 3, arbitrary: encodings(objectFor[p.plural] ?? kubeObject) }, { weight: 2, arbitrary: body }),
    query: fc.oneof({ weight: 3, arbitrary: fc.constant('') }, { weight: 2, arbitrary: query }),
  }).map(({ method, ns, name: n, sub, body: b, query: q }) => {
    const nsPart = p.namespaced ? `/namespaces/${enc(ns)}` : '';
    const named = method !== 'POST' || n === 'existing';
    const tail = named ? `/${enc(n)}${sub ? `/${sub}` : ''}` : '';
    return { method, path: `${p.prefix}${nsPart}/${p.plural}${tail}${q}`, body: method === 'GET' || method === 'DELETE' ? { contentType: '', body: undefined } : b };
  }),
);

export const restCase: fc.Arbitrary<RestCase> = fc
  .record({
    role: fc.oneof({ weight: 3, arbitrary: fc.constant<FuzzRole>('admin') }, { weight: 2, arbitrary: fc.constantFrom(...ROLES) }),
    accept: fc.oneof({ weight: 4, arbitrary: fc.constant('application/json') }, { weight: 1, arbitrary: fc.constantFrom(...ACCEPTS) }),
    request: fc.oneof(
      { weight: 4, arbitrary: resourceCase },
      {
        weight: 1,
        arbitrary: fc.record({
          method: fc.oneof({ weight: 3, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE') }, { weight: 1, arbitrary: fc.constantFrom('HEAD', 'OPTIONS', 'TRACE', 'PROPFIND') }),
          path: fc.tuple(path, query).map(([pa, q]) => pa + q),
          body,
        }),
      },
    ),
  })
  .map(({ role, accept, request }) => ({ role, accept, ...request }));

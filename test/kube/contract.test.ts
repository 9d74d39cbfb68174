// API contract: bad requests of every kind answer a metav1.Status with the upstream reason
// and code, and write nothing (the change log's head does not move).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { apiClient, type ApiRequest } from './api-client';
import { DEV_NAMESPACE, startKubeHarness, type KubeHarness } from './harness';

let h: KubeHarness;
let api: ReturnType<typeof apiClient>;

const PVS = '/api/v1/persistentvolumes';
const CLAIMS = (ns: string) => `/api/v1/namespaces/${ns}/persistentvolumeclaims`;

const pv = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name },
  spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/x' }, ...extra },
});
const claim = (name: string, storage: unknown = '1Gi') => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } } },
});

beforeAll(async () => {
  h = await startKubeHarness({ maxBodyBytes: 256 * 1024 });
  api = apiClient(h);
  const r = await api({ method: 'POST', path: PVS, body: pv('existing') });
  expect(r.status).toBe(201);
});
afterAll(async () => {
  await h?.close();
});

interface BadCase extends ApiRequest {
  name: string;
  code: number;
  reason: string;
  message?: RegExp;
  causes?: string[];
}

const cases: BadCase[] = [
  { name: 'malformed JSON', method: 'POST', path: PVS, body: '{"apiVersion": "v1", "kind": ', code: 400, reason: 'BadRequest' },
  {
    name: 'a body that is not an object',
    method: 'POST',
    path: PVS,
    body: '[1, 2]',
    code: 400,
    reason: 'BadRequest',
  },
  {
    name: 'wrong kind for the path',
    method: 'POST',
    path: PVS,
    body: { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'sc' }, provisioner: 'x.io/y' },
    code: 400,
    reason: 'BadRequest',
    message: /StorageClass/,
  },
  { name: 'a kind Stowage does not have', method: 'POST', path: PVS, body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } }, code: 400, reason: 'BadRequest' },
  {
    name: 'missing required fields',
    method: 'POST',
    path: PVS,
    body: { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'no-spec' }, spec: { hostPath: { path: '/x' } } },
    code: 422,
    reason: 'Invalid',
    causes: ['spec.accessModes', 'spec.capacity'],
  },
  {
    name: 'an invalid quantity (rejected while decoding, as upstream)',
    method: 'POST',
    path: CLAIMS(DEV_NAMESPACE),
    body: claim('bad-size', 'lots'),
    code: 400,
    reason: 'BadRequest',
    message: /^PersistentVolumeClaim in version "v1" cannot be handled as a PersistentVolumeClaim: quantities must match the regular expression/,
  },
  {
    name: 'an unknown field with fieldValidation=Strict',
    method: 'POST',
    path: `${PVS}?fieldValidation=Strict`,
    body: pv('strict', { speed: 'fast' }),
    code: 400,
    reason: 'BadRequest',
    message: /strict decoding error: unknown field "spec.speed"/,
  },
  {
    name: 'an unknown patch type',
    method: 'PATCH',
    path: `${PVS}/existing`,
    headers: { 'Content-Type': 'application/xml-patch+xml' },
    body: '<patch/>',
    code: 415,
    reason: 'UnsupportedMediaType',
  },
  {
    name: 'server-side apply without a field manager',
    method: 'PATCH',
    path: `${PVS}/existing`,
    headers: { 'Content-Type': 'application/apply-patch+yaml' },
    body: 'metadata:\n  labels: {a: b}\n',
    code: 400,
    reason: 'BadRequest',
  },
  {
    name: 'a body in protobuf',
    method: 'POST',
    path: PVS,
    headers: { 'Content-Type': 'application/vnd.kubernetes.protobuf' },
    body: Buffer.from([0x6b, 0x38, 0x73, 0]),
    code: 415,
    reason: 'UnsupportedMediaType',
  },
  {
    name: 'a stale resourceVersion on update',
    method: 'PUT',
    path: `${PVS}/existing`,
    body: { ...pv('existing'), metadata: { name: 'existing', resourceVersion: '1' } },
    code: 409,
    reason: 'Conflict',
    message: /the object has been modified/,
  },
  {
    name: 'a stale resourceVersion in a merge patch',
    method: 'PATCH',
    path: `${PVS}/existing`,
    headers: { 'Content-Type': 'application/merge-patch+json' },
    body: { metadata: { resourceVersion: '1', labels: { a: 'b' } } },
    code: 409,
    reason: 'Conflict',
  },
  {
    name: 'a stale precondition on delete',
    method: 'DELETE',
    path: `${PVS}/existing`,
    body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { resourceVersion: '1' } },
    code: 409,
    reason: 'Conflict',
  },
  {
    name: 'a failing JSON patch test',
    method: 'PATCH',
    path: `${PVS}/existing`,
    headers: { 'Content-Type': 'application/json-patch+json' },
    body: [{ op: 'test', path: '/spec/capacity/storage', value: '5Gi' }, { op: 'add', path: '/metadata/labels', value: { a: 'b' } }],
    code: 422,
    reason: 'Invalid',
  },
  {
    name: 'a malformed JSON patch',
    method: 'PATCH',
    path: `${PVS}/existing`,
    headers: { 'Content-Type': 'application/json-patch+json' },
    body: [{ op: 'frobnicate', path: '/x' }],
    code: 400,
    reason: 'BadRequest',
  },
  { name: 'an oversized body', method: 'POST', path: PVS, body: 'x'.repeat(300 * 1024), code: 413, reason: 'RequestEntityTooLarge' },
  {
    name: 'a namespace that does not exist',
    method: 'POST',
    path: CLAIMS('no-such-namespace'),
    body: claim('c1'),
    code: 404,
    reason: 'NotFound',
    message: /namespaces "no-such-namespace" not found/,
  },
  {
    name: 'a namespace in the body that differs from the path',
    method: 'POST',
    path: CLAIMS(DEV_NAMESPACE),
    body: { ...claim('c1'), metadata: { name: 'c1', namespace: 'other' } },
    code: 400,
    reason: 'BadRequest',
  },
  { name: 'a name in the body that differs from the path', method: 'PUT', path: `${PVS}/existing`, body: pv('another'), code: 400, reason: 'BadRequest' },
  { name: 'a developer creating a claim outside their namespaces', token: 'dev', method: 'POST', path: CLAIMS('other'), body: claim('c1'), code: 403, reason: 'Forbidden' },
  { name: 'a developer reading a volume', token: 'dev', path: `${PVS}/existing`, code: 403, reason: 'Forbidden' },
  { name: 'a developer deleting a volume', token: 'dev', method: 'DELETE', path: `${PVS}/existing`, code: 403, reason: 'Forbidden' },
  { name: 'a developer creating a volume', token: 'dev', method: 'POST', path: PVS, body: pv('dev-pv'), code: 403, reason: 'Forbidden' },
  { name: 'a developer listing claims of another namespace', token: 'dev', path: CLAIMS('other'), code: 403, reason: 'Forbidden' },
  { name: 'no token', token: 'none', path: PVS, code: 401, reason: 'Unauthorized' },
  { name: 'a wrong token', token: 'swt_not-a-real-token', method: 'POST', path: PVS, body: pv('x'), code: 401, reason: 'Unauthorized' },
  { name: 'a resource that does not exist', path: '/api/v1/pods/x/log', code: 404, reason: 'NotFound' },
  { name: 'an object that does not exist', path: `${PVS}/nope`, code: 404, reason: 'NotFound', message: /persistentvolumes "nope" not found/ },
  { name: 'a method the collection does not take', method: 'PUT', path: PVS, body: pv('put-on-list'), code: 405, reason: 'MethodNotAllowed' },
  { name: 'deletecollection across all namespaces', method: 'DELETE', path: '/api/v1/persistentvolumeclaims', code: 405, reason: 'MethodNotAllowed' },
  { name: 'deletecollection of namespaces (upstream serves none)', method: 'DELETE', path: '/api/v1/namespaces', code: 405, reason: 'MethodNotAllowed' },
  { name: 'a bad label selector', path: `${PVS}?labelSelector=${encodeURIComponent('a in (b')}`, code: 400, reason: 'BadRequest' },
  { name: 'a field the kind cannot be selected by', path: `${PVS}?fieldSelector=spec.nfs.server%3Dx`, code: 400, reason: 'BadRequest' },
  { name: 'an unsupported dryRun value', method: 'POST', path: `${PVS}?dryRun=Some`, body: pv('dry'), code: 400, reason: 'BadRequest' },
  { name: 'only text/html acceptable', path: PVS, headers: { Accept: 'text/html' }, code: 406, reason: 'NotAcceptable' },
];

describe('bad requests answer a Status and write nothing', () => {
  test.each(cases)('$name → $code $reason', async (c) => {
    const before = await h.ts.store.currentResourceVersion();
    const r = await api(c);
    expect(r.status, r.text).toBe(c.code);
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.json).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: c.reason, code: c.code });
    expect(typeof r.json.message).toBe('string');
    if (c.message) expect(r.json.message).toMatch(c.message);
    if (c.causes) expect(r.json.details.causes.map((x: { field: string }) => x.field)).toEqual(expect.arrayContaining(c.causes));
    expect(await h.ts.store.currentResourceVersion()).toBe(before);
  });
});

describe('writes that must not write', () => {
  test('dryRun=All answers as a create would and stores nothing', async () => {
    const before = await h.ts.store.currentResourceVersion();
    const r = await api({ method: 'POST', path: `${PVS}?dryRun=All`, body: pv('dry-pv') });
    expect(r.status).toBe(201);
    expect(r.json.metadata).toMatchObject({ name: 'dry-pv' });
    expect(r.json.metadata.uid).toBeTruthy();
    expect((await api({ path: `${PVS}/dry-pv` })).status).toBe(404);
    const d = await api({ method: 'DELETE', path: `${PVS}/existing?dryRun=All` });
    expect(d.status).toBe(200);
    expect((await api({ path: `${PVS}/existing` })).status).toBe(200);
    expect(await h.ts.store.currentResourceVersion()).toBe(before);
  });

  test('a patch that changes nothing keeps the resourceVersion', async () => {
    const cur = await api({ path: `${PVS}/existing` });
    const r = await api({
      method: 'PATCH',
      path: `${PVS}/existing`,
      headers: { 'Content-Type': 'application/strategic-merge-patch+json' },
      body: { spec: { capacity: { storage: '1Gi' } } },
    });
    expect(r.status).toBe(200);
    expect(r.json.metadata.resourceVersion).toBe(cur.json.metadata.resourceVersion);
  });
});

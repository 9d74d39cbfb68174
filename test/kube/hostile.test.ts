// The hostile requests of the security review, one row each: every answer is a 4xx
// metav1.Status, nothing is written (the change log's head does not move, dry run or
// not), Object.prototype is untouched, and the server answers normally afterwards.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { apiClient, type ApiRequest } from './api-client';
import { DEV_NAMESPACE, startKubeHarness, type KubeHarness } from './harness';
import { rawRequest } from './raw-request';

let h: KubeHarness;
let api: ReturnType<typeof apiClient>;
let viewerToken: string;

const PVS = '/api/v1/persistentvolumes';
const CLAIMS = `/api/v1/namespaces/${DEV_NAMESPACE}/persistentvolumeclaims`;
const SMP = { 'Content-Type': 'application/strategic-merge-patch+json' };
const MERGE = { 'Content-Type': 'application/merge-patch+json' };
const JSONPATCH = { 'Content-Type': 'application/json-patch+json' };

const pv = (name: string, storage: unknown = '1Gi') => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name },
  spec: { capacity: { storage }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/x' } },
});

function nestedJson(depth: number): string {
  return `{"metadata":{"labels":${'{"a":'.repeat(depth)}"x"${'}'.repeat(depth)}}}`;
}

beforeAll(async () => {
  h = await startKubeHarness();
  api = apiClient(h);
  await h.app.users.create({ name: 'viewer', role: 'viewer' });
  viewerToken = await h.app.users.createToken('viewer');
  expect((await api({ method: 'POST', path: PVS, body: pv('existing') })).status).toBe(201);
});
afterAll(async () => {
  await h?.close();
});

function prototypeUntouched(): void {
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect((Object as unknown as Record<string, unknown>).polluted).toBeUndefined();
  expect((Function.prototype as unknown as Record<string, unknown>).polluted).toBeUndefined();
}

interface Row extends ApiRequest {
  name: string;
  code: number;
  reason: string;
  message?: RegExp;
  as?: 'viewer';
}

const PROTO = '{"__proto__":{"polluted":"1"}}';

const rows: Row[] = [
  { name: "a viewer's strategic merge patch with __proto__ (dry run)", as: 'viewer', method: 'PATCH', path: `${PVS}/existing?dryRun=All`, headers: SMP, body: PROTO, code: 403, reason: 'Forbidden' },
  { name: "a viewer's strategic merge patch with __proto__", as: 'viewer', method: 'PATCH', path: `${PVS}/existing`, headers: SMP, body: PROTO, code: 403, reason: 'Forbidden' },
  { name: "a viewer's patch of an object that does not exist", as: 'viewer', method: 'PATCH', path: `${PVS}/nope`, headers: MERGE, body: '{}', code: 403, reason: 'Forbidden' },
  { name: "an admin's strategic merge patch with __proto__", method: 'PATCH', path: `${PVS}/existing`, headers: SMP, body: PROTO, code: 400, reason: 'BadRequest', message: /__proto__/ },
  { name: "an admin's merge patch with a nested __proto__", method: 'PATCH', path: `${PVS}/existing`, headers: MERGE, body: '{"metadata":{"labels":{"__proto__":{"polluted":"1"}}}}', code: 400, reason: 'BadRequest' },
  { name: 'a JSON patch through a built-in', method: 'PATCH', path: `${PVS}/existing`, headers: JSONPATCH, body: '[{"op":"add","path":"/metadata/constructor/polluted","value":"1"}]', code: 422, reason: 'Invalid' },
  { name: 'a JSON patch through __proto__', method: 'PATCH', path: `${PVS}/existing`, headers: JSONPATCH, body: '[{"op":"add","path":"/__proto__/polluted","value":"1"}]', code: 422, reason: 'Invalid' },
  { name: 'a create whose body has __proto__', method: 'POST', path: PVS, body: `{"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"p","annotations":${PROTO}}}`, code: 400, reason: 'BadRequest' },
  { name: 'a YAML body with __proto__', method: 'POST', path: PVS, headers: { 'Content-Type': 'application/yaml' }, body: 'apiVersion: v1\nkind: PersistentVolume\n__proto__: {polluted: "1"}\n', code: 400, reason: 'BadRequest' },
  { name: 'a strategic merge patch nested 5000 deep', method: 'PATCH', path: `${PVS}/existing`, headers: SMP, body: nestedJson(5000), code: 400, reason: 'BadRequest', message: /nested deeper/ },
  { name: 'a merge patch nested 100000 deep', method: 'PATCH', path: `${PVS}/existing`, headers: MERGE, body: nestedJson(100_000), code: 400, reason: 'BadRequest' },
  { name: 'a YAML body nested 5000 deep', method: 'POST', path: PVS, headers: { 'Content-Type': 'application/yaml' }, body: `a: ${'['.repeat(5000)}${']'.repeat(5000)}`, code: 400, reason: 'BadRequest' },
  { name: 'a NUL in a name in the body', method: 'POST', path: PVS, body: pv('a\u0000b'), code: 400, reason: 'BadRequest', message: /NUL/ },
  { name: 'a NUL in a name in the body, dry run', method: 'POST', path: `${PVS}?dryRun=All`, body: pv('a\u0000b'), code: 400, reason: 'BadRequest' },
  { name: 'a NUL in a label value', method: 'POST', path: `${PVS}?dryRun=All`, body: { ...pv('nul-label'), metadata: { name: 'nul-label', labels: { a: 'x\u0000' } } }, code: 400, reason: 'BadRequest' },
  { name: 'a NUL in a name on the path', path: `${PVS}/a%00b`, code: 404, reason: 'NotFound' },
  { name: 'a NUL in a name on the path of a delete', method: 'DELETE', path: `${PVS}/a%00b`, code: 404, reason: 'NotFound' },
  { name: 'a NUL in a namespace on the path', path: '/api/v1/namespaces/a%00b/persistentvolumeclaims', code: 404, reason: 'NotFound' },
  { name: 'a NUL in a namespace on the path of a create', method: 'POST', path: '/api/v1/namespaces/a%00b/persistentvolumeclaims?dryRun=All', body: {}, code: 404, reason: 'NotFound' },
  { name: 'a NUL in a label selector', path: `${PVS}?labelSelector=a%3Db%00`, code: 400, reason: 'BadRequest' },
  { name: 'a NUL in a field selector', path: `${PVS}?fieldSelector=metadata.name%3Db%00`, code: 400, reason: 'BadRequest' },
  { name: 'a NUL in a continue token', path: `${PVS}?limit=1&continue=%00`, code: 400, reason: 'BadRequest' },
  { name: 'a continue token with a non-numeric version', path: `${PVS}?limit=1&continue=${Buffer.from('{"rv":"x","ns":"","name":"a"}').toString('base64url')}`, code: 400, reason: 'BadRequest', message: /continue/ },
  { name: 'a continue token that hides a NUL', path: `${PVS}?limit=1&continue=${Buffer.from('{"rv":"1","ns":"","name":"a\\u0000"}').toString('base64url')}`, code: 400, reason: 'BadRequest' },
  { name: 'a limit beyond int64', path: `${PVS}?limit=99999999999999999999`, code: 400, reason: 'BadRequest', message: /out of range/ },
  { name: 'a quantity of 1e65', method: 'POST', path: PVS, body: pv('big', '1e65'), code: 422, reason: 'Invalid', message: /less than 1e65/ },
  { name: 'a quantity of 1e65, dry run', method: 'POST', path: `${PVS}?dryRun=All`, body: pv('big', '1e65'), code: 422, reason: 'Invalid' },
  { name: 'a quantity of JSON 1e308', method: 'POST', path: PVS, body: '{"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"big"},"spec":{"capacity":{"storage":1e308},"accessModes":["ReadWriteOnce"],"hostPath":{"path":"/x"}}}', code: 422, reason: 'Invalid' },
  // Infinite to JavaScript, but upstream reads a quantity from the number's text: 1e999 is a quantity, refused by validation.
  { name: 'a quantity of JSON 1e999 (infinite to JavaScript)', method: 'POST', path: PVS, body: '{"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"big"},"spec":{"capacity":{"storage":1e999}}}', code: 422, reason: 'Invalid', message: /less than 1e65/ },
  { name: 'an infinite JSON number elsewhere', method: 'POST', path: PVS, body: '{"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"big","generation":1e999},"spec":{"capacity":{"storage":"1Gi"}}}', code: 400, reason: 'BadRequest' },
  // Upstream decodes quantities with the body: a malformed one is a 400 before validation.
  { name: 'a quantity of 1e999999999999', method: 'POST', path: `${PVS}?dryRun=All`, body: pv('big', '1e999999999999'), code: 400, reason: 'BadRequest', message: /cannot be handled as a PersistentVolume: unable to parse quantity's suffix$/ },
  { name: 'a quantity with an unknown suffix', method: 'POST', path: CLAIMS, body: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' }, limits: { storage: '1K' } } } }, code: 400, reason: 'BadRequest', message: /^PersistentVolumeClaim in version "v1" cannot be handled as a PersistentVolumeClaim: unable to parse quantity's suffix$/ },
  { name: 'a quantity without digits where upstream needs them', method: 'POST', path: `${PVS}?dryRun=All`, body: pv('big', 'Pi'), code: 400, reason: 'BadRequest', message: /^PersistentVolume in version "v1" cannot be handled as a PersistentVolume: unable to parse numeric part of quantity$/ },
  { name: 'a node with a malformed allocatable', method: 'POST', path: '/api/v1/nodes?dryRun=All', body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' }, status: { allocatable: { storage: '10 GB' } } }, code: 400, reason: 'BadRequest', message: /^Node in version "v1" cannot be handled as a Node: quantities must match the regular expression/ },
  { name: 'a CSIStorageCapacity with a malformed capacity', method: 'POST', path: '/apis/storage.k8s.io/v1/namespaces/default/csistoragecapacities?dryRun=All', body: { apiVersion: 'storage.k8s.io/v1', kind: 'CSIStorageCapacity', metadata: { name: 'c' }, storageClassName: 'sc', capacity: '5x' }, code: 400, reason: 'BadRequest', message: /^CSIStorageCapacity in version "v1" cannot be handled as a CSIStorageCapacity: quantities must match/ },
  { name: 'an unsupported reclaim policy', method: 'POST', path: '/apis/storage.k8s.io/v1/storageclasses', body: { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'sc' }, provisioner: 'x.io/y', reclaimPolicy: 'Keep' }, code: 422, reason: 'Invalid' },
  { name: 'a YAML !!binary tag', method: 'POST', path: PVS, headers: { 'Content-Type': 'application/yaml' }, body: 'apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: !!binary eA==}\n', code: 400, reason: 'BadRequest', message: /binary/ },
  { name: 'a YAML custom tag', method: 'POST', path: PVS, headers: { 'Content-Type': 'application/yaml' }, body: 'apiVersion: v1\nkind: !Evil PersistentVolume\n', code: 400, reason: 'BadRequest' },
];

describe('hostile requests answer a 4xx Status and change nothing', () => {
  test.each(rows)('$name → $code $reason', async (row) => {
    const before = await h.ts.store.currentResourceVersion();
    const r = await api({ ...row, token: row.as === 'viewer' ? viewerToken : row.token });
    expect(r.status, r.text.slice(0, 500)).toBe(row.code);
    expect(r.json).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: row.reason, code: row.code });
    if (row.message) expect(r.json.message).toMatch(row.message);
    expect(await h.ts.store.currentResourceVersion()).toBe(before);
    prototypeUntouched();
    expect((await api({ path: `${PVS}/existing` })).status).toBe(200);
  });
});

describe('numbers past 2^53', () => {
  test('a limit between 2^53 and int64 lists everything', async () => {
    const r = await api({ path: `${PVS}?limit=9007199254740993` });
    expect(r.status, r.text).toBe(200);
    expect(r.json.items.map((o: { metadata: { name: string } }) => o.metadata.name)).toContain('existing');
    expect(r.json.metadata.continue).toBeUndefined();
  });
});

describe('keys named like prototypes are data', () => {
  test('a label named constructor is stored and read back as a label', async () => {
    const r = await api({ method: 'PATCH', path: `${PVS}/existing`, headers: MERGE, body: '{"metadata":{"labels":{"constructor":"c","prototype":"p"}}}' });
    expect(r.status, r.text).toBe(200);
    expect(r.json.metadata.labels).toEqual({ constructor: 'c', prototype: 'p' });
    const back = await api({ path: `${PVS}?labelSelector=constructor%3Dc` });
    expect(back.json.items.map((o: { metadata: { name: string } }) => o.metadata.name)).toEqual(['existing']);
    prototypeUntouched();
  });
});

describe('warnings about fields a client made up', () => {
  test('an unknown field named in any script comes back as an ASCII-only Warning header', async () => {
    const body = { ...pv('warned'), '\u{E03EC}\u{22BD7}é': { x: 1 } };
    const r = await api({ method: 'POST', path: `${PVS}?dryRun=All&fieldValidation=Warn`, body });
    expect(r.status, r.text).toBe(201);
    const warning = String(r.headers.warning);
    expect(warning).toMatch(/^299 - "unknown field/);
    expect(warning).toMatch(/^[\x20-\x7e]*$/);
    expect(warning).toContain('\\u00e9');
  });
});

describe('requests Node parses before any handler', () => {
  const head = (target: string | Buffer) =>
    Buffer.concat([Buffer.from('GET '), Buffer.isBuffer(target) ? target : Buffer.from(target), Buffer.from(` HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${h.adminToken}\r\nConnection: close\r\n\r\n`)]);

  test.each([
    { name: 'the target //[', target: () => '//[', code: 400 },
    { name: 'an asterisk target', target: () => '*', code: 400 },
    { name: 'a URL of 17 KiB', target: () => `${PVS}?labelSelector=${'a'.repeat(17 * 1024)}`, code: 431 },
    { name: 'a path with raw non-ASCII bytes', target: () => Buffer.from(`${PVS}/\u00e9t\u00e9`, 'utf8'), code: 400 },
  ])('$name → $code Status', async ({ target, code }) => {
    const r = await rawRequest(h.url, h.caPem, head(target()));
    expect(r.status).toBe(code);
    expect(JSON.parse(r.body)).toMatchObject({ kind: 'Status', status: 'Failure', code });
    expect((await api({ path: '/healthz' })).status).toBe(200);
  });

  test('HTTP/1.1 without Host → 400 Status saying so (not a bare status line)', async () => {
    const r = await rawRequest(h.url, h.caPem, `GET ${PVS} HTTP/1.1\r\nAuthorization: Bearer ${h.adminToken}\r\nConnection: close\r\n\r\n`);
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body)).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400, message: expect.stringMatching(/missing required Host header/) });
  });

  test('a percent-encoded non-ASCII name is simply not found', async () => {
    const r = await api({ path: `${PVS}/${encodeURIComponent('été')}` });
    expect(r.status).toBe(404);
    expect(r.json).toMatchObject({ kind: 'Status', reason: 'NotFound' });
  });
});

describe('watch timeouts', () => {
  test('a timeoutSeconds beyond the timer range keeps the watch open', async () => {
    const ctrl = new AbortController();
    const url = new URL(h.url);
    const https = await import('node:https');
    const opened = await new Promise<{ status: number; closedEarly: Promise<boolean> }>((resolve, reject) => {
      const req = https.request(
        {
          host: url.hostname,
          port: url.port,
          path: `${PVS}?watch=1&timeoutSeconds=${2 ** 31}`,
          headers: { Authorization: `Bearer ${h.adminToken}` },
          ca: h.caPem,
          signal: ctrl.signal,
        },
        (res) => {
          res.on('error', () => {});
          const closedEarly = new Promise<boolean>((done) => {
            res.on('end', () => done(true));
            res.on('close', () => done(!ctrl.signal.aborted));
          });
          resolve({ status: res.statusCode ?? 0, closedEarly });
        },
      );
      req.on('error', (e) => (ctrl.signal.aborted ? undefined : reject(e)));
      req.end();
    });
    expect(opened.status).toBe(200);
    // A change made after the watch opened arrives, so the stream was still open.
    const name = 'watched';
    expect((await api({ method: 'POST', path: PVS, body: pv(name) })).status).toBe(201);
    const early = await Promise.race([opened.closedEarly, new Promise<'open'>((r) => setTimeout(() => r('open'), 500))]);
    ctrl.abort();
    expect(early).toBe('open');
  });
});

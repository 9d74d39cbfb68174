// Admission, validation and messages as upstream's apiserver answers them, through the REST
// API against the real store: status codes, reasons, messages, Warning headers and the
// object the call returns.
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from './api-client';
import { DEV_NAMESPACE, startKubeHarness, waitFor, type KubeHarness } from './harness';

let h: KubeHarness;
let api: ReturnType<typeof apiClient>;

const PVS = '/api/v1/persistentvolumes';
const SCS = '/apis/storage.k8s.io/v1/storageclasses';
const CLAIMS = `/api/v1/namespaces/${DEV_NAMESPACE}/persistentvolumeclaims`;

const pv = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name },
  spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/srv/${name}` }, ...spec },
});
const claim = (name: string, spec: Record<string, unknown> = {}, annotations?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name, ...(annotations ? { annotations } : {}) },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec },
});
const sc = (name: string, annotations: Record<string, string> = {}) => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'StorageClass',
  metadata: { name, annotations },
  provisioner: 'example.com/fidelity',
});

beforeAll(async () => {
  h = await startKubeHarness();
  api = apiClient(h);
});
afterAll(async () => {
  await h?.close();
});

const warningsOf = (headers: Record<string, string | string[] | undefined>): string[] => {
  const w = headers.warning;
  return w === undefined ? [] : Array.isArray(w) ? w : [w];
};

describe('DefaultStorageClass admission (the create returns the class)', () => {
  // One sequence: each step changes which classes exist.
  it.each([
    { step: 'no class at all: none filled in', classes: [], claim: claim('adm-1'), want: undefined },
    {
      step: 'only a class marked "True" (not a default): none',
      classes: [sc('adm-capital', { 'storageclass.kubernetes.io/is-default-class': 'True' })],
      claim: claim('adm-2'),
      want: undefined,
    },
    {
      step: 'a class marked default by the beta annotation counts',
      classes: [sc('adm-beta', { 'storageclass.beta.kubernetes.io/is-default-class': 'true' })],
      claim: claim('adm-3'),
      want: 'adm-beta',
    },
    { step: 'a claim asking for "" keeps it', classes: [], claim: claim('adm-4', { storageClassName: '' }), want: '' },
    {
      step: 'a claim with the beta class annotation is left alone',
      classes: [],
      claim: claim('adm-5', {}, { 'volume.beta.kubernetes.io/storage-class': 'other' }),
      want: undefined,
    },
    {
      // Newer than adm-beta, or of the same second and first by name: it wins either way.
      step: 'of two defaults the newest wins (same age: by name, ascending)',
      classes: [sc('adm-aaa', { 'storageclass.kubernetes.io/is-default-class': 'true' })],
      claim: claim('adm-6'),
      want: 'adm-aaa',
    },
  ])('$step', async ({ classes, claim: c, want }) => {
    for (const cls of classes) expect((await api({ method: 'POST', path: SCS, body: cls })).status).toBe(201);
    const r = await api({ method: 'POST', path: CLAIMS, body: c });
    expect(r.status).toBe(201);
    expect(r.json.spec.storageClassName).toBe(want);
    const stored = await api({ path: `${CLAIMS}/${c.metadata.name}` });
    expect(stored.json.spec.storageClassName).toBe(r.json.spec.storageClassName);
  });

  it('a dry-run create shows the class it would get, and stores nothing', async () => {
    const r = await api({ method: 'POST', path: `${CLAIMS}?dryRun=All`, body: claim('adm-dry') });
    expect(r.status).toBe(201);
    expect(r.json.spec.storageClassName).toBe('adm-aaa');
    expect((await api({ path: `${CLAIMS}/adm-dry` })).status).toBe(404);
  });
});

describe('Warning headers (upstream WarningsOnCreate / WarningsOnUpdate)', () => {
  const recycle =
    '299 - "spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning."';
  it('create, update and patch of a Recycle volume warn; a Retain one does not', async () => {
    const created = await api({ method: 'POST', path: PVS, body: pv('warn-recycle', { persistentVolumeReclaimPolicy: 'Recycle' }) });
    expect(created.status).toBe(201);
    expect(warningsOf(created.headers)).toEqual([recycle]);
    const updated = await api({ method: 'PUT', path: `${PVS}/warn-recycle`, body: { ...created.json, metadata: { ...created.json.metadata, labels: { a: 'b' } } } });
    expect(updated.status).toBe(200);
    expect(warningsOf(updated.headers)).toEqual([recycle]);
    const patched = await api({
      method: 'PATCH',
      path: `${PVS}/warn-recycle`,
      headers: { 'Content-Type': 'application/merge-patch+json' },
      body: { metadata: { labels: { c: 'd' } } },
    });
    expect(patched.status).toBe(200);
    expect(warningsOf(patched.headers)).toEqual([recycle]);
    const retain = await api({ method: 'POST', path: PVS, body: pv('warn-retain', { persistentVolumeReclaimPolicy: 'Retain' }) });
    expect(retain.status).toBe(201);
    expect(warningsOf(retain.headers)).toEqual([]);
  });
});

describe('messages as upstream formats them', () => {
  it.each([
    {
      name: 'NotFound names the group-qualified resource',
      req: { path: `${SCS}/nope` },
      code: 404,
      reason: 'NotFound',
      message: 'storageclasses.storage.k8s.io "nope" not found',
      details: { name: 'nope', group: 'storage.k8s.io', kind: 'storageclasses' },
    },
    {
      name: 'NotFound of a core resource has no group',
      req: { path: `${PVS}/nope` },
      code: 404,
      reason: 'NotFound',
      message: 'persistentvolumes "nope" not found',
      details: { name: 'nope', kind: 'persistentvolumes' },
    },
    {
      name: 'AlreadyExists names the group-qualified resource',
      req: { method: 'POST', path: SCS, body: sc('adm-beta') },
      code: 409,
      reason: 'AlreadyExists',
      message: 'storageclasses.storage.k8s.io "adm-beta" already exists',
      details: { name: 'adm-beta', group: 'storage.k8s.io', kind: 'storageclasses' },
    },
    {
      name: 'Forbidden names the group-qualified resource',
      req: { method: 'POST', path: SCS, body: sc('dev-class'), token: 'dev' },
      code: 403,
      reason: 'Forbidden',
      message:
        // Authorized before the body is read, as upstream: a create names no object.
        'storageclasses.storage.k8s.io is forbidden: User "dev" cannot create resource "storageclasses" in API group "storage.k8s.io" at the cluster scope',
    },
    {
      name: 'an unsupported field selector names the supported ones',
      req: { path: `${PVS}?fieldSelector=spec.capacity%3D1Gi` },
      code: 400,
      reason: 'BadRequest',
      message: '"spec.capacity" is not a known field selector: only "metadata.name", "metadata.namespace"',
    },
    {
      name: 'a malformed quantity fails at decode time',
      req: { method: 'POST', path: PVS, body: pv('bad-q', { capacity: { storage: '250MB' } }) },
      code: 400,
      reason: 'BadRequest',
      message:
        "PersistentVolume in version \"v1\" cannot be handled as a PersistentVolume: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    },
  ])('$name', async ({ req, code, reason, message, details }) => {
    const r = await api(req);
    expect(r.status).toBe(code);
    expect(r.json).toMatchObject({ kind: 'Status', status: 'Failure', code, reason, message });
    if (details) expect(r.json.details).toEqual(details);
  });

  it.each([
    {
      name: 'a name of 254 characters',
      body: pv('a'.repeat(254)),
      cause: { field: 'metadata.name', reason: 'FieldValueInvalid', message: `Invalid value: "${'a'.repeat(254)}": must be no more than 253 characters` },
    },
  ])('field length: $name is 422 with upstream path and words', async ({ body, cause }) => {
    const r = await api({ method: 'POST', path: PVS, body });
    expect(r.status).toBe(422);
    expect(r.json.reason).toBe('Invalid');
    expect(r.json.details.causes).toContainEqual(cause);
  });

  it('creating a name whose old object is terminating says "object is being deleted"', async () => {
    const held = pv('held');
    (held.metadata as Record<string, unknown>).finalizers = ['example.com/hold'];
    expect((await api({ method: 'POST', path: PVS, body: held })).status).toBe(201);
    expect((await api({ method: 'DELETE', path: `${PVS}/held` })).status).toBe(200);
    const r = await api({ method: 'POST', path: PVS, body: pv('held') });
    expect(r.status).toBe(409);
    expect(r.json).toMatchObject({ reason: 'AlreadyExists', message: 'object is being deleted: persistentvolumes "held" already exists' });
  });

  it('a changed volume source is one Forbidden cause on spec.persistentvolumesource', async () => {
    const created = await api({ method: 'POST', path: PVS, body: pv('immutable-src') });
    const next = structuredClone(created.json);
    next.spec.hostPath.path = '/srv/elsewhere';
    const r = await api({ method: 'PUT', path: `${PVS}/immutable-src`, body: next });
    expect(r.status).toBe(422);
    expect(r.json.reason).toBe('Invalid');
    expect(r.json.details.causes).toEqual([
      { reason: 'FieldValueForbidden', message: 'Forbidden: spec.persistentvolumesource is immutable after creation', field: 'spec.persistentvolumesource' },
    ]);
    expect(r.json.message).toBe('PersistentVolume "immutable-src" is invalid: spec.persistentvolumesource: Forbidden: spec.persistentvolumesource is immutable after creation');
  });

  it('a changed claim spec is one Forbidden cause on spec, in upstream words', async () => {
    const created = await api({ method: 'POST', path: CLAIMS, body: claim('immutable-spec', { storageClassName: '' }) });
    expect(created.status).toBe(201);
    const next = structuredClone(created.json);
    next.spec.accessModes = ['ReadWriteMany'];
    const r = await api({ method: 'PUT', path: `${CLAIMS}/immutable-spec`, body: next });
    expect(r.status).toBe(422);
    expect(r.json.details.causes).toEqual([
      {
        reason: 'FieldValueForbidden',
        message: 'Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims',
        field: 'spec',
      },
    ]);
  });

  it.each([
    { input: '1e6', want: '1e6' },
    { input: '1000000', want: '1M' },
    { input: '1.5Gi', want: '1536Mi' },
    { input: '0.5Gi', want: '512Mi' },
  ])('capacity $input is stored and returned as $want (Quantity.String())', async ({ input, want }) => {
    const name = `q-${input.replace(/[^0-9a-z]/gi, '-').toLowerCase()}`;
    const r = await api({ method: 'POST', path: PVS, body: pv(name, { capacity: { storage: input } }) });
    expect(r.status).toBe(201);
    expect(r.json.spec.capacity.storage).toBe(want);
    expect((await api({ path: `${PVS}/${name}` })).json.spec.capacity.storage).toBe(want);
  });

  // Upstream's Quantity.UnmarshalJSON parses a JSON number's own text; JavaScript would read 1e3 as 1000 ("1k").
  it.each([
    { json: '1e3', want: '1e3' },
    { json: '1.5', want: '1500m' },
    { json: '100', want: '100' },
    { json: '0.1', want: '100m' },
    { json: '1E3', want: '1E3' },
    { json: '123456789012345678901234567890', want: '123456789012345678901234567890' },
  ])('capacity sent as the JSON number $json is stored and returned as $want', async ({ json, want }) => {
    const name = `qn-${json.replace(/[^0-9a-z]/gi, (c) => `x${c.charCodeAt(0)}`).replace(/[A-Z]/g, (c) => `u${c.toLowerCase()}`)}`.slice(0, 60);
    const body = JSON.stringify(pv(name)).replace('"storage":"1Gi"', `"storage":${json}`);
    const r = await api({ method: 'POST', path: PVS, body });
    expect(r.status).toBe(201);
    expect(r.json.spec.capacity.storage).toBe(want);
    expect((await api({ path: `${PVS}/${name}` })).json.spec.capacity.storage).toBe(want);
  });

  it('a merge patch of a quantity as a JSON number keeps its text too', async () => {
    expect((await api({ method: 'POST', path: PVS, body: pv('qn-patched') })).status).toBe(201);
    const body = '{"spec":{"capacity":{"storage":2e3}}}';
    const r = await api({ method: 'PATCH', path: `${PVS}/qn-patched`, body, headers: { 'Content-Type': 'application/merge-patch+json' } });
    expect(r.status).toBe(200);
    expect(r.json.spec.capacity.storage).toBe('2e3');
  });
});

describe('API machinery', () => {
  it('a delete with propagationPolicy Orphan holds the object with the orphan finalizer (the garbage collector lets it go)', async () => {
    expect((await api({ method: 'POST', path: PVS, body: pv('orphaned-owner') })).status).toBe(201);
    const r = await api({ method: 'DELETE', path: `${PVS}/orphaned-owner`, body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Orphan' } });
    expect(r.status).toBe(200);
    expect(r.json.metadata.finalizers).toContain('orphan');
    expect(r.json.metadata.deletionTimestamp).toBeTruthy();
  });

  it('list items carry no kind or apiVersion; the list does', async () => {
    const r = await api({ path: PVS });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ kind: 'PersistentVolumeList', apiVersion: 'v1' });
    expect(r.json.items.length).toBeGreaterThan(0);
    for (const item of r.json.items) {
      expect(item.kind).toBeUndefined();
      expect(item.apiVersion).toBeUndefined();
      expect(item.metadata.name).toBeTruthy();
    }
    // A single object still says what it is.
    expect((await api({ path: `${PVS}/${r.json.items[0].metadata.name}` })).json).toMatchObject({ kind: 'PersistentVolume', apiVersion: 'v1' });
  });

  it('a resourceVersion the server has not reached: 504 Timeout with a ResourceVersionTooLarge cause', async () => {
    const current = BigInt((await api({ path: PVS })).json.metadata.resourceVersion);
    const wanted = current + 100_000n;
    for (const path of [`${PVS}?resourceVersion=${wanted}`, `${PVS}?resourceVersion=${wanted}&resourceVersionMatch=NotOlderThan`]) {
      const r = await api({ path });
      expect(r.status).toBe(504);
      expect(r.json).toMatchObject({
        kind: 'Status',
        status: 'Failure',
        code: 504,
        reason: 'Timeout',
        details: { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 },
      });
      expect(r.json.message).toMatch(new RegExp(`^Timeout: Too large resource version: ${wanted}, current: \\d+$`));
    }
  });

  it.each([
    { name: 'a list of volumes', path: PVS },
    { name: 'a list in another namespace', path: '/api/v1/namespaces/other/persistentvolumeclaims' },
    { name: 'a get in another namespace', path: '/api/v1/namespaces/other/persistentvolumeclaims/any' },
  ])('authorization before the resourceVersion wait: $name by a developer -> 403, not 504', async ({ path }) => {
    const current = BigInt((await api({ path: PVS })).json.metadata.resourceVersion);
    const r = await api({ path: `${path}?resourceVersion=${current + 100_000n}`, token: 'dev' });
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({ kind: 'Status', reason: 'Forbidden' });
  });

  it.each([
    {
      name: 'a list with sendInitialEvents',
      path: `${PVS}?sendInitialEvents=true`,
      message: 'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list',
    },
    {
      name: 'a watch-list without resourceVersionMatch',
      path: `${PVS}?watch=true&sendInitialEvents=true&allowWatchBookmarks=true`,
      message: 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
    },
    {
      name: 'a list match without a resourceVersion',
      path: `${PVS}?resourceVersionMatch=NotOlderThan`,
      message: 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
    },
  ])('invalid list options: $name -> 422 Invalid', async ({ path, message }) => {
    const r = await api({ path });
    expect(r.status).toBe(422);
    expect(r.json).toMatchObject({ reason: 'Invalid', message, details: { kind: 'ListOptions', group: 'meta.k8s.io' } });
  });

  it('a resourceVersion reached while the read waits is served', async () => {
    const current = BigInt((await api({ path: PVS })).json.metadata.resourceVersion);
    const reading = api({ path: `${PVS}?resourceVersion=${current + 1n}` });
    expect((await api({ method: 'POST', path: PVS, body: pv('rv-wait') })).status).toBe(201);
    const r = await reading;
    expect(r.status).toBe(200);
    expect(BigInt(r.json.metadata.resourceVersion)).toBeGreaterThanOrEqual(current + 1n);
  });

  it('deletecollection deletes what the selector picks and returns it; dry run deletes nothing', async () => {
    for (const [name, team] of [
      ['dc-1', 'blue'],
      ['dc-2', 'blue'],
      ['dc-3', 'green'],
    ]) {
      const c = claim(name, { storageClassName: '' });
      (c.metadata as Record<string, unknown>).labels = { team };
      expect((await api({ method: 'POST', path: CLAIMS, body: c })).status).toBe(201);
    }
    const dry = await api({ method: 'DELETE', path: `${CLAIMS}?labelSelector=team%3Dblue&dryRun=All` });
    expect(dry.status).toBe(200);
    expect(dry.json.items.map((o: any) => o.metadata.name).sort()).toEqual(['dc-1', 'dc-2']);
    expect((await api({ path: `${CLAIMS}/dc-1` })).status).toBe(200);

    const forbidden = await api({ method: 'DELETE', path: '/api/v1/namespaces/other/persistentvolumeclaims', token: 'dev' });
    expect(forbidden.status).toBe(403);
    expect(forbidden.json.message).toBe(
      'persistentvolumeclaims is forbidden: User "dev" cannot deletecollection resource "persistentvolumeclaims" in API group "" in the namespace "other"',
    );

    const r = await api({ method: 'DELETE', path: `${CLAIMS}?labelSelector=team%3Dblue`, token: 'dev' });
    expect(r.status).toBe(200);
    expect(r.json.kind).toBe('PersistentVolumeClaimList');
    expect(r.json.items.map((o: any) => o.metadata.name).sort()).toEqual(['dc-1', 'dc-2']);
    // The claims carry pvc-protection: they go once the controller sees no pod uses them.
    for (const name of ['dc-1', 'dc-2']) {
      await waitFor(async () => (await api({ path: `${CLAIMS}/${name}` })).status === 404, `${name} gone`);
    }
    expect((await api({ path: `${CLAIMS}/dc-3` })).status).toBe(200);
  });

  it('discovery lists deletecollection', async () => {
    const r = await api({ path: '/api/v1' });
    const pvs = r.json.resources.find((x: any) => x.name === 'persistentvolumes');
    expect(pvs.verbs).toContain('deletecollection');
    // Upstream's namespaces take no deletecollection: create delete get list patch update watch.
    const namespaces = r.json.resources.find((x: any) => x.name === 'namespaces');
    expect(namespaces.verbs).toEqual(['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']);
  });

  it('answers above 128 KiB are gzipped when the client accepts it; small ones are not', async () => {
    const big = { 'example.com/padding': 'x'.repeat(200 * 1024) };
    const p = pv('gz-big');
    (p.metadata as Record<string, unknown>).annotations = big;
    expect((await api({ method: 'POST', path: PVS, body: p })).status).toBe(201);
    const zipped = await api({ path: `${PVS}/gz-big`, headers: { 'Accept-Encoding': 'gzip' } });
    expect(zipped.status).toBe(200);
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toBe('Accept-Encoding');
    expect(Number(zipped.headers['content-length'])).toBe(zipped.raw.length);
    const body = JSON.parse(gunzipSync(zipped.raw).toString('utf8'));
    expect(body.metadata.annotations['example.com/padding']).toHaveLength(200 * 1024);
    const plain = await api({ path: `${PVS}/gz-big` });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.json.metadata.name).toBe('gz-big');
    const small = await api({ path: `${PVS}/rv-wait`, headers: { 'Accept-Encoding': 'gzip' } });
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.json.metadata.name).toBe('rv-wait');
  });
});

// Admission, validation and messages as upstream's apiserver answers them, through the REST
// API against the real store: status codes, reasons, messages, Warning headers and the
// object the call returns.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from './api-client';
import { DEV_NAMESPACE, startKubeHarness, type KubeHarness } from './harness';

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
        'storageclasses.storage.k8s.io "dev-class" is forbidden: User "dev" cannot create resource "storageclasses" in API group "storage.k8s.io" at the cluster scope',
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
});

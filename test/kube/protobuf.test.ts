// Protobuf answers through the real store: every kind, its list, errors and watch events
// come back as `application/vnd.kubernetes.protobuf` when a client asks for it first, and
// decode to exactly the JSON the same request answers. An object protobuf cannot carry
// whole is answered as JSON when the client allows it, else 406.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { decodeKubeProtobuf, encodeKubeProtobuf } from '../../server/kube/protobuf-codec';
import { readFields } from '../../server/kube/protobuf-wire';
import { apiClient, type ApiResponse } from './api-client';
import { DEV_NAMESPACE, startKubeHarness, type KubeHarness } from './harness';

const PB = 'application/vnd.kubernetes.protobuf';
const CLIENT_GO = `${PB},application/json`;
const manifest = (f: string) => parse(readFileSync(path.join(import.meta.dirname, 'manifests', f), 'utf8'));

let h: KubeHarness;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  h = await startKubeHarness({ protection: false });
  api = apiClient(h);
});
afterAll(async () => {
  await h?.close();
});

async function create(p: string, body: object): Promise<void> {
  const r = await api({ method: 'POST', path: p, body });
  expect(r.status, r.text).toBe(201);
}

function decoded(r: ApiResponse): Record<string, unknown> {
  expect(r.headers['content-type']).toBe(PB);
  return decodeKubeProtobuf(r.raw);
}

const storagePod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'small', labels: { app: 'db' } },
  spec: { volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'myclaim' } }], containers: [{ name: 'db', image: 'postgres:17', volumeMounts: [{ name: 'data', mountPath: '/var/lib/postgresql' }] }] },
};

describe('protobuf answers for every kind served', () => {
  beforeAll(async () => {
    await create('/apis/storage.k8s.io/v1/storageclasses', manifest('storage-class.yaml'));
    await create('/api/v1/persistentvolumes', manifest('nfs-pv.yaml'));
    await create('/api/v1/persistentvolumes', manifest('local-pv.yaml'));
    await create(`/api/v1/namespaces/${DEV_NAMESPACE}/persistentvolumeclaims`, manifest('claim.yaml'));
    await create(`/api/v1/namespaces/${DEV_NAMESPACE}/pods`, storagePod);
    await create(`/api/v1/namespaces/${DEV_NAMESPACE}/pods`, manifest('pod.yaml'));
    await create('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', labels: { 'kubernetes.io/hostname': 'node-1' } }, status: { capacity: { storage: '100Gi' } } });
    await create(`/api/v1/namespaces/${DEV_NAMESPACE}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { a: 'b' }, binaryData: { bin: 'AAH/' } });
    await create(`/api/v1/namespaces/${DEV_NAMESPACE}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, type: 'Opaque', data: { password: 'cGFzcw==' } });
    await create(`/api/v1/namespaces/${DEV_NAMESPACE}/events`, {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'pv0003.1' },
      involvedObject: { kind: 'PersistentVolumeClaim', namespace: DEV_NAMESPACE, name: 'myclaim', apiVersion: 'v1' },
      reason: 'VolumeFailedDelete',
      message: 'no deleter',
      type: 'Warning',
      count: 2,
      source: { component: 'persistentvolume-controller' },
      firstTimestamp: '2026-11-24T19:58:46Z',
      lastTimestamp: '2026-11-24T19:59:46Z',
    });
  });

  test.each([
    ['/apis/storage.k8s.io/v1/storageclasses/slow'],
    ['/api/v1/persistentvolumes/pv0003'],
    ['/api/v1/persistentvolumes/example-local-pv'],
    [`/api/v1/namespaces/${DEV_NAMESPACE}/persistentvolumeclaims/myclaim`],
    [`/api/v1/namespaces/${DEV_NAMESPACE}/pods/small`],
    [`/api/v1/namespaces/${DEV_NAMESPACE}/pods/web-0`],
    ['/api/v1/nodes/node-1'],
    [`/api/v1/namespaces/${DEV_NAMESPACE}`],
    [`/api/v1/namespaces/${DEV_NAMESPACE}/configmaps/cm`],
    [`/api/v1/namespaces/${DEV_NAMESPACE}/secrets/s`],
    [`/api/v1/namespaces/${DEV_NAMESPACE}/events/pv0003.1`],
    ['/apis/storage.k8s.io/v1/storageclasses'],
    ['/api/v1/persistentvolumes'],
    ['/api/v1/persistentvolumeclaims'],
    [`/api/v1/namespaces/${DEV_NAMESPACE}/pods`],
    ['/api/v1/nodes'],
    ['/api/v1/namespaces'],
    [`/api/v1/namespaces/${DEV_NAMESPACE}/configmaps`],
    [`/api/v1/namespaces/${DEV_NAMESPACE}/secrets`],
    [`/api/v1/namespaces/${DEV_NAMESPACE}/events`],
  ])('GET %s as protobuf decodes to the JSON answer', async (p) => {
    const json = await api({ path: p });
    expect(json.status).toBe(200);
    const pb = await api({ path: p, headers: { Accept: CLIENT_GO } });
    expect(pb.status).toBe(200);
    expect(decoded(pb)).toStrictEqual(json.json);
  });

  test('a create with a protobuf body of any kind served, answered in protobuf', async () => {
    const pv = { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pb-pv' }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/pb' } } };
    const r = await api({ method: 'POST', path: '/api/v1/persistentvolumes', body: encodeKubeProtobuf(pv), headers: { 'Content-Type': PB, Accept: CLIENT_GO } });
    expect(r.status).toBe(201);
    const o = decoded(r) as { spec: unknown; metadata: { name: string; uid: string } };
    expect(o.metadata.name).toBe('pb-pv');
    expect(o.metadata.uid).toMatch(/./);
    expect(o.spec).toMatchObject(pv.spec);
  });

  test('a delete with protobuf DeleteOptions, as client-go sends them', async () => {
    await create('/apis/storage.k8s.io/v1/storageclasses', { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'doomed' }, provisioner: 'example.com/x' });
    const del = (body: object) => api({ method: 'DELETE', path: '/apis/storage.k8s.io/v1/storageclasses/doomed', body: encodeKubeProtobuf(body), headers: { 'Content-Type': PB, Accept: CLIENT_GO } });
    // A precondition that does not hold: nothing is deleted.
    const stale = await del({ apiVersion: 'storage.k8s.io/v1', kind: 'DeleteOptions', preconditions: { uid: 'not-the-uid' } });
    expect(stale.status).toBe(409);
    expect(decoded(stale)).toMatchObject({ kind: 'Status', reason: 'Conflict' });
    const dry = await del({ apiVersion: 'storage.k8s.io/v1', kind: 'DeleteOptions', dryRun: ['All'], propagationPolicy: 'Background' });
    expect(dry.status).toBe(200);
    expect((await api({ path: '/apis/storage.k8s.io/v1/storageclasses/doomed' })).status).toBe(200);
    const done = await del({ apiVersion: 'storage.k8s.io/v1', kind: 'DeleteOptions', gracePeriodSeconds: 0 });
    expect(done.status).toBe(200);
    expect(decoded(done)).toMatchObject({ kind: 'StorageClass', metadata: { name: 'doomed' } });
    expect((await api({ path: '/apis/storage.k8s.io/v1/storageclasses/doomed' })).status).toBe(404);
  });

  test('errors are a protobuf Status', async () => {
    const r = await api({ path: '/api/v1/persistentvolumes/nope', headers: { Accept: CLIENT_GO } });
    expect(r.status).toBe(404);
    expect(decoded(r)).toStrictEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'persistentvolumes "nope" not found', reason: 'NotFound', details: { name: 'nope', kind: 'persistentvolumes' }, code: 404 });
  });

  test('malformed protobuf is a 400 Status', async () => {
    const r = await api({ method: 'POST', path: '/api/v1/persistentvolumes', body: Buffer.from([0x6b, 0x38, 0x73, 0, 0x12, 0x7f]), headers: { 'Content-Type': PB } });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ kind: 'Status', reason: 'BadRequest', message: expect.stringMatching(/protobuf request body is malformed/) });
  });

  test('Tables stay JSON whatever else the client accepts', async () => {
    const r = await api({ path: '/api/v1/persistentvolumes', headers: { Accept: `application/json;as=Table;v=v1;g=meta.k8s.io,${PB}` } });
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.json.kind).toBe('Table');
  });
});

describe('what protobuf cannot carry', () => {
  beforeAll(async () => {
    // A typical Deployment's pod with a preStop hook: kept as sent, but Stowage's Pod table does not carry lifecycle hooks.
    const pod = manifest('pod.yaml');
    pod.metadata.name = 'hooked';
    pod.spec.containers[0].lifecycle = { preStop: { exec: { command: ['nginx', '-s', 'quit'] } } };
    await create(`/api/v1/namespaces/${DEV_NAMESPACE}/pods`, pod);
  });

  test('is answered as JSON when the client also accepts JSON', async () => {
    const r = await api({ path: `/api/v1/namespaces/${DEV_NAMESPACE}/pods/hooked`, headers: { Accept: `${PB}, */*` } });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.json.spec.containers[0].lifecycle).toEqual({ preStop: { exec: { command: ['nginx', '-s', 'quit'] } } });
  });

  test('is a 406 (as a protobuf Status) when the client accepts protobuf only', async () => {
    const r = await api({ path: `/api/v1/namespaces/${DEV_NAMESPACE}/pods/hooked`, headers: { Accept: PB } });
    expect(r.status).toBe(406);
    expect(decoded(r)).toMatchObject({ kind: 'Status', reason: 'NotAcceptable', code: 406 });
    // A list holding it is refused whole, not sent without it.
    const list = await api({ path: `/api/v1/namespaces/${DEV_NAMESPACE}/pods`, headers: { Accept: PB } });
    expect(list.status).toBe(406);
  });

  test('a write whose object protobuf cannot carry is refused before anything is stored', async () => {
    const before = await h.ts.store.currentResourceVersion();
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'never' }, spec: { containers: [{ name: 'c', lifecycle: { postStart: { exec: { command: ['true'] } } } }] } };
    const r = await api({ method: 'POST', path: `/api/v1/namespaces/${DEV_NAMESPACE}/pods`, body: pod, headers: { Accept: PB } });
    expect(r.status).toBe(406);
    const patch = await api({ method: 'PATCH', path: `/api/v1/namespaces/${DEV_NAMESPACE}/pods/small`, body: { metadata: { labels: { a: 'b' } }, spec: { hostIPC: true } }, headers: { Accept: PB, 'Content-Type': 'application/merge-patch+json' } });
    expect(patch.status).toBe(406);
    expect(await h.ts.store.currentResourceVersion()).toBe(before);
  });
});

describe('protobuf watch', () => {
  /** Splits a protobuf watch stream into [type, object] events. */
  function events(raw: Buffer): [string, Record<string, unknown>][] {
    const out: [string, Record<string, unknown>][] = [];
    let pos = 0;
    while (pos < raw.length) {
      const len = raw.readUInt32BE(pos);
      const fields = new Map(readFields(raw.subarray(pos + 4, pos + 4 + len)));
      const object = new Map(readFields(fields.get(2) as Buffer)).get(1) as Buffer;
      out.push([(fields.get(1) as Buffer).toString(), decodeKubeProtobuf(object)]);
      pos += 4 + len;
    }
    expect(pos).toBe(raw.length);
    return out;
  }

  test('a client that also accepts JSON watches in JSON (a stream cannot switch format for one object)', async () => {
    const r = await api({ path: '/apis/storage.k8s.io/v1/storageclasses?watch=true&timeoutSeconds=1', headers: { Accept: CLIENT_GO } });
    expect(r.headers['content-type']).toBe('application/json');
    expect(JSON.parse(r.text.split('\n')[0])).toMatchObject({ type: 'ADDED', object: { kind: 'StorageClass' } });
  });

  test('a pod protobuf cannot carry ends a protobuf-only watch with an ERROR event, not a silent gap', async () => {
    const r = await api({ path: `/api/v1/namespaces/${DEV_NAMESPACE}/pods?watch=true&timeoutSeconds=1&fieldSelector=metadata.name%3Dhooked`, headers: { Accept: PB } });
    expect(r.headers['content-type']).toBe(`${PB};stream=watch`);
    const got = events(r.raw);
    expect(got).toHaveLength(1);
    expect(got[0][0]).toBe('ERROR');
    expect(got[0][1]).toMatchObject({ kind: 'Status', code: 406, reason: 'NotAcceptable' });
  });

  test('length-prefixed WatchEvents with the objects in protobuf, then the watch-list bookmark', async () => {
    const q = 'watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1';
    const r = await api({ path: `/apis/storage.k8s.io/v1/storageclasses?${q}`, headers: { Accept: `${PB};stream=watch, ${PB}` } });
    expect(r.headers['content-type']).toBe(`${PB};stream=watch`);
    const got = events(r.raw);
    const json = await api({ path: '/apis/storage.k8s.io/v1/storageclasses/slow' });
    expect(got[0]).toEqual(['ADDED', json.json]);
    const last = got.at(-1)!;
    expect(last[0]).toBe('BOOKMARK');
    expect(last[1]).toMatchObject({ kind: 'StorageClass', metadata: { annotations: { 'k8s.io/initial-events-end': 'true' } } });
  });
});

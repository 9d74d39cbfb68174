// @kubernetes/client-node against a real Stowage API server: CRUD on every kind, and an
// informer that sees adds, updates and deletes, stays connected while idle, and carries
// on after the server restarts.
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DEV_NAMESPACE, startKubeHarness, waitFor, type KubeHarness } from './harness';

/** Server keep-alive for idle watches in this file; client-node's own inactivity timeout is scaled alike below. */
const KEEP_ALIVE_MS = 300;

let h: KubeHarness;
let kc: k8s.KubeConfig;
let core: k8s.CoreV1Api;
let storage: k8s.StorageV1Api;

beforeAll(async () => {
  h = await startKubeHarness({ watchKeepAliveMs: KEEP_ALIVE_MS });
  kc = new k8s.KubeConfig();
  kc.loadFromFile(h.kubeconfig.admin);
  core = kc.makeApiClient(k8s.CoreV1Api);
  storage = kc.makeApiClient(k8s.StorageV1Api);
});
afterAll(async () => {
  await h?.close();
});

const jsonPatch = (labels: Record<string, string>) => [{ op: 'add', path: '/metadata/labels', value: labels }];

interface KindCase {
  kind: string;
  body: Record<string, any>;
  create(body: any): Promise<any>;
  read(name: string): Promise<any>;
  list(): Promise<{ items: any[] }>;
  replace(name: string, body: any): Promise<any>;
  patch(name: string, body: any): Promise<any>;
  remove(name: string): Promise<any>;
}

const ns = DEV_NAMESPACE;
const kinds: KindCase[] = [
  {
    kind: 'PersistentVolume',
    body: { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'cn-pv' }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/cn' } } },
    create: (body) => core.createPersistentVolume({ body }),
    read: (name) => core.readPersistentVolume({ name }),
    list: () => core.listPersistentVolume(),
    replace: (name, body) => core.replacePersistentVolume({ name, body }),
    patch: (name, body) => core.patchPersistentVolume({ name, body }),
    remove: (name) => core.deletePersistentVolume({ name }),
  },
  {
    kind: 'PersistentVolumeClaim',
    body: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'cn-pvc' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
    create: (body) => core.createNamespacedPersistentVolumeClaim({ namespace: ns, body }),
    read: (name) => core.readNamespacedPersistentVolumeClaim({ name, namespace: ns }),
    list: () => core.listNamespacedPersistentVolumeClaim({ namespace: ns }),
    replace: (name, body) => core.replaceNamespacedPersistentVolumeClaim({ name, namespace: ns, body }),
    patch: (name, body) => core.patchNamespacedPersistentVolumeClaim({ name, namespace: ns, body }),
    remove: (name) => core.deleteNamespacedPersistentVolumeClaim({ name, namespace: ns }),
  },
  {
    kind: 'StorageClass',
    body: { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'cn-sc' }, provisioner: 'example.com/cn' },
    create: (body) => storage.createStorageClass({ body }),
    read: (name) => storage.readStorageClass({ name }),
    list: () => storage.listStorageClass(),
    replace: (name, body) => storage.replaceStorageClass({ name, body }),
    patch: (name, body) => storage.patchStorageClass({ name, body }),
    remove: (name) => storage.deleteStorageClass({ name }),
  },
  {
    kind: 'Namespace',
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'cn-ns' } },
    create: (body) => core.createNamespace({ body }),
    read: (name) => core.readNamespace({ name }),
    list: () => core.listNamespace(),
    replace: (name, body) => core.replaceNamespace({ name, body }),
    patch: (name, body) => core.patchNamespace({ name, body }),
    remove: (name) => core.deleteNamespace({ name }),
  },
  {
    kind: 'Node',
    body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'cn-node', labels: { 'kubernetes.io/hostname': 'cn-node' } } },
    create: (body) => core.createNode({ body }),
    read: (name) => core.readNode({ name }),
    list: () => core.listNode(),
    replace: (name, body) => core.replaceNode({ name, body }),
    patch: (name, body) => core.patchNode({ name, body }),
    remove: (name) => core.deleteNode({ name }),
  },
  {
    kind: 'Event',
    body: {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'cn-event', namespace: ns },
      involvedObject: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', name: 'cn-pvc', namespace: ns },
      reason: 'Testing',
      message: 'from client-node',
      type: 'Normal',
      source: { component: 'client-node-test' },
    },
    create: (body) => core.createNamespacedEvent({ namespace: ns, body }),
    read: (name) => core.readNamespacedEvent({ name, namespace: ns }),
    list: () => core.listNamespacedEvent({ namespace: ns }),
    replace: (name, body) => core.replaceNamespacedEvent({ name, namespace: ns, body }),
    patch: (name, body) => core.patchNamespacedEvent({ name, namespace: ns, body }),
    remove: (name) => core.deleteNamespacedEvent({ name, namespace: ns }),
  },
];

describe('@kubernetes/client-node CRUD', () => {
  test.each(kinds)('$kind: create, read, list, replace, patch, delete', async (c) => {
    const name = c.body.metadata.name;
    const created = await c.create(structuredClone(c.body));
    expect(created.metadata.name).toBe(name);
    expect(created.metadata.uid).toBeTruthy();
    const read = await c.read(name);
    expect(read.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    expect((await c.list()).items.map((o) => o.metadata.name)).toContain(name);
    read.metadata.annotations = { 'example.com/replaced': 'yes' };
    const replaced = await c.replace(name, read);
    expect(replaced.metadata.annotations).toEqual({ 'example.com/replaced': 'yes' });
    const patched = await c.patch(name, jsonPatch({ patched: 'yes' }));
    expect(patched.metadata.labels).toMatchObject({ patched: 'yes' });
    await c.remove(name);
    await waitFor(async () => {
      try {
        await c.read(name);
        return false;
      } catch (e) {
        return (e as { code?: number }).code === 404;
      }
    }, `${c.kind} ${name} to be gone`);
  });

  test('a stale resourceVersion on replace is a 409 with a Conflict Status', async () => {
    const pv = await core.createPersistentVolume({ body: structuredClone(kinds[0].body) as k8s.V1PersistentVolume });
    await core.patchPersistentVolume({ name: 'cn-pv', body: jsonPatch({ bump: '1' }) });
    const err = await core.replacePersistentVolume({ name: 'cn-pv', body: pv }).catch((e) => e);
    expect(err.code).toBe(409);
    expect(JSON.parse(err.body)).toMatchObject({ kind: 'Status', reason: 'Conflict', code: 409 });
    await core.deletePersistentVolume({ name: 'cn-pv' });
  });

  test('merge and strategic merge patches through the content-type option', async () => {
    const body = structuredClone(kinds[0].body) as k8s.V1PersistentVolume;
    body.metadata!.name = 'cn-patch';
    await core.createPersistentVolume({ body });
    const merge = await core.patchPersistentVolume(
      { name: 'cn-patch', body: { metadata: { labels: { a: '1' } } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    expect(merge.metadata?.labels).toEqual({ a: '1' });
    const smp = await core.patchPersistentVolume(
      { name: 'cn-patch', body: { metadata: { finalizers: ['example.com/x'] } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch),
    );
    // Strategic merge adds to the list, which already held the protection finalizer from creation.
    expect(smp.metadata?.finalizers).toEqual(['example.com/x', 'kubernetes.io/pv-protection']);
    const deleting = await core.deletePersistentVolume({ name: 'cn-patch' });
    expect(deleting.metadata?.deletionTimestamp).toBeTruthy();
    await core.patchPersistentVolume({ name: 'cn-patch', body: [{ op: 'remove', path: '/metadata/finalizers' }] });
    await expect(core.readPersistentVolume({ name: 'cn-patch' })).rejects.toMatchObject({ code: 404 });
  });
});

describe('@kubernetes/client-node informer', () => {
  test('sees add, update and delete; stays connected while idle; carries on after a server restart', async () => {
    const watch = new k8s.Watch(kc);
    // client-node gives up on a watch silent for 30 s; the server's keep-alive comes every
    // 15 s. Scaled down here (keep-alive KEEP_ALIVE_MS, timeout 10x that) to keep the test short.
    // (requestTimeoutMs is declared private in the typings but is a plain property.)
    (watch as unknown as { requestTimeoutMs: number }).requestTimeoutMs = KEEP_ALIVE_MS * 10;
    const informer = new k8s.ListWatch<k8s.V1PersistentVolume>('/api/v1/persistentvolumes', watch, () => core.listPersistentVolume(), false);
    const seen: string[] = [];
    let connects = 0;
    let errors = 0;
    informer.on('add', (o) => seen.push(`add ${o.metadata?.name}`));
    informer.on('update', (o) => seen.push(`update ${o.metadata?.name} ${o.metadata?.labels?.step ?? ''}`));
    informer.on('delete', (o) => seen.push(`delete ${o.metadata?.name}`));
    informer.on('connect', () => connects++);
    // client-node's documented pattern: an informer stops on a connection error; restart it.
    informer.on('error', () => {
      errors++;
      setTimeout(() => void informer.start().catch(() => {}), 200);
    });
    await informer.start();
    try {
      const body = structuredClone(kinds[0].body) as k8s.V1PersistentVolume;
      body.metadata!.name = 'inf-pv';
      await core.createPersistentVolume({ body });
      await waitFor(() => seen.includes('add inf-pv'), 'the add');
      await core.patchPersistentVolume({ name: 'inf-pv', body: jsonPatch({ step: 'one' }) });
      await waitFor(() => seen.includes('update inf-pv one'), 'the update');

      // Idle for over three client timeouts: the keep-alive holds the same watch open.
      const connectsBefore = connects;
      await new Promise((r) => setTimeout(r, KEEP_ALIVE_MS * 35));
      expect(connects).toBe(connectsBefore);
      expect(errors).toBe(0);
      await core.patchPersistentVolume({ name: 'inf-pv', body: jsonPatch({ step: 'two' }) });
      await waitFor(() => seen.includes('update inf-pv two'), 'an update after the idle time');

      // Restart the server; a change made while it was down arrives afterwards.
      await h.stopServer();
      const admin = (await h.app.users.byName('admin'))!;
      const cur = await h.app.objects.get(admin, 'PersistentVolume', undefined, 'inf-pv');
      await h.app.objects.update(admin, { ...cur, metadata: { ...cur.metadata, labels: { step: 'while-down' } } });
      await h.startServer();
      await waitFor(() => seen.includes('update inf-pv while-down'), 'the change made while the server was down', 15_000);
      await core.deletePersistentVolume({ name: 'inf-pv' });
      await waitFor(() => seen.includes('delete inf-pv'), 'the delete');
      expect(informer.get('inf-pv')).toBeUndefined();
    } finally {
      await informer.stop();
    }
  });
});

// client-node 2.0.1's informer lists then watches; it has no watch-list mode. Newer
// client-go informers ask for watch-list, so this drives the same request through
// client-node's Watch: the initial state as ADDED events, the bookmark that ends it, then
// live changes on the same stream.
test('watch-list through client-node: initial objects, the initial-events-end bookmark, then live events', async () => {
  for (const name of ['wl-a', 'wl-b']) {
    await core.createPersistentVolume({
      body: { metadata: { name, labels: { wl: 'yes' } }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/tmp/${name}` } } },
    });
  }
  const seen: { type: string; name?: string; end?: string }[] = [];
  const watch = new k8s.Watch(kc);
  const req = await watch.watch(
    '/api/v1/persistentvolumes',
    { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true, labelSelector: 'wl=yes' },
    (type, obj) => seen.push({ type, name: obj?.metadata?.name, end: obj?.metadata?.annotations?.['k8s.io/initial-events-end'] }),
    () => undefined,
  );
  try {
    await waitFor(() => seen.some((e) => e.type === 'BOOKMARK' && e.end === 'true'), 'the initial-events-end bookmark');
    const end = seen.findIndex((e) => e.type === 'BOOKMARK' && e.end === 'true');
    expect(seen.slice(0, end).map((e) => `${e.type} ${e.name}`).sort()).toEqual(['ADDED wl-a', 'ADDED wl-b']);
    await core.createPersistentVolume({
      body: { metadata: { name: 'wl-c', labels: { wl: 'yes' } }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/wl-c' } } },
    });
    await waitFor(() => seen.slice(end + 1).some((e) => e.type === 'ADDED' && e.name === 'wl-c'), 'the live ADDED event');
  } finally {
    req.abort();
    for (const name of ['wl-a', 'wl-b', 'wl-c']) await core.deletePersistentVolume({ name }).catch(() => undefined);
  }
});

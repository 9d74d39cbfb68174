// Watch as clients see it on the wire: initial state, resuming from a version, 410 Expired
// in-stream, selectors, bookmarks, keep-alive, timeoutSeconds, Table output, the legacy
// /watch/ paths and authorization before the stream starts.
import https from 'node:https';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { apiClient } from './api-client';
import { DEV_NAMESPACE, startKubeHarness, waitFor, type KubeHarness } from './harness';

const KEEP_ALIVE_MS = 300;
let h: KubeHarness;
let api: ReturnType<typeof apiClient>;

interface OpenWatch {
  status: number;
  events: { type: string; object: any }[];
  raw: string;
  ended: Promise<void>;
  close(): void;
}

function openWatch(path: string, o: { token?: string; accept?: string } = {}): Promise<OpenWatch> {
  const url = new URL(h.url);
  const token = o.token === 'dev' ? h.devToken : h.adminToken;
  return new Promise((resolve, reject) => {
    const req = https.request(
      { host: url.hostname, port: url.port, path, ca: h.caPem, headers: { Authorization: `Bearer ${token}`, Accept: o.accept ?? 'application/json' } },
      (res) => {
        let buf = '';
        let endResolve!: () => void;
        const w: OpenWatch = {
          status: res.statusCode ?? 0,
          events: [],
          raw: '',
          ended: new Promise((r) => (endResolve = r)),
          close: () => req.destroy(),
        };
        res.on('data', (c: Buffer) => {
          w.raw += c.toString();
          buf += c.toString();
          let nl: number;
          while ((nl = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, nl).trim();
            buf = buf.slice(nl + 1);
            if (line) w.events.push(JSON.parse(line));
          }
        });
        res.on('end', endResolve);
        res.on('close', endResolve);
        resolve(w);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const PVS = '/api/v1/persistentvolumes';
const pv = (name: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name, labels },
  spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/w' } },
});
const mergePatch = (name: string, body: object) =>
  api({ method: 'PATCH', path: `${PVS}/${name}`, headers: { 'Content-Type': 'application/merge-patch+json' }, body });
const summary = (w: OpenWatch) => w.events.filter((e) => e.type !== 'BOOKMARK').map((e) => `${e.type} ${e.object.metadata?.name}`);

beforeAll(async () => {
  h = await startKubeHarness({ watchKeepAliveMs: KEEP_ALIVE_MS });
  api = apiClient(h);
});
afterAll(async () => {
  await h?.close();
});

describe('watch', () => {
  test('without a resourceVersion: the current state as ADDED, then changes in order', async () => {
    await api({ method: 'POST', path: PVS, body: pv('w-1', { group: 'a' }) });
    const w = await openWatch(`${PVS}?watch=true&labelSelector=group%3Da`);
    try {
      await waitFor(() => w.events.length === 1, 'the initial ADDED');
      await api({ method: 'POST', path: PVS, body: pv('w-2', { group: 'a' }) });
      await mergePatch('w-1', { spec: { persistentVolumeReclaimPolicy: 'Delete' } });
      await api({ method: 'DELETE', path: `${PVS}/w-2` });
      // The delete is two changes: pv-protection holds the volume (MODIFIED), then lets it go (DELETED).
      await waitFor(() => w.events.length === 5, 'five events');
      expect(summary(w)).toEqual(['ADDED w-1', 'ADDED w-2', 'MODIFIED w-1', 'MODIFIED w-2', 'DELETED w-2']);
      const rvs = w.events.slice(1).map((e) => BigInt(e.object.metadata.resourceVersion));
      expect([...rvs].sort((a, b) => (a < b ? -1 : 1))).toEqual(rvs);
    } finally {
      w.close();
    }
  });

  test('from a resourceVersion: exactly the changes after it (the legacy /watch/ path too)', async () => {
    const created = await api({ method: 'POST', path: PVS, body: pv('w-3') });
    const rv = created.json.metadata.resourceVersion;
    await mergePatch('w-3', { metadata: { labels: { step: '1' } } });
    await mergePatch('w-3', { metadata: { labels: { step: '2' } } });
    for (const path of [`${PVS}?watch=1&resourceVersion=${rv}&fieldSelector=metadata.name%3Dw-3`, `/api/v1/watch/persistentvolumes/w-3?resourceVersion=${rv}`]) {
      const w = await openWatch(path);
      try {
        await waitFor(() => w.events.length === 2, 'two MODIFIED events');
        expect(w.events.map((e) => `${e.type} ${e.object.metadata.labels.step}`)).toEqual(['MODIFIED 1', 'MODIFIED 2']);
      } finally {
        w.close();
      }
    }
  });

  test('a compacted resourceVersion is answered in-stream with 410 Expired', async () => {
    await api({ method: 'POST', path: PVS, body: pv('w-4') });
    await mergePatch('w-4', { metadata: { labels: { a: 'b' } } });
    await h.ts.store.compact(0, 0);
    const w = await openWatch(`${PVS}?watch=true&resourceVersion=1`);
    await w.ended;
    expect(w.status).toBe(200);
    expect(w.events).toHaveLength(1);
    expect(w.events[0].type).toBe('ERROR');
    expect(w.events[0].object).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Expired', code: 410 });
  });

  test('selectors: an object entering the selection is ADDED, one leaving it is DELETED', async () => {
    await api({ method: 'POST', path: PVS, body: pv('w-5', { color: 'red' }) });
    const w = await openWatch(`${PVS}?watch=true&labelSelector=color%3Dblue`);
    try {
      await new Promise((r) => setTimeout(r, 100));
      await mergePatch('w-5', { metadata: { labels: { color: 'blue' } } });
      await mergePatch('w-5', { metadata: { labels: { size: 'l' } } });
      await mergePatch('w-5', { metadata: { labels: { color: 'green' } } });
      await mergePatch('w-5', { metadata: { labels: { size: 'xl' } } });
      await waitFor(() => w.events.length >= 3, 'three events');
      await new Promise((r) => setTimeout(r, 200));
      expect(summary(w)).toEqual(['ADDED w-5', 'MODIFIED w-5', 'DELETED w-5']);
    } finally {
      w.close();
    }
  });

  test('bookmarks when asked; a blank-line keep-alive otherwise', async () => {
    const rv = (await api({ path: PVS })).json.metadata.resourceVersion;
    const b = await openWatch(`${PVS}?watch=true&allowWatchBookmarks=true&resourceVersion=${rv}`);
    const k = await openWatch(`${PVS}?watch=true&resourceVersion=${rv}`);
    try {
      await waitFor(() => b.events.some((e) => e.type === 'BOOKMARK'), 'a bookmark');
      const bm = b.events.find((e) => e.type === 'BOOKMARK')!;
      expect(bm.object).toEqual({ kind: 'PersistentVolume', apiVersion: 'v1', metadata: { resourceVersion: rv } });
      await waitFor(() => k.raw.includes('\n'), 'a keep-alive');
      expect(k.events).toEqual([]);
      expect(k.raw.trim()).toBe('');
    } finally {
      b.close();
      k.close();
    }
  });

  test('sendInitialEvents ends the initial state with a bookmark', async () => {
    const w = await openWatch(`${PVS}?watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&resourceVersion=0`);
    try {
      await waitFor(() => w.events.some((e) => e.type === 'BOOKMARK'), 'the end-of-initial-events bookmark');
      const i = w.events.findIndex((e) => e.type === 'BOOKMARK');
      expect(w.events.slice(0, i).every((e) => e.type === 'ADDED')).toBe(true);
      expect(w.events[i].object.metadata.annotations).toEqual({ 'k8s.io/initial-events-end': 'true' });
    } finally {
      w.close();
    }
  });

  test('sendInitialEvents=false without a version starts from now', async () => {
    const w = await openWatch(`${PVS}?watch=true&sendInitialEvents=false&resourceVersionMatch=NotOlderThan&fieldSelector=metadata.name%3Dw-7`);
    try {
      await api({ method: 'POST', path: PVS, body: pv('w-7') });
      await waitFor(() => w.events.length === 1, 'the new object');
      expect(summary(w)).toEqual(['ADDED w-7']);
    } finally {
      w.close();
    }
  });

  test('timeoutSeconds ends the stream', async () => {
    const started = Date.now();
    const w = await openWatch(`${PVS}?watch=true&timeoutSeconds=1&resourceVersion=0`);
    await w.ended;
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  test('as a Table: column definitions on the first event only', async () => {
    const rv = (await api({ path: PVS })).json.metadata.resourceVersion;
    const w = await openWatch(`${PVS}?watch=true&resourceVersion=${rv}`, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' });
    try {
      await api({ method: 'POST', path: PVS, body: pv('w-6') });
      await mergePatch('w-6', { metadata: { labels: { a: 'b' } } });
      await waitFor(() => w.events.length === 2, 'two events');
      expect(w.events[0].object.kind).toBe('Table');
      expect(w.events[0].object.columnDefinitions[0].name).toBe('Name');
      expect(w.events[0].object.rows[0].cells[0]).toBe('w-6');
      expect(w.events[0].object.rows[0].object).toMatchObject({ kind: 'PartialObjectMetadata', metadata: { name: 'w-6' } });
      expect(w.events[1].object.columnDefinitions).toBeUndefined();
    } finally {
      w.close();
    }
  });

  test('watches of the same changes get the same lines, each version as it was (the JSON is made once for all)', async () => {
    const created = await api({ method: 'POST', path: PVS, body: pv('w-shared') });
    const rv = created.json.metadata.resourceVersion;
    const path = `${PVS}?watch=1&resourceVersion=${rv}&fieldSelector=metadata.name%3Dw-shared`;
    const watches = await Promise.all([openWatch(path), openWatch(path), openWatch(path, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' })]);
    try {
      await mergePatch('w-shared', { metadata: { labels: { step: '1' } } });
      await mergePatch('w-shared', { metadata: { labels: { step: '2' } } });
      for (const w of watches) await waitFor(() => w.events.length === 2, 'two MODIFIED events');
      const [a, b, table] = watches;
      expect(a.raw).toBe(b.raw);
      expect(a.events.map((e) => `${e.type} ${e.object.metadata.labels.step} ${e.object.metadata.resourceVersion}`)).toEqual([
        `MODIFIED 1 ${a.events[0].object.metadata.resourceVersion}`,
        `MODIFIED 2 ${a.events[1].object.metadata.resourceVersion}`,
      ]);
      expect(Number(a.events[1].object.metadata.resourceVersion)).toBeGreaterThan(Number(a.events[0].object.metadata.resourceVersion));
      // The Table watch is shaped per watch, not the shared JSON.
      expect(table.events.map((e) => e.object.kind)).toEqual(['Table', 'Table']);
    } finally {
      for (const w of watches) w.close();
    }
  });

  test('a developer may watch claims in their namespace but not volumes', async () => {
    const denied = await api({ token: 'dev', path: `${PVS}?watch=true` });
    expect(denied.status).toBe(403);
    expect(denied.json).toMatchObject({ kind: 'Status', reason: 'Forbidden' });
    expect(denied.json.message).toMatch(/cannot watch resource "persistentvolumes"/);
    const w = await openWatch(`/api/v1/namespaces/${DEV_NAMESPACE}/persistentvolumeclaims?watch=true`, { token: 'dev' });
    try {
      expect(w.status).toBe(200);
      await api({
        method: 'POST',
        path: `/api/v1/namespaces/${DEV_NAMESPACE}/persistentvolumeclaims`,
        body: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'wc' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
      });
      await waitFor(() => summary(w).includes('ADDED wc'), 'the claim');
    } finally {
      w.close();
    }
  });
});

describe('list', () => {
  test('limit and continue page through everything once', async () => {
    for (let i = 0; i < 7; i++) await api({ method: 'POST', path: PVS, body: pv(`page-${i}`, { paged: 'yes' }) });
    const names: string[] = [];
    let cont = '';
    let pages = 0;
    do {
      const r = await api({ path: `${PVS}?labelSelector=paged%3Dyes&limit=3${cont ? `&continue=${encodeURIComponent(cont)}` : ''}` });
      expect(r.status).toBe(200);
      expect(r.json.kind).toBe('PersistentVolumeList');
      names.push(...r.json.items.map((o: any) => o.metadata.name));
      cont = r.json.metadata.continue ?? '';
      pages++;
    } while (cont);
    expect(names).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => `page-${i}`));
    expect(pages).toBe(3);
  });

  test('as a Table with the objects included', async () => {
    const r = await api({ path: `${PVS}?labelSelector=paged%3Dyes&includeObject=Object`, headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    expect(r.json.kind).toBe('Table');
    expect(r.json.apiVersion).toBe('meta.k8s.io/v1');
    expect(r.json.rows).toHaveLength(7);
    expect(r.json.rows[0].object.kind).toBe('PersistentVolume');
  });

  test('fieldValidation Warn drops unknown fields with a Warning header', async () => {
    const body = { ...pv('warned'), spec: { ...pv('warned').spec, speed: 'fast' } };
    const r = await api({ method: 'POST', path: PVS, body });
    expect(r.status).toBe(201);
    expect(r.headers.warning).toBe('299 - "unknown field \\"spec.speed\\""');
    expect(r.json.spec.speed).toBeUndefined();
  });

  test('generateName makes a name', async () => {
    const r = await api({ method: 'POST', path: PVS, body: { ...pv(''), metadata: { generateName: 'gen-' } } });
    expect(r.status).toBe(201);
    expect(r.json.metadata.name).toMatch(/^gen-[a-z0-9]{5}$/);
  });
});

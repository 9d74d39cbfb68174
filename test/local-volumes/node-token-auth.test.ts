// What a node token can and cannot do, through the real transports: the agent API of its
// own node only; 403 for another node's agent API, every Kubernetes REST path, and tRPC.
import https from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebServer, type WebServer } from '../../server/http/web-server';
import { openLocalHarness, type LocalHarness } from './harness';
import { sqlOf } from '../../server/store/sql-handle';

let h: LocalHarness;
let web: WebServer;
let tokenA: string;
let tokenB: string;
let admin: string;
let jobOfB: string;

function call(method: string, p: string, token: string | undefined, body?: unknown): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = https.request(
      new URL(p, h.api.url),
      {
        method,
        ca: h.api.caPem,
        headers: {
          ...(token ? { Authorization: `Bearer ${token}` } : {}),
          ...(data ? { 'Content-Type': 'application/json', 'Content-Length': String(data.length) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // not JSON
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

beforeAll(async () => {
  h = await openLocalHarness();
  tokenA = await h.tokenFor('node-a');
  tokenB = await h.tokenFor('node-b');
  await h.app.users.create({ name: 'root', role: 'admin' });
  admin = await h.app.users.createToken('root');
  const { job } = await h.app.nodeAgent.jobs.record({
    nodeName: 'node-b',
    pvName: 'local-pv-b',
    pvUid: 'uid-b',
    hostPath: `${h.disks}/b`,
    className: 'local-test',
    volumeMode: 'Filesystem',
    method: 'files',
    command: [],
    fsType: '',
    state: 'queued',
  });
  jobOfB = job.id;
  web = await startWebServer({ app: h.app, host: '127.0.0.1', port: 0, dir: process.cwd(), pages: false });
});
afterAll(async () => {
  await web?.close();
  await h?.close();
});

const agent = (p: string) => `/apis/agent.stowage.io/v1/${p}`;

describe('node tokens', () => {
  it('act for their own node', async () => {
    expect((await call('GET', agent('whoami'), tokenA)).body).toEqual({ nodeName: 'node-a' });
    const cfg = await call('GET', agent('nodes/node-a/config'), tokenA);
    expect(cfg.status).toBe(200);
    expect(cfg.body.classes.map((c: { className: string }) => c.className)).toEqual(['local-test']);
    expect((await call('POST', agent('nodes/node-a/heartbeat'), tokenA, {})).status).toBe(200);
    expect((await call('PUT', agent('nodes/node-a/discoveries'), tokenA, { entries: [] })).status).toBe(200);
    // What the agent wrote (its Node) is in the history as the agent's.
    const actors = await sqlOf(h.app.store).$queryRawUnsafe<{ action: string; actor: string }[]>(
      "SELECT action, actor FROM history WHERE kind = 'Node' AND name = 'node-a' ORDER BY history.rv",
    );
    // (Issuing the token made the Node, outside any request: system.)
    expect(actors).toEqual([
      { action: 'create', actor: 'system' },
      { action: 'status', actor: 'agent:node-a' },
    ]);
  });

  it.each([
    { name: "another node's configuration", method: 'GET', path: agent('nodes/node-b/config') },
    { name: "another node's heartbeat", method: 'POST', path: agent('nodes/node-b/heartbeat'), body: {} },
    { name: "another node's discoveries", method: 'PUT', path: agent('nodes/node-b/discoveries'), body: { entries: [] } },
    { name: "another node's cleanup jobs", method: 'POST', path: agent('nodes/node-b/cleanups/claim'), body: { instance: 'x', running: [], max: 4 } },
    { name: "another node's cleanup progress", method: 'POST', path: agent(`nodes/node-b/cleanups/${'0'.repeat(8)}-0000-0000-0000-000000000000/progress`), body: {} },
    { name: 'list PVs', method: 'GET', path: '/api/v1/persistentvolumes' },
    { name: 'get a PV', method: 'GET', path: '/api/v1/persistentvolumes/local-pv-b' },
    { name: 'create a PV', method: 'POST', path: '/api/v1/persistentvolumes', body: { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'x' } } },
    { name: 'list claims', method: 'GET', path: '/api/v1/persistentvolumeclaims' },
    { name: 'create a claim', method: 'POST', path: '/api/v1/namespaces/apps/persistentvolumeclaims', body: {} },
    { name: 'its own Node object', method: 'GET', path: '/api/v1/nodes/node-a' },
    { name: 'patch its Node status directly', method: 'PATCH', path: '/api/v1/nodes/node-a/status', body: {} },
    { name: 'ConfigMaps', method: 'GET', path: '/api/v1/namespaces/kube-system/configmaps/local-volume-config' },
    { name: 'discovery', method: 'GET', path: '/api' },
  ])('cannot: $name (403)', async ({ method, path, body }) => {
    const r = await call(method, path, tokenA, body);
    expect(r.status).toBe(403);
    expect(r.body.kind).toBe('Status');
    expect(r.body.reason).toBe('Forbidden');
  });

  it("cannot settle another node's job through its own node's path", async () => {
    const progress = await call('POST', agent(`nodes/node-a/cleanups/${jobOfB}/progress`), tokenA, { instance: 'i1', progress: { done: '1', total: '2' } });
    expect(progress.status).toBe(200);
    expect(progress.body.cancel).toBe(true); // not its job: stop
    const result = await call('POST', agent(`nodes/node-a/cleanups/${jobOfB}/result`), tokenA, { instance: 'i1', result: { ok: true } });
    expect(result.status).toBe(404);
    expect((await h.app.nodeAgent.jobs.get(jobOfB))?.state).toBe('queued');
    // And claiming on its own node never hands it node-b's job.
    const claim = await call('POST', agent('nodes/node-a/cleanups/claim'), tokenA, { instance: 'i1', running: [], max: 8 });
    expect(claim.body.jobs).toEqual([]);
  });

  it('cannot report a path outside its discovery directories', async () => {
    const r = await call('PUT', agent('nodes/node-a/discoveries'), tokenA, {
      entries: [{ className: 'local-test', entryName: 'etc', hostPath: '/etc', volumeMode: 'Filesystem', capacityBytes: '1', eligible: true }],
    });
    expect(r.status).toBe(400);
    const dots = await call('PUT', agent('nodes/node-a/discoveries'), tokenA, {
      entries: [{ className: 'local-test', entryName: '..', hostPath: `${h.disks}/..`, volumeMode: 'Filesystem', capacityBytes: '1', eligible: true }],
    });
    expect(dots.status).toBe(400);
    expect(await h.app.nodeAgent.disks.listForNode('node-a')).toEqual([]);
  });

  it('cannot set node-restriction labels on its node', async () => {
    const r = await call('POST', agent('nodes/node-a/heartbeat'), tokenA, { labels: { 'node-restriction.kubernetes.io/trusted': 'yes' } });
    expect(r.status).toBe(403);
  });

  it.each([
    { name: "another node's host name", labels: { 'kubernetes.io/hostname': 'node-b' } },
    { name: 'a node role', labels: { 'node-role.kubernetes.io/control-plane': '' } },
    { name: 'an old-style role', labels: { 'kubernetes.io/role': 'master' } },
    { name: 'a zone other than the one an admin set', labels: { 'topology.kubernetes.io/zone': 'zone-2' } },
  ])('cannot set $name on its node (403, nothing written)', async ({ labels }) => {
    const node = await h.app.store.get('Node', undefined, 'node-a');
    await h.app.store.update({ ...node, metadata: { ...node.metadata, labels: { ...node.metadata.labels, 'topology.kubernetes.io/zone': 'zone-1' } } });
    const before = (await h.app.store.get('Node', undefined, 'node-a')).metadata.labels;
    const r = await call('POST', agent('nodes/node-a/heartbeat'), tokenA, { labels });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ kind: 'Status', reason: 'Forbidden' });
    expect((await h.app.store.get('Node', undefined, 'node-a')).metadata.labels).toEqual(before);
  });

  it('sets its own host name, os, arch, its zone unchanged and labels of its own', async () => {
    const labels = { 'kubernetes.io/hostname': 'node-a', 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64', 'topology.kubernetes.io/zone': 'zone-1', 'example.com/rack': 'r7' };
    const r = await call('POST', agent('nodes/node-a/heartbeat'), tokenA, { labels });
    expect(r.status).toBe(200);
    expect((await h.app.store.get('Node', undefined, 'node-a')).metadata.labels).toMatchObject(labels);
  });

  it('a user token (even an admin) is refused by the agent API; no token is 401', async () => {
    expect((await call('GET', agent('nodes/node-a/config'), admin)).status).toBe(403);
    expect((await call('GET', agent('nodes/node-a/config'), undefined)).status).toBe(401);
    expect((await call('GET', agent('nodes/node-a/config'), 'swn_not-a-token')).status).toBe(401);
    expect((await call('GET', '/api/v1/persistentvolumes', admin)).status).toBe(200);
    expect(tokenB).not.toBe(tokenA);
  });

  it('tRPC answers a node token with FORBIDDEN, users included', async () => {
    for (const proc of ['objects.list?input=' + encodeURIComponent(JSON.stringify({ kind: 'PersistentVolume' })), 'auth.me']) {
      const res = await fetch(`${web.url}/api/trpc/${proc}`, { headers: { Authorization: `Bearer ${tokenA}` } });
      expect(res.status).toBe(403);
    }
  });
});

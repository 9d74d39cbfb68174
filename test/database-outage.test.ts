// Postgres going away under a running API (a restart, a failover behind the same address):
// requests fail fast with a retryable 503 ServiceUnavailable and Retry-After, never a 500
// and never a hang, and the API serves again by itself once the database is back. The
// database sits behind a TCP relay the test cuts and restores; everything else is real.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startApiServer, type RunningApiServer } from '../server/kube/api-server';
import { openTestApp } from './app';
import { createTestDatabase } from './db';

/** A TCP relay to Postgres that can be cut (listener closed, every connection reset) and restored. */
class Relay {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  port = 0;
  constructor(private readonly target: { host: string; port: number }) {}
  async open(): Promise<void> {
    this.server = net.createServer((client) => {
      const upstream = net.connect(this.target.port, this.target.host);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => {});
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((r) => this.server!.listen(this.port, '127.0.0.1', () => r()));
    this.port = (this.server.address() as net.AddressInfo).port;
  }
  async cut(): Promise<void> {
    await new Promise<void>((r) => {
      this.server?.close(() => r());
      for (const s of this.sockets) s.resetAndDestroy();
    });
  }
}

let relay: Relay;
let app: Awaited<ReturnType<typeof openTestApp>>;
let api: RunningApiServer;
let dir: string;
let token: string;

function get(p: string): Promise<{ status: number; retryAfter?: string; body: any; ms: number }> {
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    https
      .get(`${api.url}${p}`, { ca: api.caPem, headers: { authorization: `Bearer ${token}`, accept: 'application/json' } }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], body: JSON.parse(body), ms: Date.now() - t0 }));
      })
      .on('error', reject);
  });
}

beforeAll(async () => {
  const direct = new URL(await createTestDatabase());
  // The relay speaks TCP: to the server's loopback port (Stowage itself may use its socket).
  relay = new Relay({ host: '127.0.0.1', port: Number(direct.port) });
  await relay.open();
  const viaRelay = new URL(direct);
  viaRelay.hostname = '127.0.0.1';
  viaRelay.port = String(relay.port);
  app = await openTestApp({}, viaRelay.toString());
  await app.users.create({ name: `admin-${randomBytes(3).toString('hex')}`, role: 'admin' }).then(async ({ user }) => {
    token = await app.users.createToken(user.name);
  });
  dir = mkdtempSync(path.join(os.tmpdir(), 'stowage-outage-'));
  api = await startApiServer({ app, dataDir: dir, host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await relay?.cut();
  await api?.close();
  await app?.close().catch(() => {});
  rmSync(dir, { recursive: true, force: true });
});

test('database gone: 503 ServiceUnavailable with Retry-After, fast; back by itself once it returns', async () => {
  expect((await get('/api/v1/persistentvolumes')).status).toBe(200);

  await relay.cut();
  const down = await get('/api/v1/persistentvolumes');
  expect(down.status).toBe(503);
  expect(down.retryAfter).toBe('1');
  expect(down.body).toMatchObject({ kind: 'Status', reason: 'ServiceUnavailable', code: 503, details: { retryAfterSeconds: 1 } });
  expect(down.body.message).toMatch(/^the server is currently unable to handle the request: the database .*; retry$/);
  expect(down.ms).toBeLessThan(30_000);
  // Writes too.
  const create = await new Promise<number>((resolve, reject) => {
    const req = https.request(`${api.url}/api/v1/namespaces`, { method: 'POST', ca: api.caPem, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end(JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'while-down' } }));
  });
  expect(create).toBe(503);

  await relay.open(); // same port: "the same address"
  const deadline = Date.now() + 30_000;
  let back = await get('/api/v1/persistentvolumes');
  while (back.status !== 200 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    back = await get('/api/v1/persistentvolumes');
  }
  expect(back.status).toBe(200);
}, 90_000);

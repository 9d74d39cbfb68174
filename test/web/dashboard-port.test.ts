// The dashboard's HTTP server (loopback, no pages) on requests at its edges: a request
// target that is not a path, HTTP/1.1 without Host, the live stream's errors, which
// reach the client with their own tRPC codes (not INTERNAL_SERVER_ERROR) and are not
// logged as server errors, and /metrics, which only admins and viewers may read.
import http from 'node:http';
import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import type { AppContext } from '../../server/wiring/context';
import { startWebServer, type WebServer } from '../../server/http/web-server';
import { logger } from '../../server/services/logger';
import { openTestApp } from '../app';

let app: AppContext;
let web: WebServer;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  app = await openTestApp();
  for (const ns of ['default', 'team-a']) await app.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await app.users.create({ name: 'admin', role: 'admin' });
  await app.users.create({ name: 'dev', role: 'developer', namespaces: ['team-a'] });
  tokens.admin = await app.users.createToken('admin');
  tokens.dev = await app.users.createToken('dev');
  await app.users.create({ name: 'watcher', role: 'viewer' });
  tokens.viewer = await app.users.createToken('watcher');
  tokens.node = await app.nodeAgent.createToken('node-1');
  web = await startWebServer({ app, host: '127.0.0.1', port: 0, dir: '.', pages: false });
});
afterAll(async () => {
  await web?.close();
  await app?.close();
});
afterEach(() => vi.restoreAllMocks());

/** One request written byte for byte; the status line and body of the answer. */
function raw(head: string): Promise<{ status: number; body: string }> {
  const u = new URL(web.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(u.port), u.hostname, () => socket.write(head));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      if (!m) return reject(new Error(`no HTTP answer: ${JSON.stringify(text.slice(0, 200))}`));
      resolve({ status: Number(m[1]), body: text.slice(text.indexOf('\r\n\r\n') + 4) });
    });
  });
}

describe('requests at the edge of HTTP', () => {
  test.each([
    { name: 'OPTIONS *', head: 'OPTIONS * HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n', message: /must be a path/ },
    { name: 'GET *', head: 'GET * HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n', message: /must be a path/ },
    { name: 'HTTP/1.1 without Host', head: 'GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n', message: /missing required Host header/ },
  ])('$name → 400 with a Status saying why', async ({ head, message }) => {
    const r = await raw(head);
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body)).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'BadRequest', code: 400, message: expect.stringMatching(message) });
  });

  test('HTTP/1.0 without Host is still served', async () => {
    const r = await raw('GET /healthz HTTP/1.0\r\n\r\n');
    expect(r.status).toBe(200);
  });
});

/** The first event of the live stream: its data, or its error (code and message). */
function firstWatchEvent(role: 'admin' | 'dev', input: unknown): Promise<{ event: string; data: any }> {
  const u = new URL(web.url);
  const path = `/api/trpc/objects.watch?input=${encodeURIComponent(JSON.stringify(input))}`;
  return new Promise((resolve, reject) => {
    const req = http.get({ host: u.hostname, port: u.port, path, headers: { Authorization: `Bearer ${tokens[role]}`, Accept: 'text/event-stream' } }, (res) => {
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        buf += c;
        for (let end = buf.indexOf('\n\n'); end >= 0; end = buf.indexOf('\n\n')) {
          const block = buf.slice(0, end);
          buf = buf.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event === 'connected' || event === 'ping' || data === undefined) continue;
          req.destroy();
          resolve({ event, data: JSON.parse(data) });
          return;
        }
      });
    });
    req.on('error', (e) => (req.destroyed ? undefined : reject(e)));
  });
}

describe('the live stream (objects.watch) answers errors typed', () => {
  test.each([
    { name: 'a kind a developer may not watch', role: 'dev' as const, input: { kinds: ['PersistentVolume'] }, code: 'FORBIDDEN', status: 403 },
    { name: 'a namespace a developer is not in', role: 'dev' as const, input: { kinds: ['PersistentVolumeClaim'], namespace: 'default' }, code: 'FORBIDDEN', status: 403 },
    { name: 'an unknown kind', role: 'admin' as const, input: { kinds: ['Nope'] }, code: 'NOT_FOUND', status: 404 },
    { name: 'a malformed event id', role: 'admin' as const, input: { lastEventId: 'abc' }, code: 'BAD_REQUEST', status: 400 },
    { name: 'a compacted event id', role: 'admin' as const, input: { lastEventId: 'compacted' }, code: 'PRECONDITION_FAILED', status: 412 },
  ])('$name → $code, not logged as an error', async ({ role, input, code, status }) => {
    if (input.lastEventId === 'compacted') {
      const old = (await app.store.currentResourceVersion()).toString();
      await app.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'compact-1' } });
      await app.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'compact-2' } });
      await app.store.compact(0, 1);
      input.lastEventId = old;
    }
    const errors = vi.spyOn(logger, 'error');
    const e = await firstWatchEvent(role, input);
    expect(e.event).toBe('serialized-error');
    expect(e.data).toMatchObject({ data: { code, httpStatus: status } });
    expect(e.data.message).not.toMatch(/^Internal error/);
    expect(errors).not.toHaveBeenCalled();
  });
});

describe('/metrics on the dashboard port', () => {
  const get = async (path: string, headers: Record<string, string> = {}) => {
    const r = await fetch(`${web.url}${path}`, { headers });
    return { status: r.status, text: await r.text(), headers: r.headers };
  };

  const cases: { who: string; token?: () => string; status: number; reason: string }[] = [
    { who: 'nobody (no token)', status: 401, reason: 'Unauthorized' },
    { who: 'an unknown token', token: () => 'swu_nope', status: 401, reason: 'Unauthorized' },
    { who: 'a developer', token: () => tokens.dev, status: 403, reason: 'Forbidden' },
    { who: 'a node token', token: () => tokens.node, status: 403, reason: 'Forbidden' },
  ];
  test.each(cases)('$who: $status, no metrics', async ({ token, status, reason }) => {
    for (const path of ['/metrics', '/metrics?x=1']) {
      const r = await get(path, token ? { Authorization: `Bearer ${token()}` } : {});
      expect(r.status, path).toBe(status);
      expect(JSON.parse(r.text)).toMatchObject({ kind: 'Status', reason, code: status });
      expect(r.text).not.toMatch(/# HELP|# TYPE/);
    }
  });

  test.each(['admin', 'viewer'])('%s (bearer token): the metrics', async (who) => {
    const r = await get('/metrics', { Authorization: `Bearer ${tokens[who]}` });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  });

  test('health probes stay open (as kube components serve them)', async () => {
    expect((await get('/healthz')).status).toBe(200);
  });
});

// /livez, /readyz and /healthz on both listeners (the Kubernetes API over https and the
// dashboard's http server) over one app on a real Postgres: ready normally, not ready once
// a graceful stop began or the database is gone, and alive throughout.
import { mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { inject } from 'vitest';
import { startWebServer, type WebServer } from '../server/http/web-server';
import { startApiServer, type RunningApiServer } from '../server/kube/api-server';
import { openTestApp } from './app';
import { rawQuery } from './db';

interface Answer {
  status: number;
  body: string;
  type: string | undefined;
}

let app: Awaited<ReturnType<typeof openTestApp>>;
let web: WebServer;
let api: RunningApiServer;
let dir: string;

function getApi(p: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    https
      .get(`${api.url}${p}`, { ca: api.caPem }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, type: res.headers['content-type'] }));
      })
      .on('error', reject);
  });
}

async function getWeb(p: string): Promise<Answer> {
  const r = await fetch(`${web.url}${p}`);
  return { status: r.status, body: await r.text(), type: r.headers.get('content-type') ?? undefined };
}

const listeners = [
  { name: 'the Kubernetes API', get: (p: string) => getApi(p) },
  { name: "the dashboard's server", get: (p: string) => getWeb(p) },
];

beforeAll(async () => {
  app = await openTestApp();
  dir = mkdtempSync(path.join(os.tmpdir(), 'stowage-health-'));
  web = await startWebServer({ app, host: '127.0.0.1', port: 0, dir: process.cwd(), pages: false });
  api = await startApiServer({ app, dataDir: dir, host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await api?.close();
  await web?.close();
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('health endpoints', () => {
  // In order: ready, then stopping, then the database gone.
  test('ready: /readyz, /livez and /healthz answer ok on both listeners, the same', async () => {
    for (const l of listeners) {
      expect(await l.get('/readyz'), l.name).toMatchObject({ status: 200, body: 'ok', type: 'text/plain; charset=utf-8' });
      expect(await l.get('/livez'), l.name).toMatchObject({ status: 200, body: 'ok' });
      expect(await l.get('/healthz'), l.name).toMatchObject({ status: 200, body: 'ok' });
      expect(await l.get('/readyz?verbose'), l.name).toMatchObject({
        status: 200,
        body: '[+]ping ok\n[+]database ok\n[+]change-feed ok\n[+]startup ok\n[+]shutdown ok\nreadyz check passed\n',
      });
      expect(await l.get('/livez?verbose'), l.name).toMatchObject({ status: 200, body: '[+]ping ok\nlivez check passed\n' });
      expect(await l.get('/readyz/database'), l.name).toMatchObject({ status: 200, body: 'ok' });
      expect((await l.get('/readyz/etcd')).status, l.name).toBe(404);
      expect((await l.get('/livez/database')).status, l.name).toBe(404);
    }
  });

  test('a graceful stop began: /readyz fails on shutdown, /livez and /healthz still ok', async () => {
    app.health.markStopping();
    for (const l of listeners) {
      const r = await l.get('/readyz');
      expect(r.status, l.name).toBe(500);
      expect(r.body, l.name).toContain('[+]database ok\n');
      expect(r.body, l.name).toContain('[-]shutdown failed: reason withheld\n');
      expect(r.body, l.name).toMatch(/readyz check failed\n$/);
      expect(await l.get('/readyz?exclude=shutdown'), l.name).toMatchObject({ status: 200, body: 'ok' });
      expect(await l.get('/livez'), l.name).toMatchObject({ status: 200, body: 'ok' });
      expect(await l.get('/healthz'), l.name).toMatchObject({ status: 200, body: 'ok' });
    }
  });

  test('the database gone: /readyz fails on database with the reason withheld, /livez still ok', async () => {
    const name = new URL(app.url).pathname.slice(1);
    await rawQuery(inject('pgBaseUrl'), `DROP DATABASE "${name}" WITH (FORCE)`);
    for (const l of listeners) {
      const r = await l.get('/readyz?verbose');
      expect(r.status, l.name).toBe(500);
      expect(r.body, l.name).toContain('[+]ping ok\n');
      expect(r.body, l.name).toContain('[-]database failed: reason withheld\n');
      expect(r.body, l.name).toMatch(/readyz check failed\n$/);
      // Nothing of the error itself: no message, no stack.
      expect(r.body, l.name).not.toMatch(/does not exist|terminat|Error| {4}at /);
      expect(await l.get('/readyz/database'), l.name).toMatchObject({ status: 500, body: 'internal server error: reason withheld\n' });
      expect((await l.get('/healthz')).status, l.name).toBe(500);
      expect(await l.get('/livez'), l.name).toMatchObject({ status: 200, body: 'ok' });
    }
  });
});

// The health endpoint of `stowage controllers`: /livez while the election loop goes round,
// /readyz when Postgres answers and the controllers run (leader or standby alike), 503
// with the list of checks otherwise; its address from STOWAGE_HEALTH_HOST/PORT or
// --health-port (0: off). Also through the real command.
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { healthListen, startControllerHealth, type ControllerHealthServer } from '../../server/cli/controller-health';
import { startControllers, type RunningControllers } from '../../server/controllers/start';
import { createAppContext, type AppContext } from '../../server/wiring/context';
import { openApp, waitFor } from '../controllers/fixtures';

const root = path.resolve(import.meta.dirname, '../..');

describe('healthListen', () => {
  it.each([
    [{}, undefined, { host: '127.0.0.1', port: 8081 }],
    [{ STOWAGE_HEALTH_PORT: '9100', STOWAGE_HEALTH_HOST: '0.0.0.0' }, undefined, { host: '0.0.0.0', port: 9100 }],
    [{ STOWAGE_HEALTH_PORT: '9100' }, '9200', { host: '127.0.0.1', port: 9200 }],
    [{ STOWAGE_HEALTH_PORT: '0' }, undefined, undefined],
    [{ STOWAGE_HEALTH_PORT: '9100' }, '0', undefined],
    [{ STOWAGE_HEALTH_PORT: ' ' }, undefined, { host: '127.0.0.1', port: 8081 }],
  ])('%j %s', (env, flag, want) => {
    expect(healthListen(env, flag)).toEqual(want);
  });

  it.each([
    [{ STOWAGE_HEALTH_PORT: 'abc' }, undefined, /STOWAGE_HEALTH_PORT must be a port number/],
    [{ STOWAGE_HEALTH_PORT: '70000' }, undefined, /STOWAGE_HEALTH_PORT must be a port number/],
    [{}, '-1', /--health-port must be a port number/],
    [{}, '80.5', /--health-port must be a port number/],
  ])('rejects %j %s', (env, flag, err) => {
    expect(() => healthListen(env, flag)).toThrow(err);
  });
});

describe('the endpoint', () => {
  let ctx: Awaited<ReturnType<typeof openApp>>;
  const procs: { app: AppContext; running: RunningControllers; health: ControllerHealthServer; stopped?: boolean }[] = [];

  beforeAll(async () => {
    ctx = await openApp();
    for (let i = 0; i < 2; i++) {
      const app = await createAppContext(ctx.url);
      const running = await startControllers({ app, connectionString: ctx.url, lockName: 'health-test', retryPeriodMs: 200, leaseDurationMs: 3000 });
      const health = await startControllerHealth({ manager: running.manager, store: app.store, host: '127.0.0.1', port: 0 });
      procs.push({ app, running, health });
    }
  });

  afterAll(async () => {
    for (const p of procs) {
      await p.health.close();
      if (!p.stopped) await p.running.stop();
      await p.app.close();
    }
    await ctx?.app.close();
  });

  const get = async (p: (typeof procs)[number], what: string, method = 'GET') => {
    const res = await fetch(`${p.health.url}${what}`, { method });
    return { status: res.status, body: await res.text() };
  };

  it('the leader and the standby are both live and ready', async () => {
    await waitFor('a leader', async () => procs.some((p) => p.running.manager.isLeader));
    for (const p of procs) {
      expect(await get(p, '/livez')).toEqual({ status: 200, body: 'ok' });
      expect(await get(p, '/healthz')).toEqual({ status: 200, body: 'ok' });
      const ready = await get(p, '/readyz?verbose');
      expect(ready.status).toBe(200);
      expect(ready.body).toBe('[+]ping ok\n[+]database ok\n[+]controllers ok\nreadyz check passed\n');
      expect(await get(p, '/readyz/database')).toEqual({ status: 200, body: 'ok' });
    }
  });

  it('answers other paths and methods plainly', async () => {
    const p = procs[0];
    expect((await get(p, '/metrics')).status).toBe(404);
    expect((await get(p, '/readyz/nope')).status).toBe(404);
    expect((await get(p, '/readyz', 'POST')).status).toBe(405);
    expect((await get(p, '/livez', 'HEAD')).status).toBe(200);
  });

  it('is not ready once the controllers stop; still live', async () => {
    const p = procs[1];
    await p.running.stop();
    p.stopped = true;
    const ready = await get(p, '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body).toContain('[-]controllers failed: reason withheld');
    expect(ready.body).toContain('[+]database ok');
    expect((await get(p, '/livez')).status).toBe(200);
  });

  it('is not live when the election loop stopped going round', async () => {
    const stale = await startControllerHealth({
      manager: { isRunning: true, leaderStatus: { leading: true, terms: 1, stepDowns: 0, lastTickAt: Date.now() - 60_000, maxTickGapMs: 31_000, stopped: false } },
      store: procs[0].app.store,
      host: '127.0.0.1',
      port: 0,
    });
    try {
      const live = await (await fetch(`${stale.url}/livez`)).text();
      expect(live).toBe('[+]ping ok\n[-]election-loop failed: reason withheld\nlivez check failed\n');
      expect((await fetch(`${stale.url}/readyz`)).status).toBe(503);
    } finally {
      await stale.close();
    }
  });

  it('says clearly when its address is taken', async () => {
    const port = Number(new URL(procs[0].health.url).port);
    await expect(startControllerHealth({ manager: procs[0].running.manager, store: procs[0].app.store, host: '127.0.0.1', port })).rejects.toThrow(
      /cannot serve the health endpoint on 127\.0\.0\.1:\d+: the address is in use/,
    );
  });
});

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

describe('stowage controllers', () => {
  it('serves /readyz on --health-port, and refuses a bad one', async () => {
    const { url, app } = await openApp();
    await app.close();
    const port = await freePort();
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: url, STOWAGE_LOG_LEVEL: 'warn', NODE_ENV: 'production', STOWAGE_HEALTH_PORT: '1' };
    const child = spawn(process.execPath, [path.join(root, 'bin/stowage.mjs'), 'controllers', '--health-port', String(port)], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const body = await waitFor(
        'readyz',
        async () => {
          if (child.exitCode !== null) throw new Error(`exited: ${out}`);
          const res = await fetch(`http://127.0.0.1:${port}/readyz?verbose`);
          return res.status === 200 ? res.text() : undefined;
        },
        60_000,
      );
      expect(body).toContain('[+]controllers ok');
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }

    const bad = spawn(process.execPath, [path.join(root, 'bin/stowage.mjs'), 'controllers', '--health-port', 'nope'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    bad.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const code = await new Promise<number | null>((resolve) => bad.on('exit', (c) => resolve(c)));
    expect(code).toBe(1);
    expect(err).toContain('error: --health-port must be a port number from 0 (off) to 65535, got "nope"');
    expect(err).not.toMatch(/\n\s+at /);
  }, 90_000);

  it('waits for a DATABASE_URL that cannot be reached yet (a failover), then starts', async () => {
    const { url, app } = await openApp();
    await app.close();
    // The database's real address (a Unix socket dir or a TCP host), behind a port that
    // refuses connections until the proxy below starts listening on it.
    const real = new URL(url);
    const host = decodeURIComponent(real.hostname);
    const target = host.startsWith('/') ? { path: `${host}/.s.PGSQL.${real.port}` } : { host, port: Number(real.port) };
    const proxyPort = await freePort();
    const viaProxy = new URL(url);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxyPort);
    const port = await freePort();
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: viaProxy.toString(), STOWAGE_LOG_LEVEL: 'warn', NODE_ENV: 'production' };
    const child = spawn(process.execPath, [path.join(root, 'bin/stowage.mjs'), 'controllers', '--health-port', String(port)], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const sockets = new Set<net.Socket>();
    const proxy = net.createServer((client) => {
      const upstream = net.connect(target as net.NetConnectOpts);
      sockets.add(client).add(upstream);
      client.pipe(upstream).pipe(client);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
    });
    try {
      await waitFor('the wait for the database said', async () => {
        if (child.exitCode !== null) throw new Error(`exited: ${out}`);
        return out.includes('The database at DATABASE_URL cannot be reached (the database refused the connection); trying again in');
      }, 60_000);
      await new Promise<void>((r) => proxy.listen(proxyPort, '127.0.0.1', () => r()));
      await waitFor('readyz', async () => {
        if (child.exitCode !== null) throw new Error(`exited: ${out}`);
        const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
        return res?.status === 200;
      }, 60_000);
      expect(out).toContain('The database at DATABASE_URL answers.');
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      for (const s of sockets) s.destroy();
      proxy.close();
    }
  }, 150_000);
});

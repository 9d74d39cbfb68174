// The replication listener's bounds, over real sockets: the advertised address, a sender
// that never sends its header is dropped, registrations are bounded, connections beyond
// the bound are dropped at once, a wrong key never reaches the waiting receive job, and a
// registration takes one connection.
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import type os from 'node:os';
import pino from 'pino';
import { afterEach, describe, expect, it, test } from 'vitest';
import { until } from '../backup/testing';
import { advertisedEndpoint, ListenerFullError, ReplicationListener } from './listener';
import { connect } from './transfer';

const log = pino({ level: 'silent' });
const key = () => randomBytes(32).toString('hex');
const listeners: ReplicationListener[] = [];
afterEach(async () => {
  await Promise.all(listeners.splice(0).map((l) => l.close()));
});

async function listener(o: { maxPending?: number; maxConnections?: number; headerTimeoutMs?: number } = {}) {
  const l = new ReplicationListener({ listen: '127.0.0.1:0', log, ...o });
  await l.start();
  listeners.push(l);
  return l;
}

describe('advertisedEndpoint', () => {
  const ifs = { lo: [{ address: '127.0.0.1', family: 'IPv4', internal: true }], eth0: [{ address: 'fe80::1', family: 'IPv6', internal: false }, { address: '10.1.2.3', family: 'IPv4', internal: false }] } as unknown as ReturnType<typeof os.networkInterfaces>;
  const rows: [string, { host: string; port: number }, string | undefined, string][] = [
    ['an advertised address wins', { host: '0.0.0.0', port: 7480 }, 'node-b.example:7480', 'node-b.example:7480'],
    ['a specific listen address is used as it is', { host: '10.9.9.9', port: 7480 }, undefined, '10.9.9.9:7480'],
    ['an IPv6 listen address in brackets', { host: 'fd00::2', port: 7480 }, undefined, '[fd00::2]:7480'],
    ['0.0.0.0: the first non-internal IPv4', { host: '0.0.0.0', port: 7480 }, undefined, '10.1.2.3:7480'],
    [':: too', { host: '::', port: 7481 }, undefined, '10.1.2.3:7481'],
  ];
  test.each(rows)('%s', (_n, listen, advertise, out) => expect(advertisedEndpoint(listen, advertise, ifs)).toBe(out));
  test('0.0.0.0 with no other interface: loopback', () => expect(advertisedEndpoint({ host: '0.0.0.0', port: 1 }, undefined, {})).toBe('127.0.0.1:1'));
});

describe('the listener', () => {
  it('refuses an address that is not host:port', async () => {
    await expect(new ReplicationListener({ listen: 'nowhere', log }).start()).rejects.toThrow(/is not host:port/);
    expect(() => new ReplicationListener({ listen: '127.0.0.1:0', advertise: 'a b', log })).toThrow(/is not host:port/);
  });

  it('drops a sender that proves the key but never sends its header', async () => {
    const l = await listener({ headerTimeoutMs: 300 });
    const t = { id: 'quiet', key: key() };
    const arrival = l.expect(t, 10_000);
    const socket = await connect(l.endpoint(), t, new AbortController().signal);
    let closed = false;
    socket.on('close', () => (closed = true));
    await until('the quiet connection to be dropped', () => closed, 5_000);
    // The registration still waits: a later sender with its header is taken.
    const again = await connect(l.endpoint(), t, new AbortController().signal);
    again.write('{"hello":1}\nrest');
    const a = await arrival;
    expect(a.headerLine).toBe('{"hello":1}');
    // Handed over paused, with what came after the header still to read.
    const rest = await new Promise<string>((resolve) => {
      a.socket.once('data', (b: Buffer) => resolve(b.toString()));
      a.socket.resume();
    });
    expect(rest).toBe('rest');
    a.socket.destroy();
    again.destroy();
  });

  it('bounds the registrations and refuses a second one of the same transfer', async () => {
    const l = await listener({ maxPending: 2 });
    const abort = new AbortController();
    const waits = [l.expect({ id: 'one', key: key() }, 10_000, abort.signal), l.expect({ id: 'two', key: key() }, 10_000, abort.signal)];
    for (const w of waits) w.catch(() => {});
    await expect(l.expect({ id: 'three', key: key() }, 10_000)).rejects.toBeInstanceOf(ListenerFullError);
    await expect(l.expect({ id: 'one', key: key() }, 10_000)).rejects.toThrow(/being received already/);
    abort.abort();
    await expect(waits[0]).rejects.toMatchObject({ name: 'AbortError' });
    // Gone with the abort: room again.
    const w = l.expect({ id: 'three', key: key() }, 50);
    await expect(w).rejects.toThrow(/did not connect within 0 s/);
  });

  it('drops connections beyond the bound at once', async () => {
    const l = await listener({ maxConnections: 1, headerTimeoutMs: 5_000 });
    const { port } = l.address();
    const first = net.connect(port, '127.0.0.1');
    await new Promise((r) => first.once('connect', r));
    await until('the listener to count the first', () => (l as unknown as { sockets: Set<unknown> }).sockets.size === 1, 5_000);
    const second = net.connect(port, '127.0.0.1');
    second.on('error', () => {});
    await new Promise((r) => second.once('close', r));
    expect(first.destroyed).toBe(false);
    first.destroy();
  });

  it('a wrong key or an unknown id fails the handshake; the waiting job never sees it, and the right key still gets through', async () => {
    const l = await listener();
    const t = { id: 'xfer', key: key() };
    const arrival = l.expect(t, 10_000);
    await expect(connect(l.endpoint(), { id: 'xfer', key: key() }, new AbortController().signal)).rejects.toThrow(/could not connect/);
    await expect(connect(l.endpoint(), { id: 'other', key: t.key }, new AbortController().signal)).rejects.toThrow(/could not connect/);
    const ok = await connect(l.endpoint(), t, new AbortController().signal);
    ok.write('header\n');
    expect((await arrival).headerLine).toBe('header');
    // Taken: the same key again is an unknown transfer now.
    await expect(connect(l.endpoint(), t, new AbortController().signal)).rejects.toThrow(/could not connect/);
    ok.destroy();
  });
});

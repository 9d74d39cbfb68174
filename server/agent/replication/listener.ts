// The replication listener: a TLS server whose only credential is a pre-shared key per
// transfer (TLS-PSK, TLS 1.2: Node's PSK API). A receive job registers its transfer (id =
// PSK identity, key = the one-time key) and waits for the sender; a connection whose
// identity is not registered fails its handshake, and a wrong key fails it too (both sides
// prove the key). A registration takes one connection: the first that completes the
// handshake and its header line. Bounded: registrations, connections at once, and the
// time from connect to the end of the header.
import net from 'node:net';
import os from 'node:os';
import tls from 'node:tls';
import type { Logger } from 'pino';
import type { ReplicaTransfer } from '../../contracts/data-jobs';
import { abortError, formatHostPort, MAX_LINE_BYTES, parseHostPort } from './protocol';

/** The one cipher both sides use: PSK only, AES-256-GCM. */
export const PSK_CIPHERS = 'PSK-AES256-GCM-SHA384';

export interface ReplicationListenerOptions {
  /** host:port to listen on (port 0: any free port; see endpoint()). */
  listen: string;
  /** host:port senders are told to connect to (default: see advertisedEndpoint). */
  advertise?: string;
  log: Logger;
  /** Registered transfers at once (default 64). */
  maxPending?: number;
  /** Connections at once, in handshake or streaming (default 32). */
  maxConnections?: number;
  /** A connection that has not sent its header this long after connecting is dropped (ms, default 5 s). */
  headerTimeoutMs?: number;
}

/** A sender's connection, its handshake done and its header line read. */
export interface Arrival {
  socket: tls.TLSSocket;
  headerLine: string;
}

interface Registration {
  key: Buffer;
  arrive(a: Arrival): void;
}

const IDENTITY = Symbol('psk identity');
type Tagged = tls.TLSSocket & { [IDENTITY]?: string };

export class ListenerFullError extends Error {
  override name = 'ListenerFullError';
}

/**
 * The address senders use: `advertise` when given; else the listen address unless its
 * host is a wildcard (0.0.0.0, ::), then the first non-internal IPv4 of this machine.
 */
export function advertisedEndpoint(listen: { host: string; port: number }, advertise: string | undefined, interfaces = os.networkInterfaces()): string {
  if (advertise) return advertise;
  if (listen.host !== '0.0.0.0' && listen.host !== '::' && listen.host !== '') return formatHostPort(listen.host, listen.port);
  const v4 = Object.values(interfaces)
    .flat()
    .find((i) => i && i.family === 'IPv4' && !i.internal);
  return formatHostPort(v4?.address ?? '127.0.0.1', listen.port);
}

export class ReplicationListener {
  private readonly pending = new Map<string, Registration>();
  private readonly sockets = new Set<net.Socket>();
  private server: tls.Server | undefined;
  private bound: { host: string; port: number } | undefined;

  constructor(private readonly o: ReplicationListenerOptions) {
    if (o.advertise !== undefined && !parseHostPort(o.advertise)) throw new Error(`replication advertise address ${JSON.stringify(o.advertise)} is not host:port`);
  }

  /** Binds; resolves once listening. */
  async start(): Promise<void> {
    const at = parseHostPort(this.o.listen);
    if (!at) throw new Error(`replication listen address ${JSON.stringify(this.o.listen)} is not host:port`);
    const server = tls.createServer({
      ciphers: PSK_CIPHERS,
      minVersion: 'TLSv1.2',
      maxVersion: 'TLSv1.2',
      allowHalfOpen: false,
      // The handshake within the time (the header then has as long again: secured()).
      handshakeTimeout: this.o.headerTimeoutMs ?? 5_000,
      pskCallback: (socket: tls.TLSSocket, identity: string) => {
        const r = this.pending.get(identity);
        if (!r) return null;
        (socket as Tagged)[IDENTITY] = identity;
        return r.key;
      },
    } as tls.TlsOptions);
    server.on('connection', (raw: net.Socket) => this.admit(raw));
    server.on('secureConnection', (s: tls.TLSSocket) => this.secured(s));
    server.on('tlsClientError', (err, s) => {
      this.o.log.debug({ err: err.message, from: s.remoteAddress }, 'replication connection refused');
      s.destroy();
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(at.port, at.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', (err) => this.o.log.warn({ err: err.message }, 'replication listener error'));
    const addr = server.address() as net.AddressInfo;
    this.server = server;
    this.bound = { host: at.host, port: addr.port };
  }

  /** The bound host and port (the port chosen when 0 was asked). */
  address(): { host: string; port: number } {
    if (!this.bound) throw new Error('the replication listener is not started');
    return this.bound;
  }

  /** What this node's agent reports: where senders connect. */
  endpoint(): string {
    return advertisedEndpoint(this.address(), this.o.advertise);
  }

  /**
   * Registers a transfer and waits for its sender: resolves with its connection (handshake
   * done, header line read); rejects after `waitMs`, on abort, or when too many are waiting.
   * The registration is gone when this settles.
   */
  expect(t: ReplicaTransfer, waitMs: number, signal?: AbortSignal): Promise<Arrival> {
    if (this.pending.has(t.id)) return Promise.reject(new Error(`transfer ${t.id} is being received already`));
    if (this.pending.size >= (this.o.maxPending ?? 64)) return Promise.reject(new ListenerFullError(`too many transfers waiting (${this.pending.size}); try again later`));
    if (signal?.aborted) return Promise.reject(abortError());
    return new Promise<Arrival>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if (this.pending.get(t.id) === reg) this.pending.delete(t.id);
      };
      const onAbort = () => (done(), reject(abortError()));
      const timer = setTimeout(() => (done(), reject(new Error(`the sender did not connect within ${Math.round(waitMs / 1000)} s`))), waitMs);
      const reg: Registration = { key: Buffer.from(t.key, 'hex'), arrive: (a) => (done(), resolve(a)) };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.set(t.id, reg);
    });
  }

  /** Stops listening and drops every connection; waiting registrations time out or abort with their jobs. */
  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    if (server) await new Promise<void>((r) => server.close(() => r()));
  }

  private admit(raw: net.Socket): void {
    if (this.sockets.size >= (this.o.maxConnections ?? 32)) {
      raw.destroy();
      return;
    }
    this.sockets.add(raw);
    raw.on('close', () => this.sockets.delete(raw));
    raw.on('error', () => {});
  }

  private secured(s: Tagged): void {
    s.on('error', () => {});
    s.setNoDelay(true);
    const id = s[IDENTITY];
    if (id === undefined || !this.pending.has(id)) {
      s.destroy();
      return;
    }
    let buf = Buffer.alloc(0);
    const timer = setTimeout(() => s.destroy(), this.o.headerTimeoutMs ?? 5_000);
    s.on('close', () => clearTimeout(timer));
    const onData = (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      const nl = buf.indexOf(0x0a);
      if (nl < 0 || nl > MAX_LINE_BYTES) {
        if (buf.length > MAX_LINE_BYTES) s.destroy();
        return;
      }
      s.off('data', onData);
      s.pause();
      const rest = buf.subarray(nl + 1);
      if (rest.length) s.unshift(rest);
      const reg = this.pending.get(id);
      if (!reg) {
        s.destroy();
        return;
      }
      clearTimeout(timer);
      reg.arrive({ socket: s, headerLine: buf.subarray(0, nl).toString('utf8') });
    };
    s.on('data', onData);
  }
}

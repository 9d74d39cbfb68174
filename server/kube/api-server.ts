// The HTTPS server of the Kubernetes-compatible API. kubectl sends bearer tokens only over
// https, so the API always runs on TLS with the certificate Stowage makes for itself.
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { answerClientError, HEADERS_TIMEOUT_MS, MAX_HEADER_BYTES, REQUEST_TIMEOUT_MS } from '../http/client-error';
import { createKubeHandler, type KubeApp, type KubeHandlerOptions } from './handler';
import { ensureServingPki, servingNames } from './pki';

/** The URL clients use for an API listening on `host`:`port` (a wildcard address means this machine). */
export function apiServerUrl(host: string, port: number): string {
  const h = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `https://${h.includes(':') ? `[${h}]` : h}:${port}`;
}

export interface ApiServerOptions extends KubeHandlerOptions {
  app: KubeApp;
  dataDir: string;
  host: string;
  /** 0 picks a free port. */
  port: number;
  extraNames?: string[];
  /** false: no listener of its own; connections come through `accept` (API workers, server/wiring/api-workers.ts). */
  listen?: boolean;
}

export interface RunningApiServer {
  url: string;
  port: number;
  caPem: string;
  /** Serves a TCP connection accepted elsewhere (handed over by another process). */
  accept(socket: Socket): void;
  close(): Promise<void>;
}

export async function startApiServer(o: ApiServerOptions): Promise<RunningApiServer> {
  const pki = ensureServingPki(o.dataDir, servingNames(o.extraNames ?? [], o.host));
  const server = https.createServer(
    {
      cert: pki.certPem,
      key: pki.keyPem,
      ca: pki.caPem,
      keepAliveTimeout: 65_000,
      maxHeaderSize: MAX_HEADER_BYTES,
      requestTimeout: REQUEST_TIMEOUT_MS,
      headersTimeout: HEADERS_TIMEOUT_MS,
      // The handler answers a request without Host with a Status (Node's answer is bare).
      requireHostHeader: false,
    },
    createKubeHandler(o.app, o),
  );
  server.on('clientError', answerClientError);
  const sockets = new Set<Socket>();
  server.on('secureConnection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  if (o.listen !== false) await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = o.listen === false ? o.port : (server.address() as AddressInfo).port;
  return {
    url: apiServerUrl(o.host, port),
    port,
    caPem: pki.caPem,
    accept: (socket) => server.emit('connection', socket),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Watches never end by themselves: cut every open connection.
        for (const s of sockets) s.destroy();
        server.closeAllConnections();
      }),
  };
}

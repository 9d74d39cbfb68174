// What both servers answer when Node's HTTP parser refuses a request before any handler
// runs (a request line that is not HTTP, a URL with raw non-ASCII bytes, headers or a URL
// over the header limit, a request that took too long to arrive): a JSON metav1.Status
// with the status code, then the connection closes. Node's default is a bare status line.
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

/** Headers (request line included) larger than this are refused with 431. */
export const MAX_HEADER_BYTES = 16 * 1024;
/** The whole request must arrive within this (watches are unaffected: it bounds the request, not the answer). */
export const REQUEST_TIMEOUT_MS = 60_000;
export const HEADERS_TIMEOUT_MS = 30_000;

function codeOf(err: { code?: string }): number {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return 431;
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return 408;
    default:
      return 400;
  }
}

const messages: Record<number, string> = {
  400: 'the request could not be parsed as HTTP/1.1 (a request target must be ASCII, percent-encoded where needed)',
  408: 'the request did not arrive in time',
  431: `the request line and headers are larger than ${MAX_HEADER_BYTES} bytes`,
};

export function clientErrorResponse(err: { code?: string }): string {
  const code = codeOf(err);
  const body = JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: messages[code],
    reason: code === 408 ? 'Timeout' : 'BadRequest',
    code,
  });
  return (
    `HTTP/1.1 ${code} ${STATUS_CODES[code]}\r\n` +
    'Content-Type: application/json\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Connection: close\r\n\r\n' +
    body
  );
}

/** The `clientError` listener of an http or https server. */
export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(clientErrorResponse(err));
}

/**
 * What is wrong with a request Node's parser accepted but no handler can serve, or
 * undefined: HTTP/1.1 without a Host header (the servers turn off Node's own check, whose
 * answer is a bare status line), and, with `pathOnly`, a target that is not a path (`*`).
 */
export function requestProblem(req: { httpVersionMajor: number; httpVersionMinor: number; headers: { host?: string }; url?: string }, pathOnly: boolean): string | undefined {
  const http11 = req.httpVersionMajor > 1 || (req.httpVersionMajor === 1 && req.httpVersionMinor >= 1);
  if (http11 && req.headers.host === undefined) return 'missing required Host header (HTTP/1.1 requests must carry one)';
  const target = req.url ?? '';
  if (pathOnly && (!target.startsWith('/') || target.startsWith('//'))) return 'the request target must be a path starting with a single "/"';
  return undefined;
}

/** A 400 metav1.Status with this message, closing the connection (as Go's server does). */
export function badRequestResponse(message: string): { headers: Record<string, string>; body: string } {
  const body = JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'BadRequest', code: 400 });
  return { headers: { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)), Connection: 'close' }, body };
}

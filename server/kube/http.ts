// The HTTP plumbing every endpoint shares: reading a bounded body, decoding JSON/YAML,
// writing responses (JSON, YAML or protobuf, negotiated in sendKube) and Status errors.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzip } from 'node:zlib';
import { stringify as stringifyYaml } from 'yaml';
import { StowageError } from '../domain/errors';
import { checkUntrusted, parseYamlValue } from '../services/manifest';
import { negotiateOutput, type Output } from './query';
import { notAcceptable, type KubeStatus } from './status';
import { decodeKubeProtobuf, encodeKubeProtobuf, PROTOBUF_MEDIA_TYPE, Unrepresentable } from './protobuf-codec';
import { keepQuantityNumberText } from './json-number-text';

/** Upstream's default limit on a request body (3 MiB). */
export const DEFAULT_MAX_BODY_BYTES = 3 * 1024 * 1024;

function tooLarge(limit: number): StowageError {
  return new StowageError('RequestEntityTooLarge', `Request entity too large: limit is ${limit}`);
}

/** Reads the whole body, refusing (413) as soon as it passes `limit` bytes. */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.reject(tooLarge(limit));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (c: Buffer) => {
      if (failed) return;
      size += c.length;
      if (size > limit) {
        failed = true;
        reject(tooLarge(limit));
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (!failed) resolve(Buffer.concat(chunks));
    });
    req.on('error', (e) => {
      if (!failed) reject(e);
    });
  });
}

function mediaType(req: IncomingMessage): string {
  return String(req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
}

/**
 * Decodes a JSON (or YAML) body; `undefined` for an empty one. `patch` accepts the patch
 * media types, whose bodies are JSON.
 */
export function decodeBody(req: IncomingMessage, body: Buffer, opts: { patch?: boolean } = {}): unknown {
  if (body.length === 0) return undefined;
  const type = mediaType(req);
  const text = body.toString('utf8');
  const isJson = type === '' || type === 'application/json' || (opts.patch && type.endsWith('+json'));
  if (isJson) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      throw new StowageError('BadRequest', `the request body is not valid JSON: ${(e as Error).message}`);
    }
    // Quantities sent as JSON numbers are read from their text, as upstream (1e3 stays 1e3;
    // 1e400 is a quantity there, not an infinite number). The walk and the scan are bounded
    // and iterative, so they may run before the nesting check.
    value = keepQuantityNumberText(text, value);
    checkUntrusted(value);
    return value;
  }
  if (type === PROTOBUF_MEDIA_TYPE && !opts.patch) {
    const value = decodeKubeProtobuf(body);
    checkUntrusted(value);
    return value;
  }
  if (type === 'application/yaml' || type === 'application/x-yaml' || type === 'text/yaml' || (opts.patch && type === 'application/apply-patch+yaml')) {
    return parseYamlValue(text);
  }
  throw new StowageError(
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, ${PROTOBUF_MEDIA_TYPE}`,
  );
}

/** Upstream compresses answers above 128 KiB (defaultGzipThresholdBytes) at level 1. */
export const GZIP_THRESHOLD_BYTES = 128 * 1024;

/** Whether an Accept-Encoding header accepts gzip (a q=0 refuses it). */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  const text = Array.isArray(header) ? header.join(',') : (header ?? '');
  for (const part of text.split(',')) {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (coding.trim() !== 'gzip' && coding.trim() !== '*') continue;
    const q = params.map((x) => x.trim()).find((x) => x.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  }
  return false;
}

/** Writes a whole answer, gzipped when it is large and the client accepts gzip. */
function sendBody(res: ServerResponse, code: number, body: Buffer, contentType: string): void {
  const headers: Record<string, string> = { 'Content-Type': contentType, 'Cache-Control': 'no-cache, private' };
  if (body.length > GZIP_THRESHOLD_BYTES && acceptsGzip(res.req?.headers['accept-encoding'])) {
    gzip(body, { level: 1 }, (err, zipped) => {
      if (err || res.headersSent || res.destroyed) {
        if (!res.headersSent) res.writeHead(code, { ...headers, 'Content-Length': String(body.length) }).end(body);
        return;
      }
      res.writeHead(code, { ...headers, 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding', 'Content-Length': String(zipped.length) });
      res.end(zipped);
    });
    return;
  }
  res.writeHead(code, { ...headers, 'Content-Length': String(body.length) });
  res.end(body);
}

export function sendObject(res: ServerResponse, code: number, body: unknown, yaml = false): void {
  sendBody(res, code, Buffer.from(yaml ? stringifyYaml(body) : JSON.stringify(body)), yaml ? 'application/yaml' : 'application/json');
}

/** The protobuf form of an object, or undefined when protobuf cannot carry all of it. */
function protobufOf(body: unknown): Buffer | undefined {
  try {
    return encodeKubeProtobuf(body);
  } catch (e) {
    if (e instanceof Unrepresentable) return undefined;
    throw e;
  }
}

/**
 * Before a write: a client that accepts protobuf only gets its 406 before anything is
 * stored when the object to write already has something protobuf cannot carry.
 */
export function checkAnswerable(out: Output, obj: unknown): void {
  if (out.protobuf && !out.fallback && protobufOf(obj) === undefined) throw notAcceptable(['application/json', 'application/yaml']);
}

/**
 * THE answer of a resource request, in the negotiated form: protobuf when asked for and
 * the object fits its kind's protobuf schema whole; else the JSON/YAML the client also
 * accepts; else 406, as upstream answers for kinds without protobuf.
 */
export function sendKube(res: ServerResponse, code: number, body: unknown, out: Output): void {
  if (out.protobuf) {
    const bytes = protobufOf(body);
    if (bytes) return sendBody(res, code, bytes, PROTOBUF_MEDIA_TYPE);
    if (!out.fallback) throw notAcceptable(['application/json', 'application/yaml']);
    return sendObject(res, code, body, out.fallback.yaml);
  }
  sendObject(res, code, body, out.yaml);
}

/** Header values carry printable ASCII only: anything else (a field name a client made up) is \u-escaped. */
function headerSafe(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Warning headers (RFC 7234 code 299), sent with whatever answer follows, errors included. */
export function addWarnings(res: ServerResponse, warnings: string[]): void {
  if (warnings.length === 0 || res.headersSent) return;
  const prev = res.getHeader('Warning');
  const list = prev === undefined ? [] : Array.isArray(prev) ? prev.map(String) : [String(prev)];
  res.setHeader('Warning', [...list, ...warnings.map((w) => `299 - ${headerSafe(JSON.stringify(w))}`)]);
}

export function sendStatus(res: ServerResponse, status: KubeStatus): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  // As upstream's ErrorNegotiated: a Status with retryAfterSeconds sets Retry-After too,
  // which client-go honours by retrying the request (any verb).
  const retryAfter = status.details?.retryAfterSeconds;
  if (retryAfter !== undefined && retryAfter > 0) res.setHeader('Retry-After', String(retryAfter));
  // Errors come in the form the request asked for, as upstream encodes them.
  let out: Output | undefined;
  try {
    out = negotiateOutput(res.req?.headers.accept, new URLSearchParams());
  } catch {
    out = undefined;
  }
  const bytes = out?.protobuf ? protobufOf(status) : undefined;
  if (bytes) sendBody(res, status.code, bytes, PROTOBUF_MEDIA_TYPE);
  else sendObject(res, status.code, status);
}

export function bearerToken(req: IncomingMessage): string | undefined {
  const h = req.headers.authorization;
  if (!h) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m?.[1];
}

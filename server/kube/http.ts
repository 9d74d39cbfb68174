// The HTTP plumbing every endpoint shares: reading a bounded body, decoding JSON/YAML,
// writing JSON/YAML responses and Status errors.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { StowageError } from '../domain/errors';
import type { KubeStatus } from './status';
import { decodeKubeProtobuf, PROTOBUF_MEDIA_TYPE } from './protobuf-decode';

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
    try {
      return JSON.parse(text);
    } catch (e) {
      throw new StowageError('BadRequest', `the request body is not valid JSON: ${(e as Error).message}`);
    }
  }
  if (type === PROTOBUF_MEDIA_TYPE && !opts.patch) return decodeKubeProtobuf(body);
  if (type === 'application/yaml' || type === 'application/x-yaml' || type === 'text/yaml') {
    try {
      return parseYaml(text, { uniqueKeys: true, maxAliasCount: 100 });
    } catch (e) {
      throw new StowageError('BadRequest', `the request body is not valid YAML: ${(e as Error).message.split('\n')[0]}`);
    }
  }
  throw new StowageError(
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, ${PROTOBUF_MEDIA_TYPE}`,
  );
}

export function sendObject(res: ServerResponse, code: number, body: unknown, yaml = false): void {
  const text = yaml ? stringifyYaml(body) : JSON.stringify(body);
  res.writeHead(code, {
    'Content-Type': yaml ? 'application/yaml' : 'application/json',
    'Cache-Control': 'no-cache, private',
    'Content-Length': String(Buffer.byteLength(text)),
  });
  res.end(text);
}

/** Warning headers (RFC 7234 code 299), sent with whatever answer follows, errors included. */
export function addWarnings(res: ServerResponse, warnings: string[]): void {
  if (warnings.length === 0 || res.headersSent) return;
  const prev = res.getHeader('Warning');
  const list = prev === undefined ? [] : Array.isArray(prev) ? prev.map(String) : [String(prev)];
  res.setHeader('Warning', [...list, ...warnings.map((w) => `299 - ${JSON.stringify(w)}`)]);
}

export function sendStatus(res: ServerResponse, status: KubeStatus): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendObject(res, status.code, status);
}

export function bearerToken(req: IncomingMessage): string | undefined {
  const h = req.headers.authorization;
  if (!h) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m?.[1];
}

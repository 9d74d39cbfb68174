// The ONE wrapper around every Kubernetes API request: route, authenticate (bearer token),
// negotiate the output, dispatch, and turn any error into a metav1.Status. Unexpected
// errors are logged in full and answered with a plain 500.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Services } from '../services/services';
import { logger } from '../services/logger';
import { StowageError } from '../domain/errors';
import { HEALTH_HEADERS, parseHealthRequest } from '../domain/health';
import { isAgentPath, serveAgentApi } from './agent-api';
import { apiGroupDoc, apiGroupList, apiResourceList, apiVersions, versionInfo } from './discovery';
import { requestProblem } from '../http/client-error';
import { bearerToken, DEFAULT_MAX_BODY_BYTES, sendObject, sendStatus } from './http';
import { openApiV2 } from './openapi';
import { openApiV3 } from './openapi-v3';
import { encodeOpenApiV2 } from './protobuf';
import { negotiateOutput } from './query';
import { serveResource } from './resources';
import { serveReview } from './review';
import { route, type Route } from './router';
import { notAcceptable, statusFromError } from './status';
import type { WatchTiming } from './watch';

export type KubeApp = Pick<Services, 'objects' | 'users' | 'health'> & Partial<Pick<Services, 'nodeAgent'>>;

export interface KubeHandlerOptions {
  maxBodyBytes?: number;
  /** Keep-alive (or bookmark) interval of idle watches; default 15 s, under client-node's 30 s timeout. */
  watchKeepAliveMs?: number;
}

// Asked for as `...spec.v2@v1.0+protobuf`; answered with the form Go's mime parser accepts ('@' is not a token character).
const OPENAPI_PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
const SUPPORTED_OUTPUT = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf', 'application/json;as=Table;v=v1;g=meta.k8s.io'];

function notFound(): StowageError {
  return new StowageError('NotFound', 'the server could not find the requested resource');
}

let openApiProtobuf: Buffer | undefined;

/** /openapi/v3 (the list) and /openapi/v3/<group-version> (a document; immutable when asked by its hash). */
function serveOpenApiV3(res: ServerResponse, url: URL): void {
  const docs = openApiV3();
  const rest = url.pathname.replace(/^\/openapi\/v3\/?/, '').replace(/\/$/, '');
  if (rest === '') return sendObject(res, 200, docs.discovery);
  const entry = docs.byPath.get(rest);
  if (!entry) throw notFound();
  const asked = url.searchParams.get('hash');
  if (asked && asked !== entry.hash) {
    // An old hash: send the client to the current document, as upstream does.
    res.writeHead(301, { Location: `/openapi/v3/${rest}?hash=${entry.hash}`, 'Cache-Control': 'no-cache' });
    res.end();
    return;
  }
  res.setHeader('Etag', `"${entry.hash}"`);
  sendObject(res, 200, entry.doc);
}

function serveOpenApi(req: IncomingMessage, res: ServerResponse, version: 'v2' | 'v3', url: URL): void {
  if (version === 'v3') return serveOpenApiV3(res, url);
  const accept = String(req.headers.accept ?? '');
  if (accept.includes('protobuf')) {
    openApiProtobuf ??= encodeOpenApiV2(openApiV2());
    res.writeHead(200, { 'Content-Type': OPENAPI_PROTOBUF, 'Content-Length': String(openApiProtobuf.length) });
    res.end(openApiProtobuf);
    return;
  }
  sendObject(res, 200, openApiV2());
}

function serverAddress(req: IncomingMessage): string {
  const local = req.socket.localAddress ?? '127.0.0.1';
  const host = local.startsWith('::ffff:') ? local.slice(7) : local;
  return `${host.includes(':') ? `[${host}]` : host}:${req.socket.localPort}`;
}

async function dispatch(app: KubeApp, opts: Required<KubeHandlerOptions>, req: IncomingMessage, res: ServerResponse, r: Route, url: URL): Promise<void> {
  const method = req.method ?? 'GET';
  if (r.type === 'health') {
    // Open to everyone, as upstream's (system:public-info-viewer): a load balancer has no token.
    const ask = parseHealthRequest(url.pathname, url.searchParams);
    if (!ask) throw notFound();
    const answer = await app.health.answer(ask);
    // An unknown check is answered as any unknown path here: a Status.
    if (answer.status === 404) throw notFound();
    res.writeHead(answer.status, HEALTH_HEADERS);
    res.end(answer.body);
    return;
  }
  if (r.type === 'version') return sendObject(res, 200, versionInfo());

  const token = bearerToken(req);
  if (isAgentPath(url.pathname)) {
    // Node tokens only: a user (even an admin) does not act as a node agent.
    const node = app.nodeAgent ? await app.nodeAgent.authenticate(token) : undefined;
    if (node) return serveAgentApi(app.nodeAgent!, node, req, res, url.pathname);
    if (await app.users.authenticate(token)) throw new StowageError('Forbidden', 'the agent API is for node tokens only');
    throw new StowageError('Unauthorized', 'Unauthorized');
  }
  const principal = await app.users.authenticate(token);
  if (!principal) {
    // A node token is known, but acts only through the agent API.
    if (app.nodeAgent && (await app.nodeAgent.authenticate(token))) {
      throw new StowageError('Forbidden', 'a node token may only use the agent API of its own node');
    }
    throw new StowageError('Unauthorized', 'Unauthorized');
  }

  if (r.type === 'notFound') throw notFound();
  if (r.type !== 'resource' && r.type !== 'review' && method !== 'GET') {
    throw new StowageError('MethodNotAllowed', `the server does not allow this method on the requested resource (${method})`);
  }
  switch (r.type) {
    case 'openapi':
      return serveOpenApi(req, res, r.version, url);
    case 'api':
      return sendObject(res, 200, apiVersions(serverAddress(req)));
    case 'apis':
      return sendObject(res, 200, apiGroupList());
    case 'group':
      return sendObject(res, 200, apiGroupDoc(r.group));
    case 'groupVersion':
      return sendObject(res, 200, apiResourceList(r.group, r.version));
    case 'review':
      return serveReview(req, res, r.review, principal, opts.maxBodyBytes);
    case 'resource': {
      const out = negotiateOutput(req.headers.accept, url.searchParams);
      if (!out) throw notAcceptable(SUPPORTED_OUTPUT);
      const timing: WatchTiming = { keepAliveMs: opts.watchKeepAliveMs };
      return serveResource({ req, res, url, principal, objects: app.objects, ...r, out, maxBodyBytes: opts.maxBodyBytes, timing });
    }
  }
}

/** The request target as a URL; a target that is not a path (`//[`, `*`, absolute forms) is a 400. */
function requestUrl(target: string | undefined): URL {
  const t = target ?? '/';
  if (!t.startsWith('/') || t.startsWith('//')) throw new StowageError('BadRequest', 'the request target must be a path starting with a single "/"');
  try {
    return new URL(t, 'https://localhost');
  } catch {
    throw new StowageError('BadRequest', 'the request target is not a valid path');
  }
}

/** The request handler of the Kubernetes-compatible API. */
export function createKubeHandler(app: KubeApp, options: KubeHandlerOptions = {}): (req: IncomingMessage, res: ServerResponse) => void {
  const opts: Required<KubeHandlerOptions> = {
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    watchKeepAliveMs: options.watchKeepAliveMs ?? 15_000,
  };
  return (req, res) => {
    const started = Date.now();
    const id = randomUUID();
    res.setHeader('Audit-Id', id);
    let url: URL;
    try {
      const problem = requestProblem(req, false);
      if (problem) throw new StowageError('BadRequest', problem);
      url = requestUrl(req.url);
    } catch (e) {
      sendStatus(res, statusFromError(e).status);
      return;
    }
    res.on('finish', () => {
      logger.debug({ id, method: req.method, path: url.pathname, status: res.statusCode, ms: Date.now() - started }, 'kube api request');
    });
    dispatch(app, opts, req, res, route(url.pathname), url).catch((e: unknown) => {
      const { status, unexpected } = statusFromError(e);
      if (unexpected) logger.error({ err: e, id, method: req.method, path: url.pathname }, 'kube api request failed');
      sendStatus(res, status);
    });
  };
}

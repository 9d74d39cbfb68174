// The node agents' HTTP API, served by the API server beside the Kubernetes paths (over
// the same TLS), under /apis/agent.stowage.io/v1/. Only node tokens are accepted here, and
// a node token is accepted nowhere else. Thin: parse, call one NodeAgentService method,
// answer JSON.
//
//   GET  /apis/agent.stowage.io/v1/whoami                              -> {nodeName}
//   GET  /apis/agent.stowage.io/v1/nodes/{node}/config                 -> AgentConfig
//   POST /apis/agent.stowage.io/v1/nodes/{node}/heartbeat              {labels, nodeInfo}
//   PUT  /apis/agent.stowage.io/v1/nodes/{node}/discoveries            {entries: DiscoveredEntry[]}
//   POST /apis/agent.stowage.io/v1/nodes/{node}/cleanups/claim         {instance, running, max} -> {jobs}
//   POST /apis/agent.stowage.io/v1/nodes/{node}/cleanups/{id}/progress {instance, progress} -> {cancel}
//   POST /apis/agent.stowage.io/v1/nodes/{node}/cleanups/{id}/result   {instance, result}
//   GET  /apis/agent.stowage.io/v1/nodes/{node}/pods[?waitMs=N&seen=V] -> {pods: AgentPod[], version} (held up to N ms while unchanged from V)
//   POST /apis/agent.stowage.io/v1/nodes/{node}/pods/status            PodReport -> {phase}
//   POST /apis/agent.stowage.io/v1/nodes/{node}/pods/done              {namespace, name, uid} -> {deleted}
//   GET  /apis/agent.stowage.io/v1/nodes/{node}/pools[?waitMs=N&seen=V] -> PoolWork (held up to N ms while there is none, or none but list V)
//   PUT  /apis/agent.stowage.io/v1/nodes/{node}/pools                  {pools: PoolReport[]}
//   POST /apis/agent.stowage.io/v1/nodes/{node}/pools/volumes          {results: (PoolVolumeDone & {pvName})[]} -> {results}
//   POST /apis/agent.stowage.io/v1/nodes/{node}/pools/volumes/{pv}     PoolVolumeDone
//   POST /apis/agent.stowage.io/v1/nodes/{node}/data-jobs/claim        {instance, running, max} -> {jobs: {key, spec, attempt}[]}
//   POST /apis/agent.stowage.io/v1/nodes/{node}/data-jobs/{key}/progress {instance, progress: DataJobProgress} -> {cancel}
//   POST /apis/agent.stowage.io/v1/nodes/{node}/data-jobs/{key}/result   {instance, result: DataJobResult} -> {accepted, state}
//        ({key} contains "/": sent URL-encoded as one path segment)
//   GET  /apis/agent.stowage.io/v1/nodes/{node}/backup-targets         -> {targets: {name, path}[]}
//   PUT  /apis/agent.stowage.io/v1/nodes/{node}/backup-targets         {targets: TargetReport[]}
import type { IncomingMessage, ServerResponse } from 'node:http';
import { agentActor } from '../domain/actor';
import type { NodePrincipal } from '../domain/authorization';
import { runAs } from '../store/actor-context';
import { StowageError } from '../domain/errors';
import type { NodeAgentService } from '../services/node-agent';
import { decodeBody, readBody, sendObject } from './http';
import { AGENT_API_PREFIX } from '../contracts/agent';

const MAX_AGENT_BODY = 8 * 1024 * 1024;

export function isAgentPath(pathname: string): boolean {
  return pathname === AGENT_API_PREFIX.slice(0, -1) || pathname.startsWith(AGENT_API_PREFIX);
}

const notFound = () => new StowageError('NotFound', 'the server could not find the requested resource');
const notAllowed = (m: string) => new StowageError('MethodNotAllowed', `the server does not allow this method on the requested resource (${m})`);

async function body(req: IncomingMessage): Promise<unknown> {
  return decodeBody(req, await readBody(req, MAX_AGENT_BODY));
}

/** `?waitMs=N` (a whole number of milliseconds), 0 when absent. */
function waitMsOf(req: IncomingMessage): number {
  const raw = new URL(req.url ?? '/', 'http://agent').searchParams.get('waitMs');
  if (raw === null) return 0;
  if (!/^\d{1,6}$/.test(raw)) throw new StowageError('BadRequest', 'waitMs must be a whole number of milliseconds');
  return Number(raw);
}

/** `?seen=V`: the version of the answer (pods, pool work) the agent has (a short token), absent when none. */
function seenOf(req: IncomingMessage): string | undefined {
  const raw = new URL(req.url ?? '/', 'http://agent').searchParams.get('seen');
  if (raw === null) return undefined;
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(raw)) throw new StowageError('BadRequest', 'seen must be a version the server answered');
  return raw;
}

/** Serves one agent request; every store write it makes is recorded as the node's agent's. */
export function serveAgentApi(svc: NodeAgentService, p: NodePrincipal, req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
  return runAs(agentActor(p.nodeName), () => serve(svc, p, req, res, pathname));
}

async function serve(svc: NodeAgentService, p: NodePrincipal, req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
  const method = req.method ?? 'GET';
  const segs = pathname.slice(AGENT_API_PREFIX.length).split('/').filter(Boolean).map((s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      throw notFound();
    }
  });
  if (segs.length === 1 && segs[0] === 'whoami') {
    if (method !== 'GET') throw notAllowed(method);
    return sendObject(res, 200, { nodeName: p.nodeName });
  }
  if (segs[0] !== 'nodes' || segs.length < 3) throw notFound();
  const node = segs[1];
  const rest = segs.slice(2).join('/');
  const expect = (m: string) => {
    if (method !== m) throw notAllowed(method);
  };
  if (rest === 'config') {
    expect('GET');
    return sendObject(res, 200, await svc.config(p, node));
  }
  if (rest === 'heartbeat') {
    expect('POST');
    return sendObject(res, 200, await svc.heartbeat(p, node, await body(req)));
  }
  if (rest === 'discoveries') {
    expect('PUT');
    const r = await svc.reportDiscoveries(p, node, await body(req));
    return sendObject(res, 200, { accepted: r.accepted, changed: r.changed.length });
  }
  if (rest === 'cleanups/claim') {
    expect('POST');
    return sendObject(res, 200, await svc.claimCleanups(p, node, await body(req)));
  }
  if (rest === 'pods') {
    expect('GET');
    // A long-poll ends early when the agent hangs up.
    const gone = new AbortController();
    res.on('close', () => gone.abort());
    return sendObject(res, 200, await svc.pods(p, node, { waitMs: waitMsOf(req), seen: seenOf(req), signal: gone.signal }));
  }
  if (rest === 'pods/status') {
    expect('POST');
    return sendObject(res, 200, await svc.reportPod(p, node, await body(req)));
  }
  if (rest === 'pods/done') {
    expect('POST');
    return sendObject(res, 200, await svc.podDone(p, node, await body(req)));
  }
  if (rest === 'pools') {
    if (method === 'GET') {
      // A long-poll ends early when the agent hangs up.
      const gone = new AbortController();
      res.on('close', () => gone.abort());
      return sendObject(res, 200, await svc.pools.work(p, node, { waitMs: waitMsOf(req), seen: seenOf(req), signal: gone.signal }));
    }
    expect('PUT');
    return sendObject(res, 200, await svc.pools.report(p, node, await body(req)));
  }
  if (rest === 'pools/volumes') {
    expect('POST');
    return sendObject(res, 200, await svc.pools.volumesDone(p, node, await body(req)));
  }
  if (segs.length === 5 && segs[2] === 'pools' && segs[3] === 'volumes') {
    expect('POST');
    return sendObject(res, 200, await svc.pools.volumeDone(p, node, segs[4], await body(req)));
  }
  if (rest === 'data-jobs/claim') {
    expect('POST');
    return sendObject(res, 200, await svc.data.claim(p, node, await body(req)));
  }
  if (segs.length === 5 && segs[2] === 'data-jobs') {
    expect('POST');
    if (segs[4] === 'progress') return sendObject(res, 200, await svc.data.progress(p, node, segs[3], await body(req)));
    if (segs[4] === 'result') return sendObject(res, 200, await svc.data.result(p, node, segs[3], await body(req)));
  }
  if (rest === 'backup-targets') {
    if (method === 'GET') return sendObject(res, 200, await svc.data.listTargets(p, node));
    expect('PUT');
    return sendObject(res, 200, await svc.data.reportTargets(p, node, await body(req)));
  }
  if (segs.length === 5 && segs[2] === 'cleanups') {
    expect('POST');
    if (segs[4] === 'progress') return sendObject(res, 200, await svc.reportProgress(p, node, segs[3], await body(req)));
    if (segs[4] === 'result') return sendObject(res, 200, await svc.reportResult(p, node, segs[3], await body(req)));
  }
  throw notFound();
}

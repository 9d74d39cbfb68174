// POST selfsubjectaccessreviews and selfsubjectreviews: answer a question about the
// caller and store nothing (as upstream, the answer is the object sent back with status).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { groupsOf, reviewNonResource, reviewResource, type NonResourceAttributes, type ResourceAttributes } from '../domain/access-review';
import type { Principal } from '../domain/authorization';
import { StowageError } from '../domain/errors';
import { strategyForResource } from '../resources/registry';
import { decodeBody, readBody, sendKube } from './http';
import { negotiateOutput, type Output } from './query';
import type { ReviewResource } from './router';

const bad = (message: string) => new StowageError('BadRequest', message);

function record(value: unknown, what: string): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw bad(`${what} must be an object`);
  return value as Record<string, unknown>;
}

function strings<T extends object>(value: Record<string, unknown>, keys: (keyof T & string)[], what: string): T {
  const out: Record<string, string> = {};
  for (const k of keys) {
    const v = value[k];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string') throw bad(`${what}.${k} must be a string`);
    out[k] = v;
  }
  return out as T;
}

export async function serveReview(req: IncomingMessage, res: ServerResponse, review: ReviewResource, principal: Principal, maxBodyBytes: number): Promise<void> {
  if (req.method !== 'POST') {
    throw new StowageError('MethodNotAllowed', `the server does not allow this method on the requested resource (${req.method ?? ''})`);
  }
  const out: Output = negotiateOutput(req.headers.accept, new URLSearchParams()) ?? { as: 'object', metaVersion: 'v1', yaml: false, includeObject: 'Metadata' };
  const body = record(decodeBody(req, await readBody(req, maxBodyBytes)), 'the request body');
  const apiVersion = `${review.group}/${review.version}`;
  if (body.kind !== undefined && body.kind !== review.kind) throw bad(`the object in the request is a ${String(body.kind)}, but this path takes a ${review.kind}`);
  const metadata = { creationTimestamp: null };
  if (review.kind === 'SelfSubjectReview') {
    const userInfo = { username: principal.name, uid: principal.id, groups: groupsOf(principal) };
    return sendKube(res, 201, { kind: review.kind, apiVersion, metadata, status: { userInfo } }, out);
  }
  const spec = record(body.spec, 'spec');
  let decision;
  if (spec.resourceAttributes !== undefined && spec.resourceAttributes !== null) {
    const attrs = strings<ResourceAttributes>(record(spec.resourceAttributes, 'spec.resourceAttributes'), ['namespace', 'verb', 'group', 'resource', 'subresource', 'name'], 'spec.resourceAttributes');
    const s = strategyForResource(attrs.group ?? '', attrs.resource ?? '');
    decision = reviewResource(principal, attrs, s && (!attrs.subresource || (attrs.subresource === 'status' && s.hasStatus)) ? { kind: s.kind, namespaced: s.namespaced } : undefined);
  } else if (spec.nonResourceAttributes !== undefined && spec.nonResourceAttributes !== null) {
    const attrs = strings<NonResourceAttributes>(record(spec.nonResourceAttributes, 'spec.nonResourceAttributes'), ['path', 'verb'], 'spec.nonResourceAttributes');
    decision = reviewNonResource(attrs);
  } else {
    throw new StowageError('Invalid', `${review.kind}.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified`);
  }
  const status: Record<string, unknown> = { allowed: decision.allowed };
  if (decision.reason) status.reason = decision.reason;
  sendKube(res, 201, { kind: review.kind, apiVersion, metadata, spec, status }, out);
}

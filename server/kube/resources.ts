// The verbs on a resource path: parse the request, make ONE ObjectService call, shape the
// answer. Authorization, validation and storage all live behind the service.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isDeepStrictEqual } from 'node:util';
import type { Principal } from '../domain/authorization';
import { StowageError } from '../domain/errors';
import { timestampNow } from '../resources/metadata';
import { quantityDecodeError } from '../resources/resource-list';
import type { KubeObject, Strategy } from '../resources/types';
import { checkObjectHeader } from '../services/manifest';
import type { ObjectService } from '../services/objects';
import { applyFieldValidation } from './field-validation';
import { addWarnings, checkAnswerable, decodeBody, readBody, sendKube } from './http';
import { applyPatch, patchTypeOf } from './patch/apply-patch';
import { recordUpdate, serverSideApply, updateManager } from './patch/server-side-apply';
import { invalidListOptions, parseDeleteOptions, parseListQuery, parseWriteQuery, validateListOptions, type ListQuery, type Output } from './query';
import { deletedStatus, tooLargeResourceVersion } from './status';
import { shapeList, shapeObject } from './table';
import { serveWatch, type WatchTiming } from './watch';
import { servedAsCustomResource } from '../resources/registry';

export interface ResourceRequest {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  principal: Principal;
  objects: ObjectService;
  strategy: Strategy;
  namespace?: string;
  name?: string;
  subresource?: string;
  watchPath: boolean;
  out: Output;
  maxBodyBytes: number;
  timing: WatchTiming;
}

const bad = (message: string) => new StowageError('BadRequest', message);
const methodNotAllowed = (method: string) =>
  new StowageError('MethodNotAllowed', `the server does not allow this method on the requested resource (${method})`);

/** The body as an object of this path's kind, in this path's namespace and name. */
function objectForPath(s: Strategy, value: unknown, namespace: string | undefined, name: string | undefined): KubeObject {
  if (value === undefined) throw bad('the request has no body; an object was expected');
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw bad('the request body must be a JSON object');
  const o = value as KubeObject;
  if (o.kind === undefined || o.kind === '') o.kind = s.kind;
  if (o.apiVersion === undefined || o.apiVersion === '') o.apiVersion = s.apiVersion;
  if (o.kind !== s.kind) {
    throw bad(`the object in the request is a ${String(o.kind)}, but this path takes a ${s.kind}`);
  }
  checkObjectHeader(o, s.kind);
  checkPlace(s, o, namespace, name);
  const undecodable = quantityDecodeError(o);
  if (undecodable) throw bad(undecodable);
  return o;
}

function checkPlace(s: Strategy, o: KubeObject, namespace: string | undefined, name: string | undefined): void {
  const meta = o.metadata;
  if (s.namespaced) {
    if (!meta.namespace) meta.namespace = namespace;
    else if (meta.namespace !== namespace) {
      throw bad('the namespace of the provided object does not match the namespace sent on the request');
    }
  }
  if (name !== undefined) {
    if (!meta.name) meta.name = name;
    else if (meta.name !== name) throw bad(`the name of the object (${meta.name}) does not match the name on the URL (${name})`);
  }
}

/** The kind's warnings about an object being written (none for the status subresource, as upstream). */
function objectWarnings(r: ResourceRequest, obj: KubeObject): string[] {
  return r.subresource === undefined ? (r.strategy.warnings?.(obj) ?? []) : [];
}

/** How long a read waits for a resourceVersion the server has not reached (upstream blockTimeout). */
export const RESOURCE_VERSION_WAIT_MS = 3000;

/**
 * A read "not older than" a resourceVersion newer than any write waits a little for it
 * (another replica may have written it), then fails as upstream's watch cache does.
 */
async function waitForResourceVersion(r: ResourceRequest, rv: string | undefined): Promise<void> {
  if (!rv || rv === '0') return;
  const wanted = BigInt(rv);
  const deadline = Date.now() + RESOURCE_VERSION_WAIT_MS;
  for (;;) {
    const current = await r.objects.currentResourceVersion();
    if (current >= wanted) return;
    if (Date.now() >= deadline) throw tooLargeResourceVersion(wanted, current);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function list(r: ResourceRequest, q: ListQuery): Promise<void> {
  // Authorize first: a caller who may not list gets 403 at once, not a wait and a 504.
  r.objects.authorizeList(r.principal, r.strategy.kind, r.namespace);
  if (!q.continue) await waitForResourceVersion(r, q.resourceVersion);
  const result = await r.objects.list(r.principal, r.strategy.kind, {
    namespace: r.namespace,
    labelSelector: q.labelSelector,
    fieldSelector: q.fieldSelector,
    limit: q.limit,
    continue: q.continue,
  });
  const meta: { resourceVersion: string; continue?: string } = { resourceVersion: result.resourceVersion };
  if (result.continue) meta.continue = result.continue;
  sendKube(r.res, 200, shapeList(r.strategy, result.items, r.out, meta), r.out);
}

async function get(r: ResourceRequest): Promise<void> {
  const rv = r.url.searchParams.get('resourceVersion') || undefined;
  if (rv !== undefined && !/^\d+$/.test(rv)) throw bad(`invalid resource version "${rv}"`);
  r.objects.authorize(r.principal, 'get', r.strategy.kind, r.namespace, r.name);
  await waitForResourceVersion(r, rv);
  const o = await r.objects.get(r.principal, r.strategy.kind, r.namespace, r.name!);
  sendKube(r.res, 200, shapeObject(r.strategy, o, r.out), r.out);
}

async function create(r: ResourceRequest): Promise<void> {
  r.objects.authorize(r.principal, 'create', r.strategy.kind, r.namespace, undefined);
  const w = parseWriteQuery(r.url.searchParams);
  const body = decodeBody(r.req, await readBody(r.req, r.maxBodyBytes));
  const obj = objectForPath(r.strategy, body, r.namespace, undefined);
  addWarnings(r.res, [...applyFieldValidation(r.strategy, obj, w.fieldValidation), ...objectWarnings(r, obj)]);
  // The creator owns what it set (an Update entry), unless it sent managedFields itself.
  if (obj.metadata.managedFields === undefined) {
    const entries = recordUpdate(undefined, obj, updateManager(w.fieldManager, r.req.headers['user-agent']), timestampNow());
    if (entries.length > 0) obj.metadata.managedFields = entries;
  }
  checkAnswerable(r.out, obj);
  const created = await r.objects.create(r.principal, obj, { dryRun: w.dryRun });
  sendKube(r.res, 201, shapeObject(r.strategy, created, r.out), r.out);
}

async function update(r: ResourceRequest): Promise<void> {
  r.objects.authorize(r.principal, 'update', r.strategy.kind, r.namespace, r.name);
  const w = parseWriteQuery(r.url.searchParams);
  const body = decodeBody(r.req, await readBody(r.req, r.maxBodyBytes));
  const obj = objectForPath(r.strategy, body, r.namespace, r.name);
  addWarnings(r.res, [...applyFieldValidation(r.strategy, obj, w.fieldValidation), ...objectWarnings(r, obj)]);
  checkAnswerable(r.out, obj);
  const updated = await r.objects.update(r.principal, obj, {
    dryRun: w.dryRun,
    subresource: r.subresource === 'status' || r.subresource === 'finalize' ? r.subresource : undefined,
  });
  sendKube(r.res, 200, shapeObject(r.strategy, updated, r.out), r.out);
}

/** Upstream's field manager names: at most 128 printable characters. */
const FIELD_MANAGER_RE = /^[\x20-\x7e]{1,128}$/;

/**
 * Server-side apply: merges the applied configuration into the live object as its field
 * manager (server-side-apply.ts), or creates the object when there is none.
 */
async function apply(r: ResourceRequest, body: unknown, w: ReturnType<typeof parseWriteQuery>): Promise<void> {
  const manager = w.fieldManager;
  if (!manager) throw bad('PATCH, application/apply-patch+yaml requires fieldManager to be set');
  if (!FIELD_MANAGER_RE.test(manager)) throw bad('fieldManager: must be at most 128 printable ASCII characters');
  const forceParam = r.url.searchParams.get('force');
  if (forceParam !== null && forceParam !== 'true' && forceParam !== 'false') throw bad(`force: invalid value "${forceParam}"`);
  const applied = objectForPath(r.strategy, body, r.namespace, r.name);
  const input = {
    applied,
    manager,
    force: forceParam === 'true',
    subresource: r.subresource === 'status' ? 'status' : undefined,
    now: timestampNow(),
    resource: { plural: r.strategy.plural, group: r.strategy.group },
  };
  const checked = (obj: KubeObject, first: boolean) => {
    const o = objectForPath(r.strategy, obj, r.namespace, r.name);
    const warnings = [...applyFieldValidation(r.strategy, o, w.fieldValidation), ...objectWarnings(r, o)];
    if (first) addWarnings(r.res, warnings);
    checkAnswerable(r.out, o);
    return o;
  };
  try {
    const updated = await r.objects.patch(r.principal, r.strategy.kind, r.namespace, r.name!, (live, attempt) => checked(serverSideApply({ ...input, live }), attempt === 0), {
      dryRun: w.dryRun,
      subresource: input.subresource as 'status' | undefined,
    });
    sendKube(r.res, 200, shapeObject(r.strategy, updated, r.out), r.out);
  } catch (err) {
    if (!(err instanceof StowageError && err.code === 'NotFound' && !input.subresource)) throw err;
    // Nothing to apply to: the apply creates the object (which needs the create verb).
    r.objects.authorize(r.principal, 'create', r.strategy.kind, r.namespace, undefined);
    const obj = checked(serverSideApply({ ...input, live: undefined }), true);
    const created = await r.objects.create(r.principal, obj, { dryRun: w.dryRun });
    sendKube(r.res, 201, shapeObject(r.strategy, created, r.out), r.out);
  }
}

async function patch(r: ResourceRequest): Promise<void> {
  r.objects.authorize(r.principal, 'patch', r.strategy.kind, r.namespace, r.name);
  const type = patchTypeOf(r.req.headers['content-type'], servedAsCustomResource(r.strategy));
  const w = parseWriteQuery(r.url.searchParams);
  const body = decodeBody(r.req, await readBody(r.req, r.maxBodyBytes), { patch: true });
  if (body === undefined) throw bad('the request has no body; a patch was expected');
  if (type === 'application/apply-patch+yaml') return apply(r, body, w);
  const manager = updateManager(w.fieldManager, r.req.headers['user-agent']);
  // The service authorizes before it reads the object or this function merges anything.
  const updated = await r.objects.patch(
    r.principal,
    r.strategy.kind,
    r.namespace,
    r.name!,
    (current, attempt) => {
      const obj = objectForPath(r.strategy, applyPatch(type, current, body), r.namespace, r.name);
      // The patcher takes the fields it changed (an Update entry), unless the patch rewrote managedFields.
      if (isDeepStrictEqual(obj.metadata.managedFields, current.metadata.managedFields)) {
        const entries = recordUpdate(current, obj, manager, timestampNow(), r.subresource === 'status' ? 'status' : undefined);
        if (entries.length > 0) obj.metadata.managedFields = entries;
        else delete obj.metadata.managedFields;
      }
      const warnings = [...applyFieldValidation(r.strategy, obj, w.fieldValidation), ...objectWarnings(r, obj)];
      if (attempt === 0) addWarnings(r.res, warnings);
      checkAnswerable(r.out, obj);
      return obj;
    },
    { dryRun: w.dryRun, subresource: r.subresource === 'status' ? 'status' : undefined },
  );
  sendKube(r.res, 200, shapeObject(r.strategy, updated, r.out), r.out);
}

/** Kinds whose registry answers a delete with the object rather than a Status (`ReturnDeletedObject`). */
const RETURNS_DELETED_OBJECT = new Set(['PersistentVolume', 'PersistentVolumeClaim', 'StorageClass', 'Namespace', 'Pod']);

async function remove(r: ResourceRequest): Promise<void> {
  r.objects.authorize(r.principal, 'delete', r.strategy.kind, r.namespace, r.name);
  const raw = await readBody(r.req, r.maxBodyBytes);
  const opts = parseDeleteOptions(r.url.searchParams, decodeBody(r.req, raw));
  const result = await r.objects.delete(r.principal, r.strategy.kind, r.namespace, r.name!, {
    dryRun: opts.dryRun,
    preconditions: opts.preconditions,
    gracePeriodSeconds: opts.gracePeriodSeconds,
    propagationPolicy: opts.propagationPolicy,
  });
  if (result.deleted && !RETURNS_DELETED_OBJECT.has(r.strategy.kind)) {
    const s = r.strategy;
    sendKube(r.res, 200, deletedStatus(r.name!, s.group, s.plural, result.object.metadata.uid), r.out);
  } else {
    sendKube(r.res, 200, shapeObject(r.strategy, result.object, r.out), r.out);
  }
}

async function removeCollection(r: ResourceRequest, q: ListQuery): Promise<void> {
  const raw = await readBody(r.req, r.maxBodyBytes);
  const opts = parseDeleteOptions(r.url.searchParams, decodeBody(r.req, raw));
  const result = await r.objects.deleteCollection(r.principal, r.strategy.kind, {
    namespace: r.namespace,
    labelSelector: q.labelSelector,
    fieldSelector: q.fieldSelector,
    dryRun: opts.dryRun,
  });
  sendKube(r.res, 200, shapeList(r.strategy, result.items, r.out, { resourceVersion: result.resourceVersion }), r.out);
}

export async function serveResource(r: ResourceRequest): Promise<void> {
  const method = r.req.method ?? 'GET';
  const named = r.name !== undefined;
  if (r.watchPath && method !== 'GET') throw methodNotAllowed(method);
  if (r.subresource === 'finalize') {
    // Upstream serves namespaces/{name}/finalize for update only.
    if (method === 'PUT') return update(r);
    throw methodNotAllowed(method);
  }
  if (r.subresource !== undefined) {
    if (method === 'GET') return get(r);
    if (method === 'PUT') return update(r);
    if (method === 'PATCH') return patch(r);
    throw methodNotAllowed(method);
  }
  if (method === 'GET') {
    const q = parseListQuery(r.url.searchParams);
    const watching = r.watchPath || q.watch;
    const invalidOptions = validateListOptions(q, watching);
    if (invalidOptions.length > 0) throw invalidListOptions(invalidOptions);
    if (watching) return serveWatch({ ...r, query: q });
    return named ? get(r) : list(r, q);
  }
  if (!named) {
    if (method === 'POST') {
      if (r.strategy.namespaced && r.namespace === undefined) throw methodNotAllowed('POST without a namespace');
      return create(r);
    }
    if (method === 'DELETE') {
      // Upstream serves deletecollection of a namespaced kind only within one namespace.
      if (r.strategy.namespaced && r.namespace === undefined) throw methodNotAllowed('DELETE without a namespace');
      return removeCollection(r, parseListQuery(r.url.searchParams));
    }
    throw methodNotAllowed(method);
  }
  if (method === 'PUT') return update(r);
  if (method === 'PATCH') return patch(r);
  if (method === 'DELETE') return remove(r);
  throw methodNotAllowed(method);
}

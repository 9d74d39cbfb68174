// Query parameters of the Kubernetes API, parsed and checked once: list options, write
// options (dryRun, fieldValidation), delete options, and what output the client accepts.
import { StowageError, type FieldError } from '../domain/errors';
import { parseFieldSelector } from '../domain/field-selector';
import { parseLabelSelector } from '../domain/label-selector';
import { unstorable } from '../domain/untrusted';

function badRequest(message: string): StowageError {
  return new StowageError('BadRequest', message);
}

/** Go's strconv.ParseBool, as the apiserver decodes boolean parameters. */
export function parseBool(name: string, v: string | null): boolean | undefined {
  if (v === null) return undefined;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False', ''].includes(v)) return false;
  throw badRequest(`invalid value for ${name}: strconv.ParseBool: parsing "${v}": invalid syntax`);
}

const INT64_MAX = 2n ** 63n - 1n;

/**
 * Go's strconv.ParseInt(v, 10, 64): beyond int64 is a 400, as upstream. Values past
 * 2^53 are kept at Number.MAX_SAFE_INTEGER, which every caller treats as "no limit".
 */
function parseInt64(name: string, v: string | null): number | undefined {
  if (v === null || v === '') return undefined;
  if (!/^[-+]?\d+$/.test(v)) throw badRequest(`invalid value for ${name}: strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  const big = BigInt(v);
  if (big > INT64_MAX || big < -INT64_MAX - 1n) {
    throw badRequest(`invalid value for ${name}: strconv.ParseInt: parsing ${JSON.stringify(v)}: value out of range`);
  }
  if (big > BigInt(Number.MAX_SAFE_INTEGER)) return Number.MAX_SAFE_INTEGER;
  if (big < BigInt(Number.MIN_SAFE_INTEGER)) return Number.MIN_SAFE_INTEGER;
  return Number(big);
}

export interface ListQuery {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  /** "NotOlderThan" or "Exact" once validateListOptions passed. */
  resourceVersionMatch?: string;
  watch: boolean;
  allowWatchBookmarks: boolean;
  sendInitialEvents?: boolean;
  timeoutSeconds?: number;
}

export function parseListQuery(q: URLSearchParams): ListQuery {
  const labelSelector = q.get('labelSelector') ?? undefined;
  const fieldSelector = q.get('fieldSelector') ?? undefined;
  for (const [k, v] of q) {
    if (unstorable(k) || unstorable(v)) throw badRequest(`query parameter ${JSON.stringify(k.replace(/\0/g, '\\0'))} may not contain the NUL character`);
  }
  // Parse now, so a bad selector is a 400 before anything else happens.
  if (labelSelector) parseLabelSelector(labelSelector);
  if (fieldSelector) parseFieldSelector(fieldSelector);
  const limit = parseInt64('limit', q.get('limit'));
  const timeoutSeconds = parseInt64('timeoutSeconds', q.get('timeoutSeconds'));
  const rvm = q.get('resourceVersionMatch') || undefined;
  const resourceVersion = q.get('resourceVersion') || undefined;
  if (resourceVersion !== undefined && !/^\d+$/.test(resourceVersion)) {
    throw badRequest(`invalid resource version "${resourceVersion}"`);
  }
  return {
    labelSelector,
    fieldSelector,
    limit: limit !== undefined && limit > 0 ? limit : undefined,
    continue: q.get('continue') || undefined,
    resourceVersion,
    resourceVersionMatch: rvm,
    watch: parseBool('watch', q.get('watch')) ?? false,
    allowWatchBookmarks: parseBool('allowWatchBookmarks', q.get('allowWatchBookmarks')) ?? false,
    sendInitialEvents: parseBool('sendInitialEvents', q.get('sendInitialEvents')),
    timeoutSeconds: timeoutSeconds !== undefined && timeoutSeconds > 0 ? timeoutSeconds : undefined,
  };
}

/**
 * Upstream ValidateListOptions (apimachinery meta/internalversion/validation): which
 * combinations of resourceVersion, resourceVersionMatch, continue and sendInitialEvents a
 * list or a watch takes (the WatchList feature is on). Pure.
 */
export function validateListOptions(q: ListQuery, watch: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const forbid = (field: string, message: string) => errs.push({ field, reason: 'FieldValueForbidden', message: `Forbidden: ${message}` });
  const unsupported = (values: string[]) =>
    errs.push({
      field: 'resourceVersionMatch',
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: "${q.resourceVersionMatch}": supported values: ${values.map((v) => JSON.stringify(v)).join(', ')}`,
    });
  const match = q.resourceVersionMatch;
  if (watch) {
    if (q.sendInitialEvents !== undefined && match !== 'NotOlderThan') {
      forbid('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan');
    }
    if (match) {
      if (q.sendInitialEvents === undefined) forbid('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided');
      if (match !== 'NotOlderThan') unsupported(['NotOlderThan']);
      if (q.continue) forbid('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided');
    }
    return errs;
  }
  if (match) {
    if (!q.resourceVersion) forbid('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided');
    if (q.continue) forbid('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided');
    if (match !== 'Exact' && match !== 'NotOlderThan') unsupported(['Exact', 'NotOlderThan', '']);
    if (match === 'Exact' && q.resourceVersion === '0') forbid('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
  }
  if (q.sendInitialEvents !== undefined) forbid('sendInitialEvents', 'sendInitialEvents is forbidden for list');
  return errs;
}

/** The 422 upstream answers for invalid list options: `ListOptions.meta.k8s.io "" is invalid: ...`. */
export function invalidListOptions(errs: FieldError[]): StowageError {
  const list = errs.map((c) => `${c.field}: ${c.message}`).join(', ');
  return new StowageError('Invalid', `ListOptions.meta.k8s.io "" is invalid: ${errs.length > 1 ? `[${list}]` : list}`, {
    kind: 'ListOptions',
    group: 'meta.k8s.io',
    causes: errs,
  });
}

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

export interface WriteQuery {
  dryRun: boolean;
  fieldValidation: FieldValidation;
  fieldManager?: string;
}

export function parseWriteQuery(q: URLSearchParams): WriteQuery {
  return {
    dryRun: parseDryRun(q.getAll('dryRun')),
    fieldValidation: parseFieldValidation(q.get('fieldValidation')),
    fieldManager: q.get('fieldManager') ?? undefined,
  };
}

export function parseDryRun(values: unknown[]): boolean {
  for (const v of values) {
    if (v !== 'All') throw badRequest(`dryRun: Unsupported value: "${String(v)}": supported values: "All"`);
  }
  return values.length > 0;
}

function parseFieldValidation(v: string | null): FieldValidation {
  // Upstream's default when a client sends nothing is Warn.
  if (v === null || v === '') return 'Warn';
  if (v === 'Strict' || v === 'Warn' || v === 'Ignore') return v;
  throw badRequest(`fieldValidation: Unsupported value: "${v}": supported values: "Ignore", "Strict", "Warn"`);
}

export interface DeleteQuery {
  dryRun: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: string;
  gracePeriodSeconds?: number;
}

const PROPAGATION = ['Orphan', 'Background', 'Foreground'];

/** DeleteOptions from the body when there is one, else from the query (as upstream). */
export function parseDeleteOptions(q: URLSearchParams, body: unknown): DeleteQuery {
  if (body !== undefined) {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw badRequest('the body of a delete must be a DeleteOptions object');
    }
    const o = body as Record<string, unknown>;
    if (o.kind !== undefined && o.kind !== 'DeleteOptions') {
      throw badRequest('decoded object cannot be converted to DeleteOptions');
    }
    const dry = o.dryRun === undefined || o.dryRun === null ? [] : o.dryRun;
    if (!Array.isArray(dry)) throw badRequest('dryRun must be a list');
    const pre = (o.preconditions ?? undefined) as DeleteQuery['preconditions'] | null | undefined;
    if (pre !== undefined && pre !== null && (typeof pre !== 'object' || Array.isArray(pre))) {
      throw badRequest('preconditions must be an object');
    }
    const policy = o.propagationPolicy ?? undefined;
    if (policy !== undefined && policy !== null && !PROPAGATION.includes(String(policy))) {
      throw badRequest(`propagationPolicy: Unsupported value: "${String(policy)}": supported values: "Foreground", "Background", "Orphan"`);
    }
    return {
      dryRun: parseDryRun(dry),
      preconditions: pre ?? undefined,
      propagationPolicy: (policy as string | null) ?? undefined,
      gracePeriodSeconds: typeof o.gracePeriodSeconds === 'number' ? o.gracePeriodSeconds : undefined,
    };
  }
  const policy = q.get('propagationPolicy') || undefined;
  if (policy !== undefined && !PROPAGATION.includes(policy)) {
    throw badRequest(`propagationPolicy: Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan"`);
  }
  const uid = q.get('preconditions.uid') || undefined;
  const resourceVersion = q.get('preconditions.resourceVersion') || undefined;
  return {
    dryRun: parseDryRun(q.getAll('dryRun')),
    preconditions: uid || resourceVersion ? { uid, resourceVersion } : undefined,
    propagationPolicy: policy,
    gracePeriodSeconds: parseInt64('gracePeriodSeconds', q.get('gracePeriodSeconds')),
  };
}

export type OutputAs = 'object' | 'table' | 'partial';

export interface Output {
  as: OutputAs;
  /** The meta.k8s.io version asked for with `as=Table` / `as=PartialObjectMetadata`. */
  metaVersion: 'v1' | 'v1beta1';
  yaml: boolean;
  /** Answer `application/vnd.kubernetes.protobuf` (objects, lists, Status and watch events only). */
  protobuf?: boolean;
  /** With protobuf: the JSON or YAML answer a later Accept range allows, for an object protobuf cannot carry. */
  fallback?: Output;
  includeObject: 'None' | 'Metadata' | 'Object';
}

interface MediaRange {
  type: string;
  params: Record<string, string>;
}

function parseAccept(header: string | undefined): MediaRange[] {
  if (!header) return [{ type: '*/*', params: {} }];
  return header.split(',').map((part) => {
    const [type, ...rest] = part.split(';').map((s) => s.trim());
    const params: Record<string, string> = {};
    for (const p of rest) {
      const eq = p.indexOf('=');
      if (eq > 0) params[p.slice(0, eq).trim().toLowerCase()] = p.slice(eq + 1).trim().replace(/^"|"$/g, '');
    }
    return { type: type.toLowerCase(), params };
  });
}

const PROTOBUF = 'application/vnd.kubernetes.protobuf';

/** The answer one Accept range asks for, if Stowage can give it. */
function outputFor(r: MediaRange, includeObject: Output['includeObject']): Output | undefined {
  const json = r.type === 'application/json' || r.type === '*/*' || r.type === 'application/*';
  const yaml = r.type === 'application/yaml';
  const as = r.params.as;
  if (r.type === PROTOBUF) {
    // Tables and partial metadata stay JSON (as upstream serves Tables).
    return as ? undefined : { as: 'object', metaVersion: 'v1', yaml: false, protobuf: true, includeObject };
  }
  if (!json && !yaml) return undefined;
  if (!as) return { as: 'object', metaVersion: 'v1', yaml, includeObject };
  if (r.params.g !== 'meta.k8s.io' || (r.params.v !== 'v1' && r.params.v !== 'v1beta1')) return undefined;
  const metaVersion = r.params.v;
  if (as === 'Table') return { as: 'table', metaVersion, yaml, includeObject };
  if (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') return { as: 'partial', metaVersion, yaml, includeObject };
  return undefined;
}

/**
 * What to answer with, from the Accept header: the first range we can serve wins; when
 * that is protobuf, the first later plain JSON/YAML range is kept as its fallback.
 * `undefined` when nothing acceptable (the caller answers 406).
 */
export function negotiateOutput(accept: string | undefined, q: URLSearchParams): Output | undefined {
  const include = q.get('includeObject') || 'Metadata';
  if (include !== 'None' && include !== 'Metadata' && include !== 'Object') {
    throw badRequest(`unrecognized includeObject value: "${include}"`);
  }
  const ranges = parseAccept(accept);
  for (const [i, r] of ranges.entries()) {
    const out = outputFor(r, include);
    if (!out) continue;
    if (out.protobuf) {
      const fallback = ranges.slice(i + 1).map((x) => outputFor(x, include)).find((o) => o && !o.protobuf && o.as === 'object');
      if (fallback) out.fallback = fallback;
    }
    return out;
  }
  return undefined;
}

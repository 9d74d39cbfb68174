// The OpenAPI v2 document clients read to learn what each kind's endpoints accept.
// kubectl reads from it: the x-kubernetes-group-version-kind of each PATCH operation, the
// patch types it consumes, whether it takes `fieldValidation` and `dryRun` (so validation
// happens server-side and `--dry-run=server` works), and the definitions, which an old
// kubectl (1.20, which predates /openapi/v3) uses for `kubectl explain` and to validate
// manifests before sending them. The definitions are the /openapi/v3 schemas (the same zod
// shapes the server validates with), in v2's form.
//
// PATCH operations leave strategic merge patch out of their media types, as the v3
// document does: kubectl then computes apply patches from its built-in types (which know
// these kinds' merge keys) rather than from these definitions (which carry none).
import { strategies } from '../resources/registry';
import type { Strategy } from '../resources/types';
import { KUBE_VERSION } from './discovery';
import { kindDefinitions } from './openapi-v3';
import { PATCH_TYPES } from './patch/apply-patch';

type Param = Record<string, unknown>;

const queryParam = (name: string, type: string, description: string): Param => ({ name, in: 'query', type, uniqueItems: true, description });

const dryRun = queryParam(
  'dryRun',
  'string',
  'When present, indicates that modifications should not be persisted. Valid values are: - All: all dry run stages will be processed',
);
const fieldManager = queryParam('fieldManager', 'string', 'fieldManager is a name associated with the actor or entity that is making these changes.');
const fieldValidation = queryParam(
  'fieldValidation',
  'string',
  'fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields. Valid values are: Ignore, Warn (default), Strict.',
);
const pretty = queryParam('pretty', 'string', "If 'true', then the output is pretty printed.");
const body: Param = { name: 'body', in: 'body', required: true, schema: { type: 'object' } };
const nameParam: Param = { name: 'name', in: 'path', required: true, type: 'string', uniqueItems: true, description: 'name of the object' };
const namespaceParam: Param = { name: 'namespace', in: 'path', required: true, type: 'string', uniqueItems: true, description: 'object name and auth scope, such as for teams and projects' };
const listParams = [
  queryParam('labelSelector', 'string', 'A selector to restrict the list of returned objects by their labels. Defaults to everything.'),
  queryParam('fieldSelector', 'string', 'A selector to restrict the list of returned objects by their fields. Defaults to everything.'),
  queryParam('limit', 'integer', 'limit is a maximum number of responses to return for a list call.'),
  queryParam('continue', 'string', 'The continue option should be set when retrieving more results from the server.'),
  queryParam('resourceVersion', 'string', 'resourceVersion sets a constraint on what resource versions a request may be served from.'),
  queryParam('resourceVersionMatch', 'string', 'resourceVersionMatch determines how resourceVersion is applied to list calls.'),
  queryParam('timeoutSeconds', 'integer', 'Timeout for the list/watch call.'),
  queryParam('watch', 'boolean', 'Watch for changes to the described resources and return them as a stream of add, update, and remove notifications.'),
  queryParam('allowWatchBookmarks', 'boolean', 'allowWatchBookmarks requests watch events with type "BOOKMARK".'),
];

const JSON_TYPES = ['application/json', 'application/yaml'];
const V2_PATCH_TYPES = PATCH_TYPES.filter((t) => t !== 'application/strategic-merge-patch+json');

// A JSON Schema tree (OpenAPI v2), built and walked as open JSON (parse boundary).
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parse boundary: a JSON Schema tree built and walked as open JSON
type Schema = Record<string, any>;

/**
 * A v3 (zod-generated) schema in the form kubectl's v2 reader takes: refs under
 * #/definitions/; an object that also takes fields it does not list (a pod's containers,
 * loosely kept volume sources) becomes a map, since kubectl treats any object with
 * properties as closed and would refuse the fields it does not know; unions become
 * untyped (any value), as v2 has no anyOf.
 */
function toV2(v3: Schema): Schema {
  if (v3.$ref) return { $ref: String(v3.$ref).replace('#/components/schemas/', '#/definitions/'), ...(v3.description ? { description: v3.description } : {}) };
  const out: Schema = {};
  if (v3.description) out.description = v3.description;
  if (v3.anyOf || v3.oneOf) return out;
  if (v3.type) out.type = v3.type;
  for (const [k, v] of Object.entries(v3)) if (k.startsWith('x-')) out[k] = v;
  if (v3.type === 'array' && v3.items) out.items = toV2(v3.items);
  const open = v3.additionalProperties !== undefined && v3.additionalProperties !== false;
  if (v3.properties && !open) {
    out.properties = Object.fromEntries(Object.entries<Schema>(v3.properties).map(([name, child]) => [name, toV2(child)]));
    if (Array.isArray(v3.required) && v3.required.length > 0) out.required = v3.required;
  } else if (open && typeof v3.additionalProperties === 'object' && Object.keys(v3.additionalProperties).length > 0 && !v3.properties) {
    out.additionalProperties = toV2(v3.additionalProperties);
  }
  return out;
}

function operation(s: Strategy, action: string, id: string, parameters: Param[], consumes: readonly string[] = ['*/*']): Record<string, unknown> {
  const group = s.group ? s.group.split('.')[0].replace(/^./, (c) => c.toUpperCase()) : 'Core';
  return {
    description: `${action} ${s.kind}`,
    consumes,
    produces: JSON_TYPES,
    schemes: ['https'],
    tags: [s.group ? `${s.group.split('.')[0]}_${s.version}` : `core_${s.version}`],
    operationId: `${id}${group}${s.version.toUpperCase()}${s.namespaced ? 'Namespaced' : ''}${s.kind}`,
    parameters,
    responses: { '200': { description: 'OK' }, '401': { description: 'Unauthorized' } },
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': { group: s.group, kind: s.kind, version: s.version },
  };
}

function pathsFor(s: Strategy): Record<string, Record<string, unknown>> {
  const root = s.group ? `/apis/${s.group}/${s.version}` : `/api/${s.version}`;
  const base = s.namespaced ? `${root}/namespaces/{namespace}/${s.plural}` : `${root}/${s.plural}`;
  const scope = s.namespaced ? [namespaceParam, pretty] : [pretty];
  const paths: Record<string, Record<string, unknown>> = {
    [base]: {
      get: operation(s, 'list', 'list', listParams),
      post: operation(s, 'post', 'create', [body, dryRun, fieldManager, fieldValidation]),
      parameters: scope,
    },
    [`${base}/{name}`]: {
      get: operation(s, 'get', 'read', []),
      put: operation(s, 'put', 'replace', [body, dryRun, fieldManager, fieldValidation]),
      patch: operation(s, 'patch', 'patch', [body, dryRun, fieldManager, fieldValidation], V2_PATCH_TYPES),
      delete: operation(s, 'delete', 'delete', [dryRun]),
      parameters: [nameParam, ...scope],
    },
  };
  if (s.hasStatus) {
    paths[`${base}/{name}/status`] = {
      get: operation(s, 'get', 'read', []),
      put: operation(s, 'put', 'replace', [body, dryRun, fieldManager, fieldValidation]),
      patch: operation(s, 'patch', 'patch', [body, dryRun, fieldManager, fieldValidation], V2_PATCH_TYPES),
      parameters: [nameParam, ...scope],
    };
  }
  return paths;
}

let cached: Record<string, unknown> | undefined;

export function openApiV2(): Record<string, unknown> {
  if (cached) return cached;
  const paths: Record<string, unknown> = {};
  for (const s of strategies) Object.assign(paths, pathsFor(s));
  cached = {
    swagger: '2.0',
    info: { title: 'Stowage', version: KUBE_VERSION.gitVersion },
    paths,
    definitions: Object.fromEntries(Object.entries(kindDefinitions('#/definitions/')).map(([name, schema]) => [name, toV2(schema)])),
  };
  return cached;
}

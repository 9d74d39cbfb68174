// The OpenAPI v2 document clients read to learn what each kind's endpoints accept.
// kubectl reads three things from it: the x-kubernetes-group-version-kind of each PATCH
// operation, the patch types it consumes (so `apply` and `edit` send strategic merge
// patches), and whether it takes `fieldValidation` and `dryRun` (so validation happens
// server-side and `--dry-run=server` works). Definitions are left out on purpose: kubectl
// then computes patches from its built-in types, which know these kinds exactly.
import { strategies } from '../resources/registry';
import type { Strategy } from '../resources/types';
import { KUBE_VERSION } from './discovery';
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
      patch: operation(s, 'patch', 'patch', [body, dryRun, fieldManager, fieldValidation], PATCH_TYPES),
      delete: operation(s, 'delete', 'delete', [dryRun]),
      parameters: [nameParam, ...scope],
    },
  };
  if (s.hasStatus) {
    paths[`${base}/{name}/status`] = {
      get: operation(s, 'get', 'read', []),
      put: operation(s, 'put', 'replace', [body, dryRun, fieldManager, fieldValidation]),
      patch: operation(s, 'patch', 'patch', [body, dryRun, fieldManager, fieldValidation], PATCH_TYPES),
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
    definitions: {},
  };
  return cached;
}

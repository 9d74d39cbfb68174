// The ResourceQuota strategy (core/v1): shape, upstream validation, status kept apart
// from spec (the quota controller and claim admission write status.used), and the table
// kubectl prints (NAME, AGE, REQUEST, LIMIT as upstream printResourceQuota).
import { ageOf } from '../../domain/duration';
import { ageColumn, column, nameColumn, noColumns } from '../columns';
import { keepAllButStatus, keepSystemMetadata, shapeErrors, stripNulls, keepStatus } from '../metadata';
import { canonicalizeResourceList, showQuantity } from '../resource-list';
import type { Strategy } from '../types';
import { resourceQuotaSchema, type ResourceQuota } from './schema';
import { validateResourceQuota, validateResourceQuotaUpdate } from './validation';

function canonicalize(q: ResourceQuota): void {
  canonicalizeResourceList(q.spec?.hard);
  canonicalizeResourceList(q.status?.hard);
  canonicalizeResourceList(q.status?.used);
}

/** One table cell as upstream: `name: used/hard` for each resource, sorted, requests and limits apart. */
export function quotaCells(q: ResourceQuota): { request: string; limit: string } {
  const request: string[] = [];
  const limit: string[] = [];
  for (const name of Object.keys(q.spec?.hard ?? {}).sort()) {
    const used = showQuantity(q.status?.used?.[name]) || '0';
    const hard = showQuantity(q.status?.hard?.[name]) || '0';
    const pieces = name.split('.');
    (pieces.length > 1 && pieces[0] === 'limits' ? limit : request).push(`${name}: ${used}/${hard}`);
  }
  return { request: request.join(', '), limit: limit.join(', ') };
}

export const resourceQuotaStrategy: Strategy<ResourceQuota> = {
  kind: 'ResourceQuota',
  group: '',
  version: 'v1',
  apiVersion: 'v1',
  plural: 'resourcequotas',
  singular: 'resourcequota',
  shortNames: ['quota'],
  namespaced: true,
  hasStatus: true,
  fieldSelectors: {},

  validateShape: (obj) => shapeErrors(resourceQuotaSchema, obj),
  schema: resourceQuotaSchema,

  applyDefaults(q) {
    stripNulls(q);
    canonicalize(q);
  },

  prepareForCreate(q) {
    // Upstream: status is the controllers' (ResourceQuota PrepareForCreate resets it).
    delete q.status;
  },

  prepareForUpdate(next, prev) {
    keepSystemMetadata(next, prev);
    keepStatus(next, prev);
  },

  prepareForStatusUpdate(next, prev) {
    keepAllButStatus(next, prev);
  },

  validate: validateResourceQuota,
  validateUpdate: validateResourceQuotaUpdate,

  columns: () => noColumns(),

  table: {
    columns: [
      nameColumn,
      ageColumn,
      column('Request', 'Request represents a minimum amount of cpu/memory that a container may consume.'),
      column('Limit', 'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.'),
    ],
    row: (q, now) => {
      const { request, limit } = quotaCells(q);
      return [q.metadata?.name ?? '', ageOf(q.metadata?.creationTimestamp, now), request, limit];
    },
  },
};

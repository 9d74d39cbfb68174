// Upstream ValidateResourceQuota / ValidateResourceQuotaUpdate (pkg/apis/core/validation):
// resource names a quota may hold, non-negative (and for countable resources, whole)
// quantities, the known scopes and their combinations. Pure.
import type { FieldError } from '../../domain/errors';
import { isQualifiedName } from '../../domain/names';
import { formatQuantity } from '../../domain/quantity';
import { invalid } from '../field-errors';
import { validateObjectMeta, validateObjectMetaUpdate, validateTypeMeta } from '../metadata';
import { parseOrError } from '../resource-list';
import type { ResourceQuota } from './schema';

const STANDARD_QUOTA_RESOURCES = new Set([
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.storage',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'pods',
  'services',
  'replicationcontrollers',
  'resourcequotas',
  'secrets',
  'persistentvolumeclaims',
  'configmaps',
  'services.nodeports',
  'services.loadbalancers',
]);
/** Standard resource names that are not quota resources (upstream standardResources). */
const OTHER_STANDARD_RESOURCES = new Set(['storage']);
const INTEGER_RESOURCES = new Set([
  'pods',
  'services',
  'replicationcontrollers',
  'resourcequotas',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'services.nodeports',
  'services.loadbalancers',
]);

export const RESOURCE_QUOTA_SCOPES = [
  'Terminating',
  'NotTerminating',
  'BestEffort',
  'NotBestEffort',
  'PriorityClass',
  'CrossNamespacePodAffinity',
  'VolumeAttributesClass',
] as const;
const POD_RESOURCES = new Set(['pods', 'cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory', 'ephemeral-storage', 'requests.ephemeral-storage', 'limits.ephemeral-storage']);
const SCOPE_RESOURCES: Record<string, (r: string) => boolean> = {
  Terminating: (r) => POD_RESOURCES.has(r),
  NotTerminating: (r) => POD_RESOURCES.has(r),
  NotBestEffort: (r) => POD_RESOURCES.has(r),
  PriorityClass: (r) => POD_RESOURCES.has(r),
  BestEffort: (r) => r === 'pods',
  CrossNamespacePodAffinity: (r) => r === 'pods',
  VolumeAttributesClass: (r) => r === 'persistentvolumeclaims' || r === 'requests.storage',
};

const isHugePages = (r: string) => r.startsWith('hugepages-') || r.startsWith('requests.hugepages-');

/** Upstream IsExtendedResourceName: qualified, not native (kubernetes.io), not already requests.-prefixed. */
function isExtendedResource(r: string): boolean {
  if (!r.includes('/') || r.includes('kubernetes.io/') || r.startsWith('requests.')) return false;
  return isQualifiedName(`requests.${r}`).length === 0;
}

function isIntegerResource(r: string): boolean {
  return INTEGER_RESOURCES.has(r) || isExtendedResource(r);
}

/** Upstream ValidateResourceQuotaResourceName. */
export function validateQuotaResourceName(name: string, field: string): FieldError[] {
  const qualified = isQualifiedName(name);
  if (qualified.length > 0) return qualified.map((m) => invalid(field, name, m));
  if (name.includes('/')) return [];
  const errs: FieldError[] = [];
  const quota = STANDARD_QUOTA_RESOURCES.has(name) || isHugePages(name);
  if (!quota && !OTHER_STANDARD_RESOURCES.has(name)) errs.push(invalid(field, name, 'must be a standard resource type or fully qualified'));
  if (!quota) errs.push(invalid(field, name, 'must be a standard resource for quota'));
  return errs;
}

/** Upstream ValidateResourceQuantityValue: not negative; whole for countable resources. */
function validateQuantity(resource: string, value: unknown, field: string): FieldError[] {
  const { quantity, errors } = parseOrError(value, field);
  if (!quantity || errors.length > 0) return errors;
  const errs: FieldError[] = [];
  if (quantity.num < 0n) errs.push(invalid(field, formatQuantity(quantity), 'must be greater than or equal to 0'));
  if (isIntegerResource(resource)) {
    const milli = quantity.scale <= 3 ? 0n : quantity.num % 10n ** BigInt(quantity.scale - 3);
    const wholeMilli = (quantity.scale <= 3 ? quantity.num * 10n ** BigInt(3 - quantity.scale) : (quantity.num - milli) / 10n ** BigInt(quantity.scale - 3)) + (milli > 0n ? 1n : 0n);
    if (wholeMilli % 1000n !== 0n) errs.push(invalid(field, formatQuantity(quantity), 'must be an integer'));
  }
  return errs;
}

function validateList(list: Record<string, unknown> | undefined, base: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(list ?? {})) {
    const at = `${base}[${k}]`; // upstream Key(): always bracketed
    errs.push(...validateQuotaResourceName(k, at), ...validateQuantity(k, v, at));
  }
  return errs;
}

function validateScopes(spec: ResourceQuota['spec']): FieldError[] {
  const scopes: string[] = spec?.scopes ?? [];
  if (scopes.length === 0) return [];
  const errs: FieldError[] = [];
  const hard = Object.keys(spec?.hard ?? {});
  for (const scope of scopes) {
    const valid = SCOPE_RESOURCES[scope];
    if (!valid) {
      errs.push(invalid('spec.scopes', scopes, 'unsupported scope'));
      continue;
    }
    for (const r of hard) {
      if (STANDARD_QUOTA_RESOURCES.has(r) && !valid(r)) errs.push(invalid('spec.scopes', scopes, 'unsupported scope applied to resource'));
    }
  }
  const has = (s: string) => scopes.includes(s);
  if ((has('BestEffort') && has('NotBestEffort')) || (has('Terminating') && has('NotTerminating'))) {
    errs.push(invalid('spec.scopes', scopes, 'conflicting scopes'));
  }
  return errs;
}

function validateScopeSelector(spec: ResourceQuota['spec']): FieldError[] {
  const exprs: { scopeName?: string; operator?: string; values?: string[] }[] = spec?.scopeSelector?.matchExpressions ?? [];
  const errs: FieldError[] = [];
  exprs.forEach((e, i) => {
    const base = `spec.scopeSelector.matchExpressions[${i}]`;
    if (!SCOPE_RESOURCES[e.scopeName ?? '']) errs.push(invalid(`${base}.scopeName`, e.scopeName ?? '', 'unsupported scope'));
    const values = e.values ?? [];
    switch (e.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) errs.push(invalid(`${base}.values`, values, "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) errs.push(invalid(`${base}.values`, values, "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"));
        break;
      default:
        errs.push(invalid(`${base}.operator`, e.operator ?? '', 'not a valid selector operator'));
    }
  });
  return errs;
}

export function validateResourceQuota(q: ResourceQuota): FieldError[] {
  return [
    ...validateTypeMeta(q, 'v1', 'ResourceQuota'),
    ...validateObjectMeta(q.metadata, { namespaced: true, name: 'dns-subdomain' }),
    ...validateList(q.spec?.hard, 'spec.hard'),
    ...validateScopes(q.spec),
    ...validateScopeSelector(q.spec),
    ...validateList(q.status?.hard, 'status.hard'),
    ...validateList(q.status?.used, 'status.used'),
  ];
}

export function validateResourceQuotaUpdate(next: ResourceQuota, prev: ResourceQuota): FieldError[] {
  const errs = validateObjectMetaUpdate(next.metadata, prev.metadata);
  const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
  if (!same(next.spec?.scopes, prev.spec?.scopes)) errs.push(invalid('spec.scopes', next.spec?.scopes ?? [], 'field is immutable'));
  if (!same(next.spec?.scopeSelector, prev.spec?.scopeSelector)) errs.push(invalid('spec.scopeSelector', next.spec?.scopeSelector ?? null, 'field is immutable'));
  return errs;
}

/** Whether a quota has scopes or a scope selector (such a quota matches no claim here). */
export function isScoped(q: ResourceQuota): boolean {
  return (q.spec?.scopes ?? []).length > 0 || (q.spec?.scopeSelector?.matchExpressions ?? []).length > 0;
}

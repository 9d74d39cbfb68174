// The quota form's state and the ResourceQuota it makes: a name, a namespace and hard
// limits (resource = amount). Editing keeps the rest of the object (labels, scopes,
// resourceVersion). Storage limits are a size control's value, counts a plain number. Pure.
import { isDNS1123Subdomain } from '@/server/domain/names';
import { SNAPSHOT_STORAGE } from '@/server/domain/quota-objects';
import type { ResourceQuota } from '@/server/resources/resource-quota/schema';
import { isSizeResource } from '../format/size';
import { bytesOfValue, quantityOfValue, valueOfQuantity, type SizeValue } from '../format/size-value';

export interface LimitDraft {
  resource: string;
  /** The amount of a count resource (claims, snapshots): a whole number. */
  count: string;
  /** The amount of a size resource (storage). */
  size: SizeValue;
}

export interface QuotaDraft {
  name: string;
  namespace: string;
  limits: LimitDraft[];
}

export interface DraftError {
  field: string;
  message: string;
}

export const NEW_LIMIT: LimitDraft = { resource: '', count: '', size: { size: '', unit: 'Gi' } };
export const EMPTY_QUOTA: QuotaDraft = { name: '', namespace: '', limits: [{ ...NEW_LIMIT, resource: 'requests.storage' }] };
const WHOLE_NUMBER = /^\d{1,18}$/;

/** The hard amount a limit row asks for ("" when it is not one). */
export function limitAmount(l: LimitDraft): string {
  return isSizeResource(l.resource.trim()) ? quantityOfValue(l.size) : WHOLE_NUMBER.test(l.count.trim()) ? String(BigInt(l.count.trim())) : '';
}

/** A limit row for a resource and its hard quantity as stored. */
export function limitOf(resource: string, amount: string): LimitDraft {
  if (isSizeResource(resource)) return { resource, count: '', size: valueOfQuantity(amount) ?? { size: amount, unit: 'Gi' } };
  return { resource, count: amount, size: NEW_LIMIT.size };
}

/** The resources a storage quota limits: in the namespace, per class, and the snapshots' count and bytes. */
export function storageResources(classes: string[]): string[] {
  return [
    'requests.storage',
    'persistentvolumeclaims',
    ...classes.flatMap((c) => [`${c}.storageclass.storage.k8s.io/requests.storage`, `${c}.storageclass.storage.k8s.io/persistentvolumeclaims`]),
    `count/volumesnapshots.snapshot.storage.k8s.io`,
    SNAPSHOT_STORAGE,
  ];
}

export function draftFromQuota(q: ResourceQuota): QuotaDraft {
  return {
    name: q.metadata.name ?? '',
    namespace: q.metadata.namespace ?? '',
    limits: Object.entries(q.spec?.hard ?? {}).map(([resource, amount]) => limitOf(resource, String(amount))),
  };
}

export function quotaDraftErrors(d: QuotaDraft): DraftError[] {
  const errors: DraftError[] = [];
  for (const m of isDNS1123Subdomain(d.name)) errors.push({ field: 'name', message: d.name ? m : 'a quota needs a name' });
  if (!d.namespace) errors.push({ field: 'namespace', message: 'choose a namespace' });
  if (d.limits.length === 0) errors.push({ field: 'limits', message: 'a quota needs at least one limit' });
  const seen = new Set<string>();
  d.limits.forEach((l, i) => {
    const resource = l.resource.trim();
    if (!resource) errors.push({ field: `limits.${i}.resource`, message: 'name the resource' });
    else if (seen.has(resource)) errors.push({ field: `limits.${i}.resource`, message: `${resource} is limited twice` });
    seen.add(resource);
    if (isSizeResource(resource)) {
      if (bytesOfValue(l.size) === undefined) errors.push({ field: `limits.${i}.amount`, message: 'a size, such as 50 Gi' });
    } else if (!WHOLE_NUMBER.test(l.count.trim())) errors.push({ field: `limits.${i}.amount`, message: 'a whole number, such as 10' });
  });
  return errors;
}

/** The quota to create, or `base` with its hard limits replaced. */
export function quotaFromDraft(d: QuotaDraft, base?: ResourceQuota): ResourceQuota {
  const hard = Object.fromEntries(d.limits.map((l) => [l.resource.trim(), limitAmount(l)]));
  if (base) return { ...base, spec: { ...base.spec, hard } };
  return { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: d.name.trim(), namespace: d.namespace }, spec: { hard } };
}

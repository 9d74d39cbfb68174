// The quota form's state and the ResourceQuota it makes: a name, a namespace and hard
// limits (resource = amount). Editing keeps the rest of the object (labels, scopes,
// resourceVersion). Pure.
import { parseQuantity } from '@/server/domain/quantity';
import { isDNS1123Subdomain } from '@/server/domain/names';
import { SNAPSHOT_STORAGE } from '@/server/domain/quota-objects';
import type { ResourceQuota } from '@/server/resources/resource-quota/schema';

export interface QuotaDraft {
  name: string;
  namespace: string;
  limits: { resource: string; amount: string }[];
}

export interface DraftError {
  field: string;
  message: string;
}

export const EMPTY_QUOTA: QuotaDraft = { name: '', namespace: '', limits: [{ resource: 'requests.storage', amount: '' }] };

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
    limits: Object.entries(q.spec?.hard ?? {}).map(([resource, amount]) => ({ resource, amount: String(amount) })),
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
    const q = parseQuantity(l.amount.trim());
    if (!q) errors.push({ field: `limits.${i}.amount`, message: 'an amount such as 50Gi or 10' });
    else if (q.num < 0n) errors.push({ field: `limits.${i}.amount`, message: 'an amount may not be negative' });
  });
  return errors;
}

/** The quota to create, or `base` with its hard limits replaced. */
export function quotaFromDraft(d: QuotaDraft, base?: ResourceQuota): ResourceQuota {
  const hard = Object.fromEntries(d.limits.map((l) => [l.resource.trim(), l.amount.trim()]));
  if (base) return { ...base, spec: { ...base.spec, hard } };
  return { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: d.name.trim(), namespace: d.namespace }, spec: { hard } };
}

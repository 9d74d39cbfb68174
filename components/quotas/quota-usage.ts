// A quota's limits as a person reads them: per resource the amount used and the hard
// limit (sizes in binary units, counts as they are), and how full it is. Pure.
import type { ResourceQuota } from '@/server/resources/resource-quota/schema';
import { showQuantity } from '@/server/resources/resource-list';
import { parseQuantity } from '@/server/domain/quantity';
import { SNAPSHOT_STORAGE } from '@/server/domain/quota-objects';
import { formatSize, isSizeResource } from '../format/size';

export interface QuotaLimit {
  resource: string;
  /** The quantities as written ("38Gi"), for tooltips and YAML. */
  used: string;
  hard: string;
  /** As shown: "38 GiB" for sizes, "3" for counts. */
  usedText: string;
  hardText: string;
  /** 0-100 (capped), or undefined when the limit is not a number. */
  percent: number | undefined;
  /** Whether usage is at or over the limit. */
  full: boolean;
}

/** used / hard as a ratio; exact for any quantity (bigint), so "500m" of "1" is 50. */
function ratio(used: string, hard: string): number | undefined {
  const u = parseQuantity(used);
  const h = parseQuantity(hard);
  if (!u || !h) return undefined;
  const scale = Math.max(u.scale, h.scale);
  const un = u.num * 10n ** BigInt(scale - u.scale);
  const hn = h.num * 10n ** BigInt(scale - h.scale);
  if (hn <= 0n) return un > 0n ? Infinity : 0;
  return Number((un * 100000n) / hn) / 1000;
}

/** `limits.*` resources are the LIMIT column, everything else REQUEST (as upstream's table). */
export function isLimitsResource(resource: string): boolean {
  const pieces = resource.split('.');
  return pieces.length > 1 && pieces[0] === 'limits';
}

/** Every limited resource of the quota, in name order; used is 0 until the controller counts it. */
export function quotaLimits(q: ResourceQuota): QuotaLimit[] {
  const names = [...new Set([...Object.keys(q.spec?.hard ?? {}), ...Object.keys(q.status?.hard ?? {})])].sort();
  return names.map((resource) => {
    const hard = showQuantity(q.status?.hard?.[resource] ?? q.spec?.hard?.[resource]) || '0';
    const used = showQuantity(q.status?.used?.[resource]) || '0';
    const sized = isSizeResource(resource);
    const r = ratio(used, hard);
    return {
      resource,
      used,
      hard,
      usedText: sized ? formatSize(used) : used,
      hardText: sized ? formatSize(hard) : hard,
      percent: r === undefined ? undefined : Math.min(100, r),
      full: r !== undefined && r >= 100,
    };
  });
}

const CLASS_RESOURCE = /^(.+)\.storageclass\.storage\.k8s\.io\/(requests\.storage|persistentvolumeclaims)$/;

/**
 * A resource's name as a list cell says it: "storage", "claims", "gold: storage",
 * "snapshots"; the full name stays in the tooltip. Names it does not know come back as they are.
 */
export function shortResource(resource: string): string {
  if (resource === 'requests.storage') return 'storage';
  if (resource === 'persistentvolumeclaims') return 'claims';
  if (resource === 'count/volumesnapshots.snapshot.storage.k8s.io') return 'snapshots';
  if (resource === SNAPSHOT_STORAGE) return 'snapshot storage';
  const m = CLASS_RESOURCE.exec(resource);
  if (m) return `${m[1]}: ${m[2] === 'requests.storage' ? 'storage' : 'claims'}`;
  return resource;
}

// Resizing a claim (upstream admission plugin PersistentVolumeClaimResize): a larger
// request is allowed only for a Bound claim whose StorageClass has allowVolumeExpansion:
// true. Shrinking and changing an unbound claim's spec are refused by validation itself.
// Pure.
import { compareQuantities, quantityFromJSON } from '../../domain/quantity';
import type { StorageClass } from '../storage-class/schema';
import type { PersistentVolumeClaim } from './schema';
import { persistentVolumeClaimClass } from './strategy';

export const notBoundMessage = 'Only bound persistent volume claims can be expanded';
export const notExpandableMessage =
  'only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize';

/** Whether `next` asks for more storage than `prev`. */
export function isExpansion(next: PersistentVolumeClaim, prev: PersistentVolumeClaim): boolean {
  const n = quantityFromJSON(next.spec?.resources?.requests?.storage);
  const p = quantityFromJSON(prev.spec?.resources?.requests?.storage);
  return n !== undefined && p !== undefined && compareQuantities(n, p) > 0;
}

/** The class whose allowVolumeExpansion decides (the claim's class; none = not expandable). */
export function resizeClassName(prev: PersistentVolumeClaim): string | undefined {
  return persistentVolumeClaimClass(prev) || undefined;
}

/** Why the update may not grow the claim, or undefined when it may (or does not grow it). */
export function resizeRefusal(next: PersistentVolumeClaim, prev: PersistentVolumeClaim, storageClass: StorageClass | undefined): string | undefined {
  if (!isExpansion(next, prev)) return undefined;
  if (prev.status?.phase !== 'Bound') return notBoundMessage;
  if (!storageClass || storageClass.allowVolumeExpansion !== true) return notExpandableMessage;
  return undefined;
}

/** Whether the claim's class lets it grow (for the dashboard's Expand button). */
export function mayExpand(claim: PersistentVolumeClaim, storageClass: StorageClass | undefined): boolean {
  return claim.status?.phase === 'Bound' && !claim.metadata?.deletionTimestamp && storageClass?.allowVolumeExpansion === true;
}

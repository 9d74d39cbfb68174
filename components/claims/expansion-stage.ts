// Where a claim's expansion stands, for its page: the external-resizer's conditions and
// allocatedResources read back into one line. Pure.
import { compareQuantities, parseQuantity, quantityFromJSON } from '@/server/domain/quantity';
import type { PersistentVolumeClaim } from '@/server/resources/persistent-volume-claim/schema';
import { formatSize } from '../format/size';

export interface ExpansionStage {
  label: 'Resizing' | 'Resize failed' | 'Growing the filesystem' | 'Waiting for the resizer';
  detail: string;
  color: 'blue' | 'red' | 'yellow';
}

function condition(claim: PersistentVolumeClaim, type: string) {
  const conds = Array.isArray(claim.status?.conditions) ? claim.status.conditions : [];
  return conds.find((c) => c?.type === type && c?.status === 'True');
}

/** The stage of an expansion in progress, or undefined when the claim has the size it asks for. */
export function expansionStage(claim: PersistentVolumeClaim): ExpansionStage | undefined {
  const requested = claim.spec?.resources?.requests?.storage;
  const capacity = claim.status?.capacity?.storage;
  const want = quantityFromJSON(requested);
  const have = quantityFromJSON(capacity);
  if (claim.status?.phase !== 'Bound' || !want || !have || compareQuantities(want, have) <= 0) return undefined;
  const target = `${formatSize(capacity)} → ${formatSize(requested)}`;
  const failed = condition(claim, 'ControllerResizeError');
  if (failed) return { label: 'Resize failed', detail: `${target}: ${failed.message ?? 'the resizer failed'}; it is retried.`, color: 'red' };
  if (condition(claim, 'FileSystemResizePending')) {
    return { label: 'Growing the filesystem', detail: `${target}: the volume has grown; its filesystem is being grown.`, color: 'blue' };
  }
  if (condition(claim, 'Resizing')) return { label: 'Resizing', detail: `${target}: the resizer is growing the volume.`, color: 'blue' };
  return { label: 'Waiting for the resizer', detail: `${target}: no resizer has picked this up yet.`, color: 'yellow' };
}

/** Checks the new size of the Expand dialog (the size control's quantity): larger than the current request, said in human units. */
export function newSizeProblem(input: string, current: string | undefined): string | undefined {
  const q = parseQuantity(input.trim());
  if (!q) return 'Enter a size, such as 2 Gi';
  const cur = quantityFromJSON(current);
  if (cur && compareQuantities(q, cur) <= 0) return `Must be larger than the current ${formatSize(current)}: claims only grow`;
  return undefined;
}

/**
 * Why a Bound claim cannot be expanded by this user, for the disabled Expand button; undefined
 * when it can. A claim that is not Bound (or is being deleted) shows no Expand at all.
 */
export function expandBlocker(claim: PersistentVolumeClaim, sc: { allowVolumeExpansion?: boolean } | undefined, mayUpdate: boolean, className: string): string | undefined {
  if (claim.status?.phase !== 'Bound' || claim.metadata?.deletionTimestamp) return undefined;
  if (!className) return 'The claim has no storage class, so nothing can grow its volume.';
  if (sc && sc.allowVolumeExpansion !== true) return `Class ${className} does not allow expansion (allowVolumeExpansion is not true).`;
  if (!mayUpdate) return 'You may not update claims in this namespace.';
  return undefined;
}
